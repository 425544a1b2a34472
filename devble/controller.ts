/**
 * A virtual LE controller: the controller half of HCI (Bluetooth Core Vol 4 Part E) over H4, for one host, in a
 * shared `VirtualAir`. It implements what noble's and bleno's HCI code sends and expects, so that their L2CAP, ATT,
 * GATT and SMP code runs unchanged above it. What the air does not model is listed in air.ts.
 *
 * Host I/O is a byte transport (a pty's master side in the tests). The controller never speaks first: the UART
 * driver discards what is buffered when it opens the port, and waits for the Reset's Command Complete.
 */
import { EventEmitter } from 'node:events';
import type { Advertiser, VirtualAir } from './air';
import { H4Parser, type HostPacket } from './h4';
import {
  ADV_TYPE,
  ERR,
  EVT,
  LE_EVT,
  OP,
  PB,
  aclPacket,
  addressBytes,
  addressString,
  commandComplete,
  commandStatus,
  disconnectionComplete,
  leMeta,
  numberOfCompletedPackets,
} from './hci';
import { Link, type Llid, MAX_DATA_OCTETS, MIN_DATA_OCTETS, pduTimeUs } from './link';

export interface HostTransport {
  write(data: Buffer): void;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
}

export interface ControllerOptions {
  /** Public BD_ADDR; the air hands one out when absent. */
  address?: string;
  /** What LE Read Buffer Size reports: the largest ACL payload the host may send, and how many may be in flight. */
  aclBufferLength?: number;
  aclBufferCount?: number;
  /** Called with one line per H4 packet in either direction (`>` host to controller, `<` back). */
  trace?: (line: string) => void;
}

export interface ControllerEvents {
  /** The host broke a rule a real controller relies on (ACL flow control, packet sizes); a test fails on these. */
  violation: [string];
  command: [number, Buffer];
  reset: [];
}

/** Vol 4 Part E 7.3.1: the event mask after reset; the LE Meta bit (61) is clear until the host sets it. */
const DEFAULT_EVENT_MASK = 0x00001fffffffffffn;
/** Vol 4 Part E 7.8.1: the LE event mask after reset. */
const DEFAULT_LE_EVENT_MASK = 0x1fn;
const LE_META_BIT = 61n;
const DISCONNECTION_COMPLETE_BIT = 4n;
/** LE Supported Features octet 0 bit 5: LE Data Packet Length Extension. Bit 12 (extended advertising) stays clear. */
const LE_FEATURES = Buffer.from('2000000000000000', 'hex');
/** LMP features (Vol 2 Part C 3.3): LE Supported (Controller) and BR/EDR Not Supported, octet 4 bits 6 and 5. */
const LMP_FEATURES = Buffer.from('0000000060000000', 'hex');
/** Vol 4 Part E 6.27: octet and bit in the Supported Commands bitmap of each command this controller implements. */
const SUPPORTED_COMMAND_BITS: ReadonlyArray<[number, number]> = [
  [0, 5], [5, 6], [5, 7], [14, 3], [14, 5], [14, 7], [15, 1], [15, 5], [24, 5], [24, 6], [25, 0], [25, 1], [25, 2],
  [25, 4], [25, 5], [25, 6], [25, 7], [26, 0], [26, 1], [26, 2], [26, 3], [26, 4], [26, 5], [27, 2], [28, 2], [33, 6],
  [33, 7], [34, 0], [35, 3],
];

interface Connection {
  link: Link;
  handle: number;
  role: 'central' | 'peripheral';
}

export class VirtualController extends EventEmitter<ControllerEvents> implements Advertiser {
  readonly address: string;
  readonly aclBufferLength: number;
  readonly aclBufferCount: number;
  /** Every rule the host broke, in order. */
  readonly violations: string[] = [];
  /** How many host ACL packets the controller holds now, and the most it ever held. */
  aclInFlight = 0;
  aclInFlightPeak = 0;
  private parser = new H4Parser();
  private readonly connections = new Map<number, Connection>();
  private readonly inFlightByHandle = new Map<number, number>();
  private readonly completed = new Map<number, number>();
  private completedFlush = false;
  private nextHandle = 0x0040;
  private attached = true;
  private eventMask = DEFAULT_EVENT_MASK;
  private leEventMask = DEFAULT_LE_EVENT_MASK;
  private randomAddress: string | undefined;
  private adv: { type: number; ownAddressType: number; data: Buffer; scanResponse: Buffer; enabled: boolean } = { type: ADV_TYPE.ADV_IND, ownAddressType: 0, data: Buffer.alloc(0), scanResponse: Buffer.alloc(0), enabled: false };
  private scan = { active: false, enabled: false, filterDuplicates: false, seen: new Set<string>() };
  private pendingConnect: { peerAddress: string; peerAddressType: number; interval: number; latency: number; timeout: number } | undefined;
  private defaultTxOctets = MIN_DATA_OCTETS;

