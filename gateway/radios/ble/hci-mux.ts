/**
 * One HCI controller, two host stacks: noble (the central) and bleno (the GATT server) each believe they own the
 * controller, and on a raw HCI socket the kernel makes that true. A UART port or a user-channel socket opens once
 * and has no kernel behind it, so this class does the kernel's share:
 *
 * - Commands from both stacks go out one at a time as the controller grants command credits, and each Command
 *   Complete / Command Status goes back to the stack that sent that opcode first (by opcode, in order).
 * - The controller is reset once, by the multiplexer; a stack's later Reset is answered here, so bleno's
 *   advertising and a phone's link survive noble resetting itself before a connection. A Hardware Error is the
 *   one thing that resets it again.
 * - Reads only a Reset could change (version, address, buffer sizes, features) are asked once and answered from
 *   the first reply.
 * - Set Event Mask and LE Set Event Mask send the union of both stacks' masks: neither loses an event it asked for.
 * - LE connection events go to the stack of their role (central or peripheral); everything of a connection after
 *   that (ACL data, Number Of Completed Packets, Disconnection Complete, encryption, LE updates) goes by handle;
 *   advertising reports go to the central, scan requests and advertising-set terminations to the peripheral.
 * - Each stack counts the controller's ACL buffers as if it had them all; the multiplexer holds ACL packets back so
 *   that both together never have more in flight than the controller has buffers.
 *
 * Pure logic over whole H4 packets (the indicator byte first); the transport and the stacks' sockets are elsewhere
 * (hci-transport.ts, hci-endpoint.ts). Malformed controller packets are dropped and reported through `onFault`.
 */
import {
  aclHandle,
  CACHED_READS,
  command,
  commandComplete,
  commandOpcode,
  completedPackets,
  EVT,
  H4_ACL,
  H4_COMMAND,
  H4_EVENT,
  handleAt,
  LE_SUB,
  OP,
  STATUS_ADVERTISING_TIMEOUT,
} from './hci-packets';

export type HciRole = 'central' | 'peripheral';
export type HciTraceStep = 'from-stack' | 'from-controller' | 'to-controller' | 'to-stack';
export const HCI_ROLES: readonly HciRole[] = ['central', 'peripheral'];

type Owner = HciRole | 'mux';

/** What the controller said about itself during the multiplexer's own initialisation (for `--check` and logs). */
export interface ControllerInfo {
  hciVersion: number;
  hciRevision: number;
  lmpVersion: number;
  manufacturer: number;
  /** BD_ADDR as `aa:bb:cc:dd:ee:ff`. */
  address: string;
  aclBuffers: { length: number; count: number };
}

export interface HciMuxOptions {
  /** Writes one whole H4 packet to the controller. */
  write(packet: Buffer): void;
  /** A controller packet that could not be parsed or routed in a way that means the controller is not sane. */
  onFault?(reason: string): void;
  /** Ready went true (controller reset and read) or false (Hardware Error, reset in progress). */
  onReady?(ready: boolean): void;
  /** Every packet in and out, for recordings: what a stack wrote, what the controller sent, what went to each. */
  trace?(step: HciTraceStep, role: HciRole | undefined, packet: Buffer): void;
}

/** Counters for tests, logs and the radio's status. */
export interface HciMuxCounters {
  commandsSent: number;
  answeredLocally: number;
  strayCompletes: number;
  aclDroppedUnknownHandle: number;
  malformed: number;
}

const MUX_INIT_READS = [OP.READ_LOCAL_VERSION, OP.READ_BD_ADDR, OP.READ_BUFFER_SIZE, OP.LE_READ_BUFFER_SIZE] as const;

