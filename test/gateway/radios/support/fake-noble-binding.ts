/**
 * A fake noble *binding*: the layer under noble's `Noble` class that the HCI binding fills on a Pi.
 *
 * Tests build the real `Noble` class over it (`new Noble(binding)` from `@stoprocent/noble/lib/noble`), so the
 * peripheral, characteristic and callback logic exercised is noble's own. The fake reproduces what the HCI binding
 * (`lib/hci-socket/bindings.js`) does and emits, argument for argument:
 * - ids are addresses without colons, lowercase; UUIDs are lowercase hex without dashes, and the scan filter is an
 *   exact `indexOf` over the advertised service UUIDs, so a radio that passes a dashed UUID finds nothing here too;
 * - `connect` first stops a running scan (emitting `scanStop`) and never resumes it;
 * - after `connect` the MTU exchange ends with `onMtu(id, negotiated)`, negotiated = min(requested or 256, peer's);
 * - a failed characteristic read is reported as empty data, not as an error;
 * - write-without-response completes with `write(id, service, characteristic)`; a connection to a peer out of range
 *   stays pending until `cancelConnect`.
 * Each fake peripheral reassembles what the gateway writes with lib/mesh's real reassembler and can send frames
 * back as indications, fragmented with lib/mesh's real fragmenter.
 */
import { EventEmitter } from 'node:events';
import { encodeFragments, FragmentReassembler, fragmentSizeForAttMtu } from '../../../../lib/mesh/ble-fragment';
import { buildAdvertisement, buildIdentityBlob, identityFromSeed, type MeshIdentity } from '../../../../gateway/radios/mesh-identity';

export const SERVICE = '6e400001b5a3f393e0a9e50e24dcca9e';
export const MESSAGE = '6e400002b5a3f393e0a9e50e24dcca9e';
export const DEVICE_ID = '6e400003b5a3f393e0a9e50e24dcca9e';
export const IDENTITY = '6e400004b5a3f393e0a9e50e24dcca9e';

export interface FakePeripheralSpec {
  address: string;
  rssi?: number;
  /** Largest ATT MTU the peer accepts (Android: 517). */
  maxMtu?: number;
  /** Seed of its identity; default the address. */
  seed?: string;
  /** DEVICE_ID value; default its identity's address. Empty = "MLS not initialised yet". */
  deviceId?: Uint8Array | string;
  /** IDENTITY value; default a valid blob for its identity. */
  identityBlob?: Uint8Array;
  connectable?: boolean;
  /** MESSAGE properties as noble reports them; default Android's (write without response + indicate). */
  messageProperties?: string[];
  /** Advertised services; default the mesh service. */
  advertisedServices?: string[];
  /** Connection attempts never complete (the controller keeps initiating until cancelled). */
  hangsOnConnect?: boolean;
  /** Characteristic reads are never answered. */
  silentReads?: boolean;
}

export class FakePeripheral {
  readonly id: string;
  readonly address: string;
  readonly identity: MeshIdentity;
  rssi: number;
  readonly maxMtu: number;
  deviceId: Uint8Array;
  identityBlob: Uint8Array;
  readonly connectable: boolean;
  readonly messageProperties: string[];
  readonly advertisedServices: string[];
  inRange = true;
  hangsOnConnect: boolean;
  silentReads: boolean;
  connected = false;
  subscribed = false;
  negotiatedMtu = 23;
  /** Every write the gateway made to MESSAGE, in order, with the fake clock of the test at the time. */
  readonly writes: Array<{ bytes: Uint8Array; withoutResponse: boolean; at: number }> = [];
  /** Whole frames reassembled from those writes. */
  readonly frames: Uint8Array[] = [];
  readonly reassembler = new FragmentReassembler();
  connectRequests = 0;

  constructor(spec: FakePeripheralSpec) {
    this.address = spec.address.toLowerCase();
    this.id = this.address.replace(/:/g, '');
    this.identity = identityFromSeed(spec.seed ?? spec.address);
    this.rssi = spec.rssi ?? -60;
    this.maxMtu = spec.maxMtu ?? 517;
    const id = spec.deviceId ?? this.identity.address;
    this.deviceId = typeof id === 'string' ? Uint8Array.from(Buffer.from(id, 'utf8')) : id;
    this.identityBlob = spec.identityBlob ?? buildIdentityBlob(this.identity, buildAdvertisement({ degree: 1 }));
    this.connectable = spec.connectable ?? true;
    this.messageProperties = spec.messageProperties ?? ['writeWithoutResponse', 'indicate'];
    this.advertisedServices = spec.advertisedServices ?? [SERVICE];
    this.hangsOnConnect = spec.hangsOnConnect ?? false;
    this.silentReads = spec.silentReads ?? false;
  }