  constructor(
    private readonly air: VirtualAir,
    private readonly host: HostTransport,
    options: ControllerOptions = {},
  ) {
    super();
    this.address = options.address ?? air.allocateAddress();
    this.aclBufferLength = options.aclBufferLength ?? 251;
    this.aclBufferCount = options.aclBufferCount ?? 8;
    this.trace = options.trace;
    host.on('data', (chunk) => this.fromHost(chunk));
    air.join(this);
  }

  private readonly trace: ((line: string) => void) | undefined;

  /** The host is gone (its process died, its port closed): links drop, the controller goes quiet. */
  detach(): void {
    if (!this.attached) return;
    this.attached = false;
    this.clearState();
    this.air.leave(this);
  }

  /**
   * A detached controller answers again, as a hung dongle does once power-cycled: it rejoins the air with the state
   * of a fresh controller, and what the host wrote meanwhile is gone (a half packet from then would misframe the rest).
   */
  reattach(): void {
    if (this.attached) return;
    this.parser = new H4Parser();
    this.attached = true;
    this.air.join(this);
  }

  /** The adapter resets on its own (firmware crash, USB re-enumeration): links drop, the host sees Hardware Error. */
  hardwareError(code = 0x00): void {
    this.clearState();
    this.send(Buffer.of(0x04, EVT.HARDWARE_ERROR, 1, code));
  }

  /**
   * Bytes no controller sends (a firmware gone wrong, a wrong baud rate mid-stream): for tests of the host's
   * garbage handling. The controller's own state is left as it is.
   */
  garbage(data: Buffer = Buffer.of(0x7f, 0x00, 0xff)): void {
    this.send(data);
  }

  // --- Advertiser (what the air calls) ---

  advertising(): ReturnType<Advertiser['advertising']> {
    if (!this.attached || !this.adv.enabled) return undefined;
    return { addressType: this.adv.ownAddressType === 1 ? 1 : 0, type: this.adv.type, data: this.adv.data, scanResponse: this.adv.scanResponse };
  }

  /** The address this controller advertises and initiates from. */
  get ownAddress(): string {
    return this.adv.ownAddressType === 1 && this.randomAddress !== undefined ? this.randomAddress : this.address;
  }

  initiating(): ReturnType<Advertiser['initiating']> {
    return this.attached ? this.pendingConnect : undefined;
  }

  scanning(): ReturnType<Advertiser['scanning']> {
    return this.attached && this.scan.enabled ? { active: this.scan.active } : undefined;
  }

  hear(from: string, addressType: number, reportType: number, data: Buffer, rssi: number): void {
    if (this.scan.filterDuplicates) {
      const key = `${from}/${addressType}/${reportType}`;
      if (this.scan.seen.has(key)) return;
      this.scan.seen.add(key);
    }
    const p = Buffer.alloc(1 + 1 + 1 + 6 + 1 + data.length + 1);
    p.writeUInt8(1, 0);
    p.writeUInt8(reportType, 1);
    p.writeUInt8(addressType, 2);
    addressBytes(from).copy(p, 3);
    p.writeUInt8(data.length, 9);
    data.copy(p, 10);
    p.writeInt8(rssi, 10 + data.length);
    this.leEvent(LE_EVT.ADVERTISING_REPORT, 1, p);
  }

  allocateHandle(): number {
    // Handles are 12 bits; 0x0EFF is the largest a controller may assign (Vol 4 Part E 5.4.2).
    while (this.connections.has(this.nextHandle)) this.nextHandle = this.nextHandle >= 0x0eff ? 0x0040 : this.nextHandle + 1;
    const handle = this.nextHandle;
    this.nextHandle = handle >= 0x0eff ? 0x0040 : handle + 1;
    return handle;
  }