export class HciMux {
  readonly #opts: HciMuxOptions;
  readonly #sinks = new Map<HciRole, (packet: Buffer) => void>();
  #credits = 1;
  readonly #commandQueue: Array<{ owner: Owner; opcode: number; packet: Buffer }> = [];
  /** Senders of commands in flight, per opcode, oldest first. */
  readonly #pending = new Map<number, Owner[]>();
  #reset: 'needed' | 'inFlight' | 'done' = 'needed';
  readonly #resetWaiters: HciRole[] = [];
  /** Return parameters of cached reads (status first). */
  readonly #cache = new Map<number, Buffer>();
  /** Stacks waiting for a cached read that is in flight. */
  readonly #readWaiters = new Map<number, Owner[]>();
  readonly #masks = { event: new Map<HciRole, Buffer>(), le: new Map<HciRole, Buffer>() };
  readonly #handles = new Map<number, HciRole>();
  #aclCredits = 0;
  #aclKnown = false;
  readonly #aclQueue: Array<{ handle: number; packet: Buffer }> = [];
  readonly #aclInFlight = new Map<number, number>();
  #ready = false;
  #initLeft = 0;
  readonly #inbox: Array<{ role: HciRole | undefined; packet: Buffer }> = [];
  #draining = false;
  #answers = 0;
  readonly counters: HciMuxCounters = { commandsSent: 0, answeredLocally: 0, strayCompletes: 0, aclDroppedUnknownHandle: 0, malformed: 0 };

  constructor(options: HciMuxOptions) {
    this.#opts = options;
  }

  get ready(): boolean {
    return this.#ready;
  }

  /**
   * For a watchdog: how many command answers came so far, and how many commands are with the controller or
   * queued for it. Answers that stop growing while commands wait mean the controller went silent.
   */
  liveness(): { answers: number; outstanding: number } {
    let pending = 0;
    for (const owners of this.#pending.values()) pending += owners.length;
    return { answers: this.#answers, outstanding: pending + this.#commandQueue.length };
  }

  /** Asks the controller something harmless (Read Local Version), so that silence shows when no stack is talking. */
  ping(): void {
    if (this.#reset !== 'done' || this.#readWaiters.has(OP.READ_LOCAL_VERSION)) return;
    this.#enqueue('mux', OP.READ_LOCAL_VERSION, command(OP.READ_LOCAL_VERSION));
  }

  /** The connection handles open now and whose they are. */
  get handles(): ReadonlyMap<number, HciRole> {
    return this.#handles;
  }

  /** What the controller reported at the last reset; undefined before the first one finished. */
  get info(): ControllerInfo | undefined {
    const version = this.#cache.get(OP.READ_LOCAL_VERSION);
    const addr = this.#cache.get(OP.READ_BD_ADDR);
    if (version === undefined || version.length < 9 || addr === undefined || addr.length < 7) return undefined;
    const address = [...addr.subarray(1, 7)].reverse().map((b) => b.toString(16).padStart(2, '0')).join(':');
    return {
      hciVersion: version[1],
      hciRevision: version.readUInt16LE(2),
      lmpVersion: version[4],
      manufacturer: version.readUInt16LE(5),
      address,
      aclBuffers: { length: this.#aclLength(), count: this.#aclCount() },
    };
  }

  /** Resets the controller and reads what the multiplexer needs; `onReady(true)` when done. */
  start(): void {
    if (this.#reset === 'inFlight') return;
    this.#beginReset();
  }

  /** Where packets for `role` go; replaces an earlier sink. Events for a role with no sink are dropped. */
  attach(role: HciRole, sink: (packet: Buffer) => void): void {
    this.#sinks.set(role, sink);
  }

  detach(role: HciRole): void {
    this.#sinks.delete(role);
  }

  /** A packet a stack wrote. */
  send(role: HciRole, packet: Buffer): void {
    if (packet.length === 0) return;
    // A stack writes its next command from inside the handler of the last answer; taking it after the packet being
    // routed keeps every route decision whole and the order the same however the stacks are scheduled.
    this.#inbox.push({ role, packet });
    this.#drain();
  }

  #drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    try {
      for (let next = this.#inbox.shift(); next !== undefined; next = this.#inbox.shift()) {
        if (next.role === undefined) this.#fromController(next.packet);
        else this.#fromStack(next.role, next.packet);
      }
    } finally {
      this.#draining = false;
    }
  }

  #fromStack(role: HciRole, packet: Buffer): void {
    this.#opts.trace?.('from-stack', role, packet);
    if (packet[0] === H4_COMMAND) this.#fromStackCommand(role, packet);
    else if (packet[0] === H4_ACL) this.#fromStackAcl(role, packet);
    // SCO and ISO: neither stack sends them.
  }

  /** A whole packet the controller sent. */
  receive(packet: Buffer): void {
    if (packet.length < 1) return;
    this.#inbox.push({ role: undefined, packet });
    this.#drain();
  }

  #fromController(packet: Buffer): void {
    this.#opts.trace?.('from-controller', undefined, packet);
    if (packet[0] === H4_EVENT) {
      if (packet.length < 3 || packet.length !== 3 + packet[2]) return this.#malformed(`event of ${packet.length} bytes with length field ${packet[2]}`);
      this.#event(packet);
    } else if (packet[0] === H4_ACL) {
      const handle = aclHandle(packet);
      if (handle === undefined) return this.#malformed(`ACL packet of ${packet.length} bytes`);
      const role = this.#handles.get(handle);
      if (role === undefined) this.counters.aclDroppedUnknownHandle++;
      else this.#deliver(role, packet);
    } else {
      this.#malformed(`packet indicator 0x${packet[0].toString(16)}`);
    }
  }

  // --- commands -------------------------------------------------------------------------------------------------

  #fromStackCommand(role: HciRole, packet: Buffer): void {
    const opcode = commandOpcode(packet);
    if (opcode === undefined) return;
    if (opcode === OP.RESET) return this.#stackReset(role);
    if (CACHED_READS.has(opcode)) return this.#cachedRead(role, opcode, packet);
    if (opcode === OP.SET_EVENT_MASK || opcode === OP.LE_SET_EVENT_MASK) return this.#setMask(role, opcode, packet);
    this.#enqueue(role, opcode, packet);
  }