  /** Fragment size this peer uses toward the gateway, from the negotiated MTU (the reference rule). */
  get fragmentSize(): number {
    return fragmentSizeForAttMtu(this.negotiatedMtu);
  }
}

type WriteHold = () => void;

export class FakeNobleBinding extends EventEmitter {
  readonly peripherals = new Map<string, FakePeripheral>();
  /** State the adapter reports on start. */
  initialState: string;
  state = 'unknown';
  scanning = false;
  scanFilter: string[] = [];
  allowDuplicates = false;
  startScanningCalls = 0;
  stopped = false;
  now: () => number = () => 0;
  readonly #pendingConnects = new Set<string>();
  readonly #held = new Map<string, WriteHold[]>();
  readonly #stalled = new Set<string>();

  constructor(initialState = 'poweredOn') {
    super();
    this.initialState = initialState;
  }

  add(spec: FakePeripheralSpec): FakePeripheral {
    const p = new FakePeripheral(spec);
    this.peripherals.set(p.id, p);
    return p;
  }

  get(id: string): FakePeripheral {
    const p = this.peripherals.get(id);
    if (p === undefined) throw new Error(`no fake peripheral ${id}`);
    return p;
  }

  /** Every in-range peripheral (or the one given) advertises once, as the controller reports it. */
  advertise(id?: string): void {
    if (!this.scanning) return;
    for (const p of id === undefined ? this.peripherals.values() : [this.get(id)]) {
      if (!p.inRange) continue;
      // The HCI binding's filter: any advertised service UUID found by exact indexOf in the scan list.
      const matches = this.scanFilter.length === 0 || p.advertisedServices.some((u) => this.scanFilter.indexOf(u) !== -1);
      if (!matches) continue;
      this.emit('discover', p.id, p.address, 'random', p.connectable, { localName: undefined, serviceUuids: [...p.advertisedServices], serviceData: [], manufacturerData: undefined, txPowerLevel: undefined, serviceSolicitationUuids: [] }, p.rssi, true);
    }
  }

  setAdapterState(state: string): void {
    this.state = state;
    if (state !== 'poweredOn') {
      this.scanning = false;
      for (const p of this.peripherals.values()) {
        if (p.connected) {
          p.connected = false;
          p.subscribed = false;
          this.emit('disconnect', p.id, 0x03);
        }
      }
    }
    this.emit('stateChange', state);
  }

  /** The peer goes out of range; a live link drops with a supervision timeout (0x08). */
  drop(id: string): void {
    const p = this.get(id);
    p.inRange = false;
    if (p.connected) {
      p.connected = false;
      p.subscribed = false;
      this.#held.delete(id);
      this.#stalled.delete(id);
      this.emit('disconnect', p.id, 0x08);
    }
  }

  restore(id: string): void {
    this.get(id).inRange = true;
  }

  /** Hold write completions for this peer until `releaseWrites` (a congested link). */
  stallWrites(id: string): void {
    this.#stalled.add(id);
  }

  releaseWrites(id: string): void {
    this.#stalled.delete(id);
    this.#releaseHeld(id);
  }

  /** The peer sends a frame to the gateway: fragments as indications on MESSAGE. */
  sendFrame(id: string, frame: Uint8Array, messageId = '00000000-0000-4000-8000-000000000001'): void {
    const p = this.get(id);
    for (const fragment of encodeFragments(frame, messageId, p.fragmentSize)) this.indicate(id, fragment);
  }

  /** One raw indication on MESSAGE. */
  indicate(id: string, bytes: Uint8Array): void {
    const p = this.get(id);
    if (!p.connected || !p.subscribed) throw new Error(`peer ${id} cannot indicate: not connected and subscribed`);
    this.emit('read', id, SERVICE, MESSAGE, Buffer.from(bytes), true);
  }

  // ---- the binding interface noble calls ----

  start(): void {
    setImmediate(() => {
      this.state = this.initialState;
      this.emit('addressChange', '00:11:22:33:44:55');
      this.emit('stateChange', this.initialState);
    });
  }

  stop(): void {
    this.stopped = true;
    this.scanning = false;
  }

  setScanParameters(): void {
    this.emit('scanParametersSet');
  }

  startScanning(serviceUuids: string[] | undefined, allowDuplicates: boolean): void {
    this.startScanningCalls += 1;
    if (this.scanning) {
      this.emit('scanStart', !allowDuplicates);
      return;
    }
    this.scanFilter = serviceUuids ?? [];
    this.allowDuplicates = allowDuplicates;
    setImmediate(() => {
      if (this.state !== 'poweredOn') return;
      this.scanning = true;
      this.emit('scanStart', !allowDuplicates);
      setImmediate(() => this.advertise());
    });
  }