  connected(link: Link, role: 'central' | 'peripheral'): void {
    const me = link.end(this);
    const peer = link.other(this);
    this.connections.set(me.handle, { link, handle: me.handle, role });
    this.inFlightByHandle.set(me.handle, 0);
    me.wantTxOctets = this.defaultTxOctets;
    const peerController = peer.controller as VirtualController;
    if (role === 'central') this.pendingConnect = undefined;
    // A legacy advertiser stops once a connection is made from its advertising (Vol 6 Part B 4.4.2).
    else this.adv.enabled = false;
    const p = Buffer.alloc(18);
    p.writeUInt8(ERR.SUCCESS, 0);
    p.writeUInt16LE(me.handle, 1);
    p.writeUInt8(role === 'central' ? 0x00 : 0x01, 3);
    const peerType = role === 'central' ? (peerController.adv.ownAddressType === 1 ? 1 : 0) : 0;
    p.writeUInt8(peerType, 4);
    addressBytes(role === 'central' ? peerController.ownAddress : peerController.address).copy(p, 5);
    p.writeUInt16LE(link.interval, 11);
    p.writeUInt16LE(link.latency, 13);
    p.writeUInt16LE(link.timeout, 15);
    p.writeUInt8(0x00, 17);
    this.leEvent(LE_EVT.CONNECTION_COMPLETE, 0, p);
    if (me.wantTxOctets !== MIN_DATA_OCTETS) setImmediate(() => this.air.renegotiate(link));
  }

  deliverPdu(handle: number, llid: Llid, data: Buffer): void {
    if (!this.attached) return;
    this.send(aclPacket(handle, llid === 'start' ? PB.FIRST_FLUSHABLE : PB.CONTINUING, data));
  }

  linkClosed(handle: number, reason: number): void {
    if (!this.connections.delete(handle)) return;
    // The host forgets the packets it had in flight on a handle once it is disconnected (Vol 4 Part E 4.3).
    this.aclInFlight -= this.inFlightByHandle.get(handle) ?? 0;
    this.inFlightByHandle.delete(handle);
    this.completed.delete(handle);
    if (this.attached && this.eventMask & (1n << DISCONNECTION_COMPLETE_BIT)) this.send(disconnectionComplete(handle, reason));
  }

  dataLengthChanged(handle: number, txOctets: number, rxOctets: number): void {
    const p = Buffer.alloc(10);
    p.writeUInt16LE(handle, 0);
    p.writeUInt16LE(txOctets, 2);
    p.writeUInt16LE(pduTimeUs(txOctets), 4);
    p.writeUInt16LE(rxOctets, 6);
    p.writeUInt16LE(pduTimeUs(rxOctets), 8);
    this.leEvent(LE_EVT.DATA_LENGTH_CHANGE, 6, p);
  }

  connectionUpdated(handle: number, interval: number, latency: number, timeout: number): void {
    const p = Buffer.alloc(9);
    p.writeUInt8(ERR.SUCCESS, 0);
    p.writeUInt16LE(handle, 1);
    p.writeUInt16LE(interval, 3);
    p.writeUInt16LE(latency, 5);
    p.writeUInt16LE(timeout, 7);
    this.leEvent(LE_EVT.CONNECTION_UPDATE_COMPLETE, 2, p);
  }

  /** The handles of this controller's open connections. */
  get handles(): number[] {
    return [...this.connections.keys()];
  }

  // --- host side ---

  private fromHost(chunk: Buffer): void {
    if (!this.attached) return;
    let packets: HostPacket[];
    try {
      packets = this.parser.push(chunk);
    } catch (err) {
      this.violate((err as Error).message);
      return;
    }
    for (const packet of packets) {
      this.trace?.(`${this.address} > ${packet.raw.toString('hex')}`);
      if (packet.kind === 'command') this.command(packet.opcode, packet.params);
      else this.acl(packet.handle, packet.pb, packet.data);
    }
  }

  private send(data: Buffer): void {
    if (!this.attached) return;
    this.trace?.(`${this.address} < ${data.toString('hex')}`);
    this.host.write(data);
  }

  private violate(message: string): void {
    this.violations.push(message);
    this.emit('violation', message);
  }

  private leEvent(subevent: number, bit: number, params: Buffer): void {
    if (!(this.eventMask & (1n << LE_META_BIT)) || !(this.leEventMask & (1n << BigInt(bit)))) return;
    this.send(leMeta(subevent, params));
  }

