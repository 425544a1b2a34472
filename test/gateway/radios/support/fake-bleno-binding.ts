/**
 * A fake bleno *binding*: the layer under bleno's `Bleno` class that `lib/hci-socket/bindings.js` (with its GATT
 * server `lib/hci-socket/gatt.js`) fills on a Pi.
 *
 * Tests build the real `Bleno` class over it (`new Bleno(binding)` from `@stoprocent/bleno/lib/bleno`), and the
 * radio builds its service from that instance's own `PrimaryService` and `Characteristic` classes, so everything
 * above the binding is bleno's code. The fake reproduces what the HCI binding does and emits, argument for argument:
 * - `init()` is called when the first `stateChange` listener is added; it installs the binding's SIGINT handler and
 *   reports `platform`, `addressChange` and `stateChange` asynchronously;
 * - `setServices` lays the attributes out as the HCI server does (GAP 1800 and GATT 1801 first; property bits
 *   read 0x02, write without response 0x04, write 0x08, notify 0x10, indicate 0x20; a CCCD 0x2902 on every
 *   characteristic that notifies or indicates) and emits `servicesSet` at once;
 * - `startAdvertisingWithEIRData` refuses data over 31 bytes and answers `advertisingStart` after the controller
 *   would; `stopAdvertising` answers `advertisingStop`;
 * - every central connection emits `accept(address, handle)`; a disconnection first unsubscribes the subscribed
 *   characteristics (`unsubscribe(handle)`, as `onAclStreamEnd` does), then emits `disconnect(address, handle)`;
 * - an MTU request is answered with min(requested, `_gatt.maxMtu`) (256 in the HCI server) and emits
 *   `mtuChange(mtu)` without the connection, as the HCI binding does;
 * - reads emit `readRequest(handle, offset, callback)` and cut the answer to ATT_MTU − 1; writes check the property
 *   bit and emit `writeRequest(handle, data, 0, withoutResponse, callback)`; a CCCD write of 2 bytes with bit 0 or 1
 *   set emits `subscribe(handle, ATT_MTU − 3, updateValue)`, a zero write `unsubscribe(handle)`;
 * - `updateValue(data)` cuts to ATT_MTU − 3 and notifies when the characteristic lists notify, else indicates
 *   (the property list is read at send time, as the HCI server does); a notification emits `notify(handle)` at
 *   once, an indication emits `indicate(handle)` when the central confirms it; on a gone connection it throws.
 * Fields the radio reaches into on the real binding are modelled by name: `_gatt.maxMtu`, `_sigIntHandler`,
 * `_hci.setAdvertisingParameters`.
 */
import { EventEmitter } from 'node:events';
import { encodeFragments, FragmentReassembler, fragmentSizeForMtu } from '../../../../lib/mesh/ble-fragment';
import type { BlenoLike } from '../../../../gateway/radios/ble/ble-bleno';

export const SERVICE = '6e400001b5a3f393e0a9e50e24dcca9e';
export const MESSAGE = '6e400002b5a3f393e0a9e50e24dcca9e';
export const DEVICE_ID = '6e400003b5a3f393e0a9e50e24dcca9e';
export const IDENTITY = '6e400004b5a3f393e0a9e50e24dcca9e';

/** ATT error codes of the HCI server. */
export const ATT = Object.freeze({ SUCCESS: 0x00, READ_NOT_PERM: 0x02, WRITE_NOT_PERM: 0x03, INVALID_OFFSET: 0x07, INVAL_ATTR_VALUE_LEN: 0x0d, UNLIKELY: 0x0e });

const PROPERTY_BITS: Record<string, number> = { read: 0x02, writeWithoutResponse: 0x04, write: 0x08, notify: 0x10, indicate: 0x20 };

/** A characteristic object as bleno builds it: an emitter with uuid, properties and an optional static value. */
interface BlenoCharacteristicObject extends EventEmitter {
  uuid: string;
  properties: string[];
  value: Buffer | null;
}

interface Attribute {
  serviceUuid: string;
  uuid: string;
  /** The property bits of the characteristic declaration, fixed when the services were set. */
  bits: number;
  hasCccd: boolean;
  characteristic: BlenoCharacteristicObject;
}

export interface DiscoveredCharacteristic {
  uuid: string;
  properties: string[];
  hasCccd: boolean;
}

export interface Received {
  kind: 'notify' | 'indicate';
  bytes: Uint8Array;
  at: number;
}