  stopScanning(): void {
    const was = this.scanning;
    this.scanning = false;
    if (was) setImmediate(() => this.emit('scanStop'));
    else this.emit('scanStop');
  }

  connect(id: string, parameters: { mtu?: number } = {}): void {
    const p = this.get(id);
    p.connectRequests += 1;
    // HCI stops the scan to initiate, and does not start it again.
    if (this.scanning) this.stopScanning();
    if (!p.inRange || !p.connectable || p.hangsOnConnect) {
      this.#pendingConnects.add(id);
      return;
    }
    setImmediate(() => {
      if (!p.inRange) return;
      p.connected = true;
      p.negotiatedMtu = Math.min(parameters.mtu ?? 256, p.maxMtu);
      this.emit('connect', id, null);
      setImmediate(() => this.emit('onMtu', id, p.negotiatedMtu));
    });
  }

  cancelConnect(id: string): void {
    this.#pendingConnects.delete(id);
  }

  /** Pending connection attempts (to peers out of range). */
  get pendingConnects(): number {
    return this.#pendingConnects.size;
  }

  disconnect(id: string): void {
    const p = this.get(id);
    if (!p.connected) return;
    p.connected = false;
    p.subscribed = false;
    this.#held.delete(id);
    setImmediate(() => this.emit('disconnect', id, 0x16));
  }

  updateRssi(id: string): void {
    this.emit('rssiUpdate', id, this.get(id).rssi);
  }

  discoverServices(id: string, uuids: string[]): void {
    const p = this.get(id);
    setImmediate(() => {
      if (!p.connected) return;
      const offered = [SERVICE, '1800', '1801'];
      this.emit('servicesDiscover', id, uuids.length === 0 ? offered : offered.filter((u) => uuids.includes(u)));
    });
  }

  discoverIncludedServices(id: string, serviceUuid: string): void {
    this.emit('includedServicesDiscover', id, serviceUuid, []);
  }

  discoverCharacteristics(id: string, serviceUuid: string, uuids: string[]): void {
    const p = this.get(id);
    setImmediate(() => {
      if (!p.connected) return;
      const all = [
        { uuid: MESSAGE, properties: p.messageProperties },
        { uuid: DEVICE_ID, properties: ['read'] },
        { uuid: IDENTITY, properties: ['read'] },
      ];
      this.emit('characteristicsDiscover', id, serviceUuid, uuids.length === 0 ? all : all.filter((c) => uuids.includes(c.uuid)));
    });
  }

  read(id: string, serviceUuid: string, characteristicUuid: string): void {
    const p = this.get(id);
    setImmediate(() => {
      if (!p.connected || p.silentReads) return;
      const value = characteristicUuid === DEVICE_ID ? p.deviceId : characteristicUuid === IDENTITY ? p.identityBlob : new Uint8Array(0);
      this.emit('read', id, serviceUuid, characteristicUuid, Buffer.from(value), false);
    });
  }

  write(id: string, serviceUuid: string, characteristicUuid: string, data: Buffer, withoutResponse: boolean): void {
    const p = this.get(id);
    if (!p.connected) {
      // What the HCI binding does for a peripheral with no live link: a console warning and no callback.
      return;
    }
    if (characteristicUuid === MESSAGE) {
      const bytes = new Uint8Array(data);
      p.writes.push({ bytes, withoutResponse, at: this.now() });
      const result = p.reassembler.push(bytes);
      if (result.status === 'complete') p.frames.push(result.frame);
    }
    const complete = (): void => {
      setImmediate(() => this.emit('write', id, serviceUuid, characteristicUuid));
    };
    if (this.#stalled.has(id)) {
      const list = this.#held.get(id) ?? [];
      list.push(complete);
      this.#held.set(id, list);
    } else complete();
  }

  notify(id: string, serviceUuid: string, characteristicUuid: string, on: boolean): void {
    const p = this.get(id);
    setImmediate(() => {
      if (!p.connected) return;
      if (characteristicUuid === MESSAGE) p.subscribed = on;
      this.emit('notify', id, serviceUuid, characteristicUuid, on);
    });
  }

  addressToId(address: string): string {
    return address.replace(/:/g, '').toLowerCase();
  }

  #releaseHeld(id: string): void {
    const list = this.#held.get(id) ?? [];
    this.#held.delete(id);
    for (const complete of list) complete();
  }
}

/** The real noble `Noble` class over a fake binding. */
export function nobleOver(binding: FakeNobleBinding): import('../../../../gateway/radios/ble/ble-noble').NobleLike {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Noble = require('@stoprocent/noble/lib/noble') as new (bindings: unknown) => import('../../../../gateway/radios/ble/ble-noble').NobleLike;
  return new Noble(binding);
}