  #stackReset(role: HciRole): void {
    if (this.#reset === 'done') return this.#answer(role, OP.RESET, Buffer.of(0));
    this.#resetWaiters.push(role);
    if (this.#reset === 'needed') this.#beginReset();
  }

  #beginReset(): void {
    this.#reset = 'inFlight';
    this.#setReady(false);
    // Whatever was queued was meant for the controller as it was; the stacks re-send after their own Reset.
    this.#commandQueue.length = 0;
    this.#aclQueue.length = 0;
    this.#enqueue('mux', OP.RESET, command(OP.RESET));
  }

  #cachedRead(owner: Owner, opcode: number, packet: Buffer): void {
    const cached = this.#cache.get(opcode);
    if (cached !== undefined && owner !== 'mux') return this.#answer(owner, opcode, cached);
    const waiters = this.#readWaiters.get(opcode);
    if (waiters !== undefined) {
      waiters.push(owner);
      return;
    }
    this.#readWaiters.set(opcode, [owner]);
    this.#enqueue('pass', opcode, packet);
  }

  #setMask(role: HciRole, opcode: number, packet: Buffer): void {
    if (packet.length !== 12) return this.#enqueue(role, opcode, packet);
    const masks = opcode === OP.SET_EVENT_MASK ? this.#masks.event : this.#masks.le;
    masks.set(role, Buffer.from(packet.subarray(4, 12)));
    const merged = Buffer.alloc(8);
    for (const mask of masks.values()) for (let i = 0; i < 8; i++) merged[i] |= mask[i];
    this.#enqueue(role, opcode, command(opcode, merged));
  }

  /** `owner` 'pass' marks a cached read: its answer goes to the read's waiters. */
  #enqueue(owner: Owner | 'pass', opcode: number, packet: Buffer): void {
    this.#commandQueue.push({ owner: owner === 'pass' ? 'mux' : owner, opcode, packet });
    this.#pumpCommands();
  }

  #pumpCommands(): void {
    while (this.#credits > 0 && this.#commandQueue.length > 0) {
      const next = this.#commandQueue.shift();
      if (next === undefined) break;
      this.#credits--;
      const list = this.#pending.get(next.opcode) ?? [];
      list.push(next.owner);
      this.#pending.set(next.opcode, list);
      this.counters.commandsSent++;
      this.#toController(next.packet);
    }
  }

  #answer(role: HciRole, opcode: number, returnParams: Buffer): void {
    this.counters.answeredLocally++;
    this.#deliver(role, commandComplete(opcode, returnParams));
  }

  #commandDone(opcode: number, credits: number, packet: Buffer, returnParams: Buffer | undefined): void {
    this.#credits = credits;
    this.#answers++;
    if (opcode !== 0) {
      const owners = this.#pending.get(opcode);
      const owner = owners?.shift();
      if (owners !== undefined && owners.length === 0) this.#pending.delete(opcode);
      if (owner === undefined) this.counters.strayCompletes++;
      else if (owner !== 'mux') this.#deliver(owner, packet);
      else this.#muxCommandDone(opcode, packet, returnParams);
    }
    this.#pumpCommands();
    this.#pumpAcl();
  }

  #muxCommandDone(opcode: number, packet: Buffer, returnParams: Buffer | undefined): void {
    if (opcode === OP.RESET) return this.#resetDone(returnParams);
    const waiters = this.#readWaiters.get(opcode) ?? [];
    this.#readWaiters.delete(opcode);
    if (returnParams !== undefined && returnParams[0] === 0) this.#cache.set(opcode, Buffer.from(returnParams));
    for (const waiter of waiters) {
      if (waiter === 'mux') this.#initStep();
      else this.#deliver(waiter, packet);
    }
  }

  #resetDone(returnParams: Buffer | undefined): void {
    if (returnParams === undefined || returnParams[0] !== 0) {
      this.#opts.onFault?.(`the controller refused HCI Reset (status 0x${(returnParams?.[0] ?? 0xff).toString(16)})`);
      this.#reset = 'needed';
      return;
    }
    this.#cache.clear();
    this.#masks.event.clear();
    this.#masks.le.clear();
    this.#handles.clear();
    this.#aclInFlight.clear();
    this.#aclKnown = false;
    this.#initLeft = MUX_INIT_READS.length;
    for (const opcode of MUX_INIT_READS) this.#cachedRead('mux', opcode, command(opcode));
  }

  #initStep(): void {
    this.#initLeft--;
    if (this.#initLeft > 0) return;
    if (!this.#cache.has(OP.READ_LOCAL_VERSION) || !this.#cache.has(OP.READ_BD_ADDR) || !this.#cache.has(OP.READ_BUFFER_SIZE)) {
      this.#opts.onFault?.('the controller did not answer its identity and buffer reads after HCI Reset');
      this.#reset = 'needed';
      return;
    }
    this.#aclCredits = this.#aclCount();
    this.#aclKnown = true;
    this.#reset = 'done';
    const waiters = this.#resetWaiters.splice(0);
    for (const role of waiters) this.#answer(role, OP.RESET, Buffer.of(0));
    this.#setReady(true);
    this.#pumpAcl();
  }

  #aclLength(): number {
    const le = this.#cache.get(OP.LE_READ_BUFFER_SIZE);
    if (le !== undefined && le.length >= 4 && le[3] > 0) return le.readUInt16LE(1);
    const br = this.#cache.get(OP.READ_BUFFER_SIZE);
    return br !== undefined && br.length >= 8 ? br.readUInt16LE(1) : 27;
  }

  #aclCount(): number {
    const le = this.#cache.get(OP.LE_READ_BUFFER_SIZE);
    if (le !== undefined && le.length >= 4 && le[3] > 0) return le[3];
    const br = this.#cache.get(OP.READ_BUFFER_SIZE);
    return br !== undefined && br.length >= 8 ? Math.max(1, br.readUInt16LE(4)) : 1;
  }

  #setReady(ready: boolean): void {
    if (this.#ready === ready) return;
    this.#ready = ready;
    this.#opts.onReady?.(ready);
  }

  // --- ACL ------------------------------------------------------------------------------------------------------

  #fromStackAcl(role: HciRole, packet: Buffer): void {
    const handle = aclHandle(packet);
    if (handle === undefined || this.#handles.get(handle) !== role) return;
    this.#aclQueue.push({ handle, packet });
    this.#pumpAcl();
  }

  #pumpAcl(): void {
    while (this.#aclKnown && this.#aclCredits > 0 && this.#aclQueue.length > 0) {
      const next = this.#aclQueue.shift();
      if (next === undefined) break;
      if (!this.#handles.has(next.handle)) continue;
      this.#aclCredits--;
      this.#aclInFlight.set(next.handle, (this.#aclInFlight.get(next.handle) ?? 0) + 1);
      this.#toController(next.packet);
    }
  }

  /** A connection ended: the controller flushed its packets, so their buffers are free again. */
  #connectionGone(handle: number): void {
    this.#handles.delete(handle);
    this.#aclCredits += this.#aclInFlight.get(handle) ?? 0;
    this.#aclInFlight.delete(handle);
    for (let i = this.#aclQueue.length - 1; i >= 0; i--) if (this.#aclQueue[i].handle === handle) this.#aclQueue.splice(i, 1);
    this.#pumpAcl();
  }

  // --- events ---------------------------------------------------------------------------------------------------

  #event(packet: Buffer): void {
    const code = packet[1];
    switch (code) {
      case EVT.COMMAND_COMPLETE:
        if (packet.length < 6) return this.#malformed('short Command Complete');
        return this.#commandDone(packet.readUInt16LE(4), packet[3], packet, packet.subarray(6));
      case EVT.COMMAND_STATUS:
        if (packet.length < 7) return this.#malformed('short Command Status');
        return this.#commandDone(packet.readUInt16LE(5), packet[4], packet, packet[3] === 0 ? undefined : packet.subarray(3, 4));
      case EVT.NUMBER_OF_COMPLETED_PACKETS:
        return this.#completedPackets(packet);
      case EVT.DISCONNECTION_COMPLETE: {
        const handle = handleAt(packet, 4);
        if (handle === undefined) return this.#malformed('short Disconnection Complete');
        this.#byHandle(handle, packet);
        if (packet[3] === 0) this.#connectionGone(handle);
        return;
      }
      case EVT.ENCRYPTION_CHANGE:
      case EVT.ENCRYPTION_KEY_REFRESH:
      case EVT.READ_REMOTE_FEATURES_COMPLETE:
      case EVT.READ_REMOTE_VERSION_COMPLETE: {
        const handle = handleAt(packet, 4);
        if (handle === undefined) return this.#malformed(`short event 0x${code.toString(16)}`);
        return this.#byHandle(handle, packet);
      }
      case EVT.HARDWARE_ERROR:
        this.#broadcast(packet);
        // The controller lost its state; so does every stack. Reset it once for both.
        this.#reset = 'needed';
        return this.#beginReset();
      case EVT.LE_META:
        if (packet.length < 4) return this.#malformed('LE Meta event without a subevent');
        return this.#leMeta(packet);
      default:
        return this.#broadcast(packet);
    }
  }

  #leMeta(packet: Buffer): void {
    const sub = packet[3];
    switch (sub) {
      case LE_SUB.CONNECTION_COMPLETE:
      case LE_SUB.ENHANCED_CONNECTION_COMPLETE:
      case LE_SUB.ENHANCED_CONNECTION_COMPLETE_V2: {
        if (packet.length < 8) return this.#malformed('short LE Connection Complete');
        const status = packet[4];
        const handle = packet.readUInt16LE(5) & 0x0fff;
        const role: HciRole = status === STATUS_ADVERTISING_TIMEOUT || packet[7] === 0x01 ? 'peripheral' : 'central';
        if (status === 0) this.#handles.set(handle, role);
        return this.#deliver(role, packet);
      }
      case LE_SUB.ADVERTISING_REPORT:
      case LE_SUB.DIRECTED_ADVERTISING_REPORT:
      case LE_SUB.EXTENDED_ADVERTISING_REPORT:
      case LE_SUB.SCAN_TIMEOUT:
        return this.#deliver('central', packet);
      case LE_SUB.ADVERTISING_SET_TERMINATED:
      case LE_SUB.SCAN_REQUEST_RECEIVED:
        return this.#deliver('peripheral', packet);
      case LE_SUB.CONNECTION_UPDATE_COMPLETE:
      case LE_SUB.READ_REMOTE_FEATURES_COMPLETE:
      case LE_SUB.PHY_UPDATE_COMPLETE: {
        const handle = handleAt(packet, 5);
        if (handle === undefined) return this.#malformed(`short LE subevent 0x${sub.toString(16)}`);
        return this.#byHandle(handle, packet);
      }
      case LE_SUB.LTK_REQUEST:
      case LE_SUB.REMOTE_CONNECTION_PARAMETER_REQUEST:
      case LE_SUB.DATA_LENGTH_CHANGE:
      case LE_SUB.CHANNEL_SELECTION_ALGORITHM: {
        const handle = handleAt(packet, 4);
        if (handle === undefined) return this.#malformed(`short LE subevent 0x${sub.toString(16)}`);
        return this.#byHandle(handle, packet);
      }
      default:
        return this.#broadcast(packet);
    }
  }

  #completedPackets(packet: Buffer): void {
    const count = packet.length >= 4 ? packet[3] : -1;
    if (count < 0 || packet.length < 4 + count * 4) return this.#malformed('short Number Of Completed Packets');
    const perRole = new Map<HciRole, Array<[number, number]>>();
    for (let i = 0; i < count; i++) {
      const handle = packet.readUInt16LE(4 + i * 4) & 0x0fff;
      const done = packet.readUInt16LE(6 + i * 4);
      const inFlight = this.#aclInFlight.get(handle) ?? 0;
      const freed = Math.min(done, inFlight);
      this.#aclCredits += freed;
      if (inFlight - freed > 0) this.#aclInFlight.set(handle, inFlight - freed);
      else this.#aclInFlight.delete(handle);
      const role = this.#handles.get(handle);
      if (role === undefined) continue;
      const list = perRole.get(role) ?? [];
      list.push([handle, done]);
      perRole.set(role, list);
    }
    for (const [role, pairs] of perRole) this.#deliver(role, completedPackets(pairs));
    this.#pumpAcl();
  }

  #byHandle(handle: number, packet: Buffer): void {
    const role = this.#handles.get(handle);
    if (role === undefined) this.#broadcast(packet);
    else this.#deliver(role, packet);
  }

  #broadcast(packet: Buffer): void {
    for (const role of HCI_ROLES) this.#deliver(role, packet);
  }

  #deliver(role: HciRole, packet: Buffer): void {
    const sink = this.#sinks.get(role);
    if (sink === undefined) return;
    this.#opts.trace?.('to-stack', role, packet);
    sink(packet);
  }

  #toController(packet: Buffer): void {
    this.#opts.trace?.('to-controller', undefined, packet);
    this.#opts.write(packet);
  }

  #malformed(reason: string): void {
    this.counters.malformed++;
    this.#opts.onFault?.(`malformed HCI packet from the controller: ${reason}`);
  }
}