/** One central (a phone) connected to the fake adapter: drives the GATT server as an ATT client would. */
export class FakeCentral {
  readonly handle: number;
  readonly address: string;
  mtu = 23;
  connected = true;
  /** Confirm every indication on the next turn (a phone does so at once). */
  autoConfirm = true;
  /** Notifications and indications received, in order, with the test clock's time. */
  readonly received: Received[] = [];
  /** Whole frames reassembled from them. */
  readonly frames: Uint8Array[] = [];
  readonly reassembler = new FragmentReassembler();
  readonly #binding: FakeBlenoBinding;
  readonly #cccd = new Map<string, number>();
  #unconfirmed: Attribute | undefined;

  constructor(binding: FakeBlenoBinding, handle: number, address: string) {
    this.#binding = binding;
    this.handle = handle;
    this.address = address;
  }

  /** ATT Exchange MTU. Returns the MTU both sides use. */
  exchangeMtu(requested: number): number {
    this.mtu = Math.max(23, Math.min(requested, this.#binding._gatt.maxMtu));
    this.#binding.emit('mtuChange', this.mtu);
    return this.mtu;
  }

  /** The primary services and the mesh service's characteristics, as a discovery would find them. */
  discover(): { services: string[]; characteristics: DiscoveredCharacteristic[] } {
    const attributes = this.#binding.attributes;
    return {
      services: [...new Set(attributes.map((a) => a.serviceUuid))],
      characteristics: attributes
        .filter((a) => a.serviceUuid === SERVICE)
        .map((a) => ({ uuid: a.uuid, properties: Object.keys(PROPERTY_BITS).filter((p) => (a.bits & PROPERTY_BITS[p]) !== 0), hasCccd: a.hasCccd })),
    };
  }

  /** ATT Read (offset 0) or Read Blob. */
  read(uuid: string, offset = 0): Promise<{ result: number; data: Uint8Array }> {
    const attribute = this.#attribute(uuid);
    return new Promise((resolve) => {
      if ((attribute.bits & PROPERTY_BITS.read) === 0) {
        resolve({ result: ATT.READ_NOT_PERM, data: new Uint8Array(0) });
        return;
      }
      const answer = (result: number, data?: Buffer | null): void => {
        if (result !== ATT.SUCCESS || !data) resolve({ result, data: new Uint8Array(0) });
        else resolve({ result, data: new Uint8Array(data.subarray(0, this.mtu - 1)) });
      };
      const value = attribute.characteristic.value;
      if (value) {
        if (offset > value.length) answer(ATT.INVALID_OFFSET);
        else answer(ATT.SUCCESS, value.subarray(offset));
        return;
      }
      attribute.characteristic.emit('readRequest', this.handle, offset, answer);
    });
  }

  /** A long read as an ATT client runs it: Read, then Read Blob while the answers come back full. */
  async readLong(uuid: string): Promise<{ result: number; data: Uint8Array; reads: number }> {
    const parts: Uint8Array[] = [];
    let offset = 0;
    let reads = 0;
    for (;;) {
      const { result, data } = await this.read(uuid, offset);
      reads += 1;
      if (result !== ATT.SUCCESS) return { result, data: new Uint8Array(0), reads };
      parts.push(data);
      offset += data.length;
      if (data.length < this.mtu - 1) break;
    }
    return { result: ATT.SUCCESS, data: Uint8Array.from(Buffer.concat(parts)), reads };
  }

  /** ATT Write Command (`withoutResponse`) or Write Request; resolves the server's result. */
  write(uuid: string, data: Uint8Array, withoutResponse = true): Promise<number> {
    if (!this.connected) throw new Error(`central ${this.address} is not connected`);
    if (data.length > this.mtu - 3) throw new Error(`a ${data.length}-byte write does not fit ATT MTU ${this.mtu}`);
    const attribute = this.#attribute(uuid);
    const bit = withoutResponse ? PROPERTY_BITS.writeWithoutResponse : PROPERTY_BITS.write;
    if ((attribute.bits & bit) === 0) return Promise.resolve(ATT.WRITE_NOT_PERM);
    return new Promise((resolve) => {
      attribute.characteristic.emit('writeRequest', this.handle, Buffer.from(data), 0, withoutResponse, (result: number) => {
        if (!withoutResponse) resolve(result);
      });
      if (withoutResponse) resolve(ATT.SUCCESS);
    });
  }

  /** Write the CCCD of a characteristic: `01 00` notifications, `02 00` indications, `00 00` off. */
  writeCccd(uuid: string, value: Uint8Array): number {
    const attribute = this.#attribute(uuid);
    if (!attribute.hasCccd) return ATT.WRITE_NOT_PERM;
    if (value.length !== 2) return ATT.INVAL_ATTR_VALUE_LEN;
    const flags = value[0] | (value[1] << 8);
    this.#cccd.set(uuid, flags);
    if ((flags & 0x0003) !== 0) attribute.characteristic.emit('subscribe', this.handle, this.mtu - 3, (data: Buffer) => this.#update(attribute, data));
    else attribute.characteristic.emit('unsubscribe', this.handle);
    return ATT.SUCCESS;
  }

  /** Confirm the last indication. */
  confirm(): void {
    const attribute = this.#unconfirmed;
    if (attribute === undefined) return;
    this.#unconfirmed = undefined;
    attribute.characteristic.emit('indicate', this.handle);
  }

  get awaitingConfirmation(): boolean {
    return this.#unconfirmed !== undefined;
  }

  /** The phone sends a whole frame: fragments at its fragment size, written without response to MESSAGE. */
  async sendFrame(frame: Uint8Array, messageId = '00000000-0000-4000-8000-0000000000c1'): Promise<void> {
    const size = Math.min(fragmentSizeForMtu(this.mtu - 3), this.mtu - 3);
    for (const fragment of encodeFragments(frame, messageId, size)) await this.write(MESSAGE, fragment, true);
  }

  /** The phone disconnects (or goes out of range). */
  disconnect(): void {
    this.#binding.endConnection(this);
  }

  /** The link ends: subscriptions first, then the disconnect (the HCI binding's order). */
  end(): void {
    if (!this.connected) return;
    this.connected = false;
    for (const [uuid, flags] of this.#cccd) {
      if ((flags & 0x0003) !== 0) this.#attribute(uuid).characteristic.emit('unsubscribe', this.handle);
    }
    this.#cccd.clear();
  }

  #attribute(uuid: string): Attribute {
    const attribute = this.#binding.attributes.find((a) => a.uuid === uuid);
    if (attribute === undefined) throw new Error(`no characteristic ${uuid} in the GATT table`);
    return attribute;
  }

  #update(attribute: Attribute, data: Buffer): void {
    if (!this.connected) throw new TypeError("Cannot destructure property 'mtu' of 'this._connections.get(...)' as it is undefined.");
    const bytes = new Uint8Array(data.subarray(0, this.mtu - 3));
    const characteristic = attribute.characteristic;
    if (characteristic.properties.includes('notify')) {
      this.#receive('notify', bytes);
      characteristic.emit('notify', this.handle);
    } else if (characteristic.properties.includes('indicate')) {
      this.#unconfirmed = attribute;
      this.#receive('indicate', bytes);
      if (this.autoConfirm) setImmediate(() => this.confirm());
    }
  }

  #receive(kind: Received['kind'], bytes: Uint8Array): void {
    this.received.push({ kind, bytes, at: this.#binding.now() });
    const result = this.reassembler.push(bytes);
    if (result.status === 'complete') this.frames.push(result.frame);
  }
}

export class FakeBlenoBinding extends EventEmitter {
  /** State the adapter reports on start. */
  initialState: string;
  state = 'unknown';
  now: () => number = () => 0;
  /** The HCI server's MTU cap (`Gatt.maxMtu`, 256 there). */
  readonly _gatt = { maxMtu: 256 };
  /** Advertising parameters re-sent by the radio (the HCI binding's `Hci.setAdvertisingParameters`). */
  advertisingParameterWrites = 0;
  readonly _hci = { setAdvertisingParameters: (): void => void (this.advertisingParameterWrites += 1) };
  _sigIntHandler: (() => void) | undefined;
  initCalls = 0;
  stopped = false;
  /** What the controller is doing. */
  advertising = false;
  advertisement: Buffer | undefined;
  scanResponse: Buffer | undefined;
  advertiseStarts = 0;
  /** HCI status text of a controller that refuses to advertise (e.g. "Command Disallowed"); undefined = accepts. */
  refuseAdvertising: string | undefined;
  attributes: Attribute[] = [];
  readonly centrals = new Map<number, FakeCentral>();
  /** Events in order, for tests that check the order of start-up. */
  readonly journal: string[];
  #nextHandle = 64;

  constructor(initialState = 'poweredOn', journal: string[] = []) {
    super();
    this.initialState = initialState;
    this.journal = journal;
  }

  /** A phone connects to the gateway as a central. */
  connect(address: string): FakeCentral {
    if (this.state !== 'poweredOn') throw new Error('adapter is not powered on');
    const central = new FakeCentral(this, ++this.#nextHandle, address.toLowerCase());
    this.centrals.set(central.handle, central);
    // Connectable advertising stops when a link is made; the HCI binding enables it again at once.
    this.emit('accept', central.address, central.handle);
    return central;
  }

  /** What another host on the controller (noble) does with an HCI Reset: the controller forgets advertising. */
  resetController(): void {
    this.advertising = false;
  }

  setAdapterState(state: string): void {
    this.state = state;
    if (state !== 'poweredOn') {
      this.advertising = false;
      for (const central of [...this.centrals.values()]) this.endConnection(central);
    }
    this.emit('stateChange', state);
  }

  endConnection(central: FakeCentral): void {
    if (!this.centrals.delete(central.handle)) return;
    central.end();
    this.emit('disconnect', central.address, central.handle);
  }

  // ---- the binding interface bleno calls ----

  init(): void {
    this.initCalls += 1;
    this.journal.push('bleno:init');
    this._sigIntHandler = () => undefined;
    process.on('SIGINT', this._sigIntHandler);
    setImmediate(() => {
      this.state = this.initialState;
      this.emit('platform', 'linux');
      this.emit('addressChange', '00:11:22:33:44:55');
      this.journal.push(`bleno:${this.initialState}`);
      this.emit('stateChange', this.initialState);
    });
  }

  stop(): void {
    this.stopped = true;
    if (this._sigIntHandler !== undefined) process.removeListener('SIGINT', this._sigIntHandler);
    this.advertising = false;
    this.centrals.clear();
  }

  setServices(services: Array<{ uuid: string; characteristics: BlenoCharacteristicObject[] }>): void {
    // The HCI server puts Generic Access (device name, appearance) and Generic Attribute (service changed) first.
    const builtIn = (uuid: string, properties: string[], value: Buffer | null): BlenoCharacteristicObject =>
      Object.assign(new EventEmitter(), { uuid, properties, value });
    const all = [
      { uuid: '1800', characteristics: [builtIn('2a00', ['read'], Buffer.from('gateway')), builtIn('2a01', ['read'], Buffer.from([0x80, 0x00]))] },
      { uuid: '1801', characteristics: [builtIn('2a05', ['indicate'], null)] },
      ...services,
    ];
    this.attributes = all.flatMap((service) =>
      service.characteristics.map((characteristic) => {
        const bits = characteristic.properties.reduce((acc, p) => acc | (PROPERTY_BITS[p] ?? 0), 0);
        return { serviceUuid: service.uuid.toLowerCase(), uuid: characteristic.uuid.toLowerCase(), bits, hasCccd: (bits & 0x30) !== 0, characteristic };
      }),
    );
    this.emit('servicesSet');
  }

  startAdvertising(): void {
    throw new Error('the radio advertises with its own EIR data');
  }

  startAdvertisingWithEIRData(advertisement: Buffer, scanResponse: Buffer): void {
    if (advertisement.length > 31 || scanResponse.length > 31) {
      this.emit('advertisingStart', new Error('Advertisement data is over maximum limit of 31 bytes'));
      return;
    }
    this.advertisement = Buffer.from(advertisement);
    this.scanResponse = Buffer.from(scanResponse);
    this.advertiseStarts += 1;
    this.journal.push('bleno:advertise');
    setImmediate(() => {
      if (this.refuseAdvertising !== undefined) {
        this.emit('advertisingStart', new Error(this.refuseAdvertising));
        return;
      }
      this.advertising = true;
      this.emit('advertisingStart', null);
    });
  }

  stopAdvertising(): void {
    this.advertising = false;
    setImmediate(() => this.emit('advertisingStop'));
  }

  /** Server-side disconnect of one central (or all). */
  disconnect(handle?: number | null): void {
    const targets = handle == null ? [...this.centrals.values()] : [this.centrals.get(handle)].filter((c): c is FakeCentral => c !== undefined);
    for (const central of targets) setImmediate(() => this.endConnection(central));
  }

  updateRssi(): void {
    // The HCI binding reads RSSI only for a handle it never sets: nothing comes back.
  }
}

/** The real bleno `Bleno` class over a fake binding. */
export function blenoOver(binding: FakeBlenoBinding): BlenoLike {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Bleno = require('@stoprocent/bleno/lib/bleno') as new (bindings: unknown) => BlenoLike;
  return new Bleno(binding);
}

/** The AD structures of advertising or scan-response data: type → payload. */
export function eirFields(data: Buffer): Array<{ type: number; payload: Buffer }> {
  const out: Array<{ type: number; payload: Buffer }> = [];
  for (let i = 0; i < data.length; ) {
    const length = data[i];
    if (length === 0) break;
    out.push({ type: data[i + 1], payload: data.subarray(i + 2, i + 1 + length) });
    i += 1 + length;
  }
  return out;
}