  private complete(op: number, ...fields: Buffer[]): void {
    this.send(commandComplete(op, Buffer.concat([Buffer.of(ERR.SUCCESS), ...fields])));
  }

  private fail(op: number, status: number): void {
    this.send(commandComplete(op, Buffer.of(status)));
  }

  private clearState(): void {
    this.air.dropAll(this);
    this.connections.clear();
    this.inFlightByHandle.clear();
    this.completed.clear();
    this.aclInFlight = 0;
    this.eventMask = DEFAULT_EVENT_MASK;
    this.leEventMask = DEFAULT_LE_EVENT_MASK;
    this.randomAddress = undefined;
    this.adv = { type: ADV_TYPE.ADV_IND, ownAddressType: 0, data: Buffer.alloc(0), scanResponse: Buffer.alloc(0), enabled: false };
    this.scan = { active: false, enabled: false, filterDuplicates: false, seen: new Set() };
    this.pendingConnect = undefined;
    this.defaultTxOctets = MIN_DATA_OCTETS;
    this.air.stir();
  }

  private command(op: number, p: Buffer): void {
    this.emit('command', op, p);
    switch (op) {
      case OP.RESET:
        this.clearState();
        this.emit('reset');
        return this.complete(op);
      case OP.SET_EVENT_MASK:
        this.eventMask = p.readBigUInt64LE(0);
        return this.complete(op);
      case OP.LE_SET_EVENT_MASK:
        this.leEventMask = p.readBigUInt64LE(0);
        return this.complete(op);
      case OP.SET_EVENT_FILTER:
      case OP.WRITE_LE_HOST_SUPPORTED:
        return this.complete(op);
      case OP.READ_LE_HOST_SUPPORTED:
        return this.complete(op, Buffer.of(0x01, 0x00));
      case OP.READ_LOCAL_VERSION: {
        // HCI and LMP version 5.0 (0x09); manufacturer 0x05F1 (The Linux Foundation), as no real vendor's quirks apply.
        const v = Buffer.alloc(8);
        v.writeUInt8(0x09, 0);
        v.writeUInt16LE(0x0000, 1);
        v.writeUInt8(0x09, 3);
        v.writeUInt16LE(0x05f1, 4);
        v.writeUInt16LE(0x0000, 6);
        return this.complete(op, v);
      }
      case OP.READ_LOCAL_COMMANDS: {
        const bitmap = Buffer.alloc(64);
        for (const [octet, bit] of SUPPORTED_COMMAND_BITS) bitmap[octet] |= 1 << bit;
        return this.complete(op, bitmap);
      }
      case OP.READ_LOCAL_FEATURES:
        return this.complete(op, LMP_FEATURES);
      case OP.READ_BUFFER_SIZE: {
        // No BR/EDR: the LE buffers are reported by LE Read Buffer Size; this mirrors them as a real combo chip does.
        const b = Buffer.alloc(7);
        b.writeUInt16LE(this.aclBufferLength, 0);
        b.writeUInt8(0, 2);
        b.writeUInt16LE(this.aclBufferCount, 3);
        b.writeUInt16LE(0, 5);
        return this.complete(op, b);
      }
      case OP.READ_BD_ADDR:
        return this.complete(op, addressBytes(this.address));
      case OP.READ_RSSI: {
        const handle = p.readUInt16LE(0);
        const conn = this.connections.get(handle);
        if (conn === undefined) return this.send(commandComplete(op, Buffer.of(ERR.UNKNOWN_CONNECTION_ID, p[0], p[1], 0)));
        const r = Buffer.alloc(3);
        r.writeUInt16LE(handle, 0);
        r.writeInt8(-50, 2);
        return this.complete(op, r);
      }
      case OP.LE_READ_BUFFER_SIZE: {
        const b = Buffer.alloc(3);
        b.writeUInt16LE(this.aclBufferLength, 0);
        b.writeUInt8(this.aclBufferCount, 2);
        return this.complete(op, b);
      }
      case OP.LE_READ_LOCAL_FEATURES:
        return this.complete(op, LE_FEATURES);
      case OP.LE_SET_RANDOM_ADDRESS:
        this.randomAddress = addressString(p.subarray(0, 6));
        return this.complete(op);
      case OP.LE_SET_ADV_PARAMS: {
        if (this.adv.enabled) return this.fail(op, ERR.COMMAND_DISALLOWED);
        const type = p.readUInt8(4);
        if (type > ADV_TYPE.ADV_NONCONN_IND || type === ADV_TYPE.ADV_DIRECT_IND) return this.fail(op, ERR.INVALID_PARAMETERS);
        this.adv.type = type;
        this.adv.ownAddressType = p.readUInt8(5);
        return this.complete(op);
      }
      case OP.LE_READ_ADV_TX_POWER:
        return this.complete(op, Buffer.of(0x00));
      case OP.LE_SET_ADV_DATA:
        this.adv.data = Buffer.from(p.subarray(1, 1 + Math.min(p.readUInt8(0), 31)));
        return this.complete(op);
      case OP.LE_SET_SCAN_RSP_DATA:
        this.adv.scanResponse = Buffer.from(p.subarray(1, 1 + Math.min(p.readUInt8(0), 31)));
        return this.complete(op);
      case OP.LE_SET_ADV_ENABLE:
        this.adv.enabled = p.readUInt8(0) === 1;
        this.complete(op);
        this.air.stir();
        return;
      case OP.LE_SET_SCAN_PARAMS:
        if (this.scan.enabled) return this.fail(op, ERR.COMMAND_DISALLOWED);
        this.scan.active = p.readUInt8(0) === 1;
        return this.complete(op);
      case OP.LE_SET_SCAN_ENABLE: {
        const enable = p.readUInt8(0) === 1;
        if (enable && !this.scan.enabled) this.scan.seen = new Set();
        this.scan.enabled = enable;
        this.scan.filterDuplicates = p.readUInt8(1) === 1;
        this.complete(op);
        this.air.stir();
        return;
      }
      case OP.LE_CREATE_CONN: {
        if (this.pendingConnect !== undefined) return this.send(commandStatus(op, ERR.COMMAND_DISALLOWED));
        if (p.readUInt8(4) !== 0) return this.send(commandStatus(op, ERR.INVALID_PARAMETERS)); // no filter accept list
        const peerAddress = addressString(p.subarray(6, 12));
        const already = [...this.connections.values()].some((c) => c.link.other(this).controller.address === peerAddress);
        if (already) return this.send(commandStatus(op, ERR.CONNECTION_ALREADY_EXISTS));
        this.pendingConnect = {
          peerAddressType: p.readUInt8(5),
          peerAddress,
          interval: p.readUInt16LE(15),
          latency: p.readUInt16LE(17),
          timeout: p.readUInt16LE(19),
        };
        this.send(commandStatus(op, ERR.SUCCESS));
        this.air.stir();
        return;
      }
      case OP.LE_CREATE_CONN_CANCEL: {
        const pending = this.pendingConnect;
        if (pending === undefined) return this.fail(op, ERR.COMMAND_DISALLOWED);
        this.pendingConnect = undefined;
        this.complete(op);
        const c = Buffer.alloc(18);
        c.writeUInt8(ERR.UNKNOWN_CONNECTION_ID, 0);
        c.writeUInt8(pending.peerAddressType, 4);
        addressBytes(pending.peerAddress).copy(c, 5);
        this.leEvent(LE_EVT.CONNECTION_COMPLETE, 0, c);
        this.air.stir();
        return;
      }
      case OP.LE_CONN_UPDATE: {
        const conn = this.connections.get(p.readUInt16LE(0) & 0x0fff);
        if (conn === undefined) return this.send(commandStatus(op, ERR.UNKNOWN_CONNECTION_ID));
        this.send(commandStatus(op, ERR.SUCCESS));
        const [interval, latency, timeout] = [p.readUInt16LE(4), p.readUInt16LE(6), p.readUInt16LE(8)];
        setImmediate(() => {
          if (conn.link.open) this.air.update(conn.link, interval, latency, timeout);
        });
        return;
      }
      case OP.LE_LTK_NEG_REPLY:
        return this.complete(op, p.subarray(0, 2));
      case OP.LE_SET_DATA_LENGTH: {
        const handle = p.readUInt16LE(0) & 0x0fff;
        const conn = this.connections.get(handle);
        if (conn === undefined) return this.send(commandComplete(op, Buffer.of(ERR.UNKNOWN_CONNECTION_ID, p[0], p[1])));
        const tx = p.readUInt16LE(2);
        if (tx < MIN_DATA_OCTETS || tx > MAX_DATA_OCTETS) return this.send(commandComplete(op, Buffer.of(ERR.INVALID_PARAMETERS, p[0], p[1])));
        conn.link.end(this).wantTxOctets = tx;
        this.complete(op, p.subarray(0, 2));
        setImmediate(() => {
          if (conn.link.open) this.air.renegotiate(conn.link);
        });
        return;
      }
      case OP.LE_READ_DEFAULT_DATA_LENGTH: {
        const d = Buffer.alloc(4);
        d.writeUInt16LE(this.defaultTxOctets, 0);
        d.writeUInt16LE(pduTimeUs(this.defaultTxOctets), 2);
        return this.complete(op, d);
      }
      case OP.LE_WRITE_DEFAULT_DATA_LENGTH: {
        const tx = p.readUInt16LE(0);
        if (tx < MIN_DATA_OCTETS || tx > MAX_DATA_OCTETS) return this.fail(op, ERR.INVALID_PARAMETERS);
        this.defaultTxOctets = tx;
        return this.complete(op);
      }
      case OP.LE_READ_MAX_DATA_LENGTH: {
        const m = Buffer.alloc(8);
        m.writeUInt16LE(MAX_DATA_OCTETS, 0);
        m.writeUInt16LE(pduTimeUs(MAX_DATA_OCTETS), 2);
        m.writeUInt16LE(MAX_DATA_OCTETS, 4);
        m.writeUInt16LE(pduTimeUs(MAX_DATA_OCTETS), 6);
        return this.complete(op, m);
      }
      case OP.DISCONNECT: {
        const handle = p.readUInt16LE(0) & 0x0fff;
        const conn = this.connections.get(handle);
        if (conn === undefined) return this.send(commandStatus(op, ERR.UNKNOWN_CONNECTION_ID));
        this.send(commandStatus(op, ERR.SUCCESS));
        const reason = p.readUInt8(2);
        setImmediate(() => this.air.terminate(conn.link, this, reason));
        return;
      }
      default:
        // Vol 4 Part E 4.5: an unknown opcode is answered, with status Unknown HCI Command.
        return this.fail(op, ERR.UNKNOWN_COMMAND);
    }
  }

  private acl(handle: number, pb: number, data: Buffer): void {
    if (data.length > this.aclBufferLength) {
      this.violate(`ACL packet of ${data.length} bytes on handle 0x${handle.toString(16)} exceeds the ${this.aclBufferLength}-byte buffers reported`);
      return;
    }
    if (this.aclInFlight >= this.aclBufferCount) {
      this.violate(`ACL packet on handle 0x${handle.toString(16)} while all ${this.aclBufferCount} buffers are in use (Number Of Completed Packets not awaited)`);
      return;
    }
    const conn = this.connections.get(handle);
    if (conn === undefined) return; // a packet racing its link's Disconnection Complete: dropped, as a controller does
    if (pb !== PB.FIRST_NON_FLUSHABLE && pb !== PB.FIRST_FLUSHABLE && pb !== PB.CONTINUING) {
      this.violate(`ACL packet with boundary flag 0b11 on handle 0x${handle.toString(16)}`);
      return;
    }
    this.aclInFlight++;
    this.aclInFlightPeak = Math.max(this.aclInFlightPeak, this.aclInFlight);
    this.inFlightByHandle.set(handle, (this.inFlightByHandle.get(handle) ?? 0) + 1);
    const pdus = Link.segment(data, pb === PB.CONTINUING ? 'continue' : 'start', conn.link.octetsFrom(this));
    this.air.transmit(conn.link, this, pdus, () => this.packetSent(handle));
  }

  /** One host packet left the controller's buffers: count it for the next Number Of Completed Packets event. */
  private packetSent(handle: number): void {
    if (!this.connections.has(handle)) return;
    this.aclInFlight--;
    this.inFlightByHandle.set(handle, (this.inFlightByHandle.get(handle) ?? 1) - 1);
    this.completed.set(handle, (this.completed.get(handle) ?? 0) + 1);
    if (this.completedFlush) return;
    this.completedFlush = true;
    setImmediate(() => {
      this.completedFlush = false;
      if (this.completed.size === 0) return;
      const counts = new Map(this.completed);
      this.completed.clear();
      this.send(numberOfCompletedPackets(counts));
    });
  }
}
