/**
 * The BLE radio's GATT server (the gateway in the peripheral role), through `@stoprocent/bleno`.
 *
 * It serves the mesh service of mesh-reference-facts.md §3 so that phones can connect to the gateway as centrals:
 * - MESSAGE `6E400002`: write without response and write (inbound fragments), notify and indicate (outbound, CCCD
 *   `01 00` or `02 00`); with `peripheral.notify: false`, indicate only, as the reference Android peripheral;
 * - DEVICE_ID `6E400003`: read, the gateway's UTF-8 `off1…` address;
 * - IDENTITY `6E400004`: read with offsets, `pubkey(32) ‖ Ed25519 sig(64) ‖ adv(19)`, adv a MeshAdvertisementData
 *   v2 signed with the gateway key. A read at offset 0 builds a fresh blob (degree, free slots and uptime change)
 *   and keeps it for that central, so the long read that follows (read blob at 22, 44, … on a small MTU) is served
 *   from one consistent value.
 * It advertises the 128-bit service UUID only (advertisement and scan response), pauses advertising while
 * `max_clients` centrals are connected, and reports every central through the hooks; `BleServerLink` carries
 * each one's fragments both ways.
 *
 * When bleno cannot run (package missing, no adapter, no permission, an adapter that refuses to advertise) the
 * state says so and the hooks never fire: the radio keeps its central role.
 */
import type { MeshIdentity } from '../mesh-identity';
import { buildAdvertisement, buildIdentityBlob, nodeIdHash } from '../mesh-identity';
import {
  ATT_RESULT,
  type BlenoFactory,
  type BlenoHandle,
  type BlenoLike,
  type BlenoReadCallback,
  detachBlenoSignalHandlers,
  meshAdvertisingData,
  quietenStoppedBleno,
  raiseGattMtuCap,
  restoreAdvertisingParameters,
} from './ble-bleno';
import { MESH_CHARACTERISTICS, nobleUuid } from './ble-noble';
import { BleServerLink } from './ble-server-link';
import type { ResolvedBleConfig } from '../radio-config';
import type { Clock } from '../../../lib/clock';
import { counted } from '../../../lib/plural';
import type { RadioLogger } from '../radio';

/** The largest ATT MTU (517); bleno's HCI server is lifted to it. */
const MAX_ATT_MTU = 517;
/** An advertising command that sees no completion in this long counts as failed (start) or done (stop). */
const ADVERTISING_COMMAND_TIMEOUT_MS = 5_000;

export type PeripheralState = 'starting' | 'advertising' | 'full' | 'off' | 'unsupported' | 'error' | 'stopped';

export interface BlePeripheralHooks {
  /** A central connected. Return false to let it go again (allow_peers, a duplicate of a known device). */
  onConnect(link: BleServerLink): boolean;
  onSubscribe(link: BleServerLink): void;
  onUnsubscribe(link: BleServerLink): void;
  onDisconnect(link: BleServerLink, reason: string): void;
  onFrame(link: BleServerLink, frame: Uint8Array): void;
  onDrop(reason: string, details: Record<string, unknown>): void;
  onState(state: PeripheralState, detail: string | undefined): void;
  /** Link figures for the MeshAdvertisementData inside IDENTITY. */
  advertisement(): { degree: number; freeSlots: number };
}

export interface BlePeripheralOptions {
  config: ResolvedBleConfig;
  identity: MeshIdentity;
  factory: BlenoFactory;
  sysDir?: string;
  clock: Clock;
  log: RadioLogger;
  radioId: string;
  hooks: BlePeripheralHooks;
}

type AdvertisingPhase = 'off' | 'starting' | 'on' | 'stopping';

export class BlePeripheral {
  readonly #o: BlePeripheralOptions;
  readonly #links = new Map<BlenoHandle, BleServerLink>();
  readonly #hci: string;
  readonly #deviceId: Buffer;
  #bleno: BlenoLike | undefined;
  #state: PeripheralState = 'stopped';
  #detail: string | undefined;
  #servicesSet = false;
  #settingServices = false;
  #advertising: AdvertisingPhase = 'off';
  #rearmWanted = false;
  #retryAt = 0;
  #retryTimer: unknown;
  #commandTimer: unknown;
  #startedAt = 0;
  #closing = false;

  constructor(options: BlePeripheralOptions) {
    this.#o = options;
    this.#hci = options.config.peripheral.controller.label;
    this.#deviceId = Buffer.from(options.identity.address, 'utf8');
  }

  get state(): PeripheralState {
    return this.#state;
  }

  get detail(): string | undefined {
    return this.#detail;
  }

  /** Connected centrals. */
  links(): BleServerLink[] {
    return [...this.#links.values()];
  }

  /** Loads bleno and brings the server up; never throws (the state says how it went). */
  start(): void {
    const { config, factory, log, radioId } = this.#o;
    this.#startedAt = this.#o.clock.now();
    this.#setState('starting', this.#hci);
    let bleno: BlenoLike;
    try {
      bleno = factory({ adapter: config.peripheral.adapter, sysDir: this.#o.sysDir });
    } catch (err) {
      this.#setState('unsupported', err instanceof Error ? err.message : String(err));
      return;
    }
    this.#bleno = bleno;
    bleno.removeAllListeners('warning');
    bleno.on('warning', (message) => log.debug({ radio: radioId, message }, 'bleno warning'));
    bleno.on('accept', (address, handle) => this.#onAccept(address, handle));
    bleno.on('disconnect', (_address, handle) => this.#onDisconnect(handle));
    bleno.on('mtuChange', (mtu) => this.#onMtu(mtu));
    try {
      // Adding the first stateChange listener is what initialises the binding (opens the HCI socket).
      bleno.on('stateChange', (state) => this.#onAdapterState(state));
    } catch (err) {
      detachBlenoSignalHandlers(bleno);
      this.#stopBleno();
      this.#setState('unsupported', `${this.#hci}: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    detachBlenoSignalHandlers(bleno);
  }

  /**
   * Advertise again from scratch. The central role calls this after a connection attempt on a shared adapter:
   * noble sends an HCI Reset before connecting when the controller has no link, and a reset ends advertising
   * without bleno noticing.
   */
  rearm(): void {
    const bleno = this.#bleno;
    if (bleno === undefined || this.#closing) return;
    if (this.#advertising === 'starting' || this.#advertising === 'stopping') {
      this.#rearmWanted = true;
      return;
    }
    if (this.#advertising !== 'on') return;
    this.#stopAdvertising(() => {
      restoreAdvertisingParameters(bleno);
      this.#syncAdvertising();
    });
  }

  /** Lets a central go (the radio refused it after the fact). */
  disconnect(link: BleServerLink): void {
    if (this.#links.get(link.handle) !== link) return;
    this.#links.delete(link.handle);
    link.lost();
    this.#bleno?.disconnect(link.handle);
    this.#syncAdvertising();
  }

  sweep(): void {
    for (const link of this.#links.values()) link.sweep();
  }

  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#o.clock.clearTimeout(this.#retryTimer);
    this.#o.clock.clearTimeout(this.#commandTimer);
    for (const link of this.#links.values()) link.lost();
    this.#links.clear();
    this.#stopBleno();
    this.#setState('stopped', undefined);
  }

  #stopBleno(): void {
    const bleno = this.#bleno;
    if (bleno === undefined) return;
    this.#bleno = undefined;
    bleno.removeAllListeners();
    try {
      // Stops advertising, disconnects every central and closes the HCI socket.
      bleno.stop();
    } catch (err) {
      this.#o.log.debug({ radio: this.#o.radioId, err: err instanceof Error ? err.message : String(err) }, 'bleno stop reported an error');
    }
    quietenStoppedBleno(bleno);
  }

  #setState(state: PeripheralState, detail: string | undefined): void {
    if (this.#closing && state !== 'stopped') return;
    if (state === this.#state && detail === this.#detail) return;
    this.#state = state;
    this.#detail = detail;
    this.#o.log.info({ radio: this.#o.radioId, peripheral: state, detail }, 'BLE peripheral state');
    this.#o.hooks.onState(state, detail);
  }

  #onAdapterState(state: string): void {
    const bleno = this.#bleno;
    if (bleno === undefined || this.#closing) return;
    switch (state) {
      case 'poweredOn':
        raiseGattMtuCap(bleno, MAX_ATT_MTU);
        this.#setServices(bleno);
        return;
      case 'unsupported':
        this.#setState('unsupported', `${this.#hci}: no Bluetooth LE adapter usable in the peripheral role`);
        return;
      case 'unauthorized':
        this.#setState('error', `${this.#hci}: no permission for raw HCI; grant it with: sudo setcap cap_net_raw,cap_net_admin+eip $(readlink -f $(which node))`);
        return;
      default:
        // Powered off or resetting: the controller forgot advertising and every link.
        this.#advertising = 'off';
        this.#o.clock.clearTimeout(this.#commandTimer);
        for (const link of [...this.#links.values()]) this.#drop(link, `adapter ${state}`);
        this.#setState('off', `${this.#hci}: adapter ${state}`);
    }
  }

  #setServices(bleno: BlenoLike): void {
    if (this.#servicesSet) {
      this.#syncAdvertising();
      return;
    }
    if (this.#settingServices) return;
    this.#settingServices = true;
    bleno.setServices([this.#service(bleno)], (err) => {
      this.#settingServices = false;
      if (this.#closing) return;
      if (err) {
        this.#setState('error', `${this.#hci}: the GATT service was refused: ${err.message}`);
        return;
      }
      this.#servicesSet = true;
      this.#syncAdvertising();
    });
  }

  #service(bleno: BlenoLike): InstanceType<BlenoLike['PrimaryService']> {
    const { config } = this.#o;
    const message = new bleno.Characteristic({
      uuid: MESH_CHARACTERISTICS.MESSAGE,
      properties: config.peripheral.notify ? ['writeWithoutResponse', 'write', 'notify', 'indicate'] : ['writeWithoutResponse', 'write', 'indicate'],
      onWriteRequest: (handle, data, offset, _withoutResponse, callback) => {
        const link = this.#links.get(handle);
        if (link === undefined) {
          callback(ATT_RESULT.UNLIKELY_ERROR);
          return;
        }
        // A fragment is one whole write; a long (prepared) write starting past 0 is not one.
        if (offset !== 0) {
          callback(ATT_RESULT.INVALID_OFFSET);
          return;
        }
        callback(ATT_RESULT.SUCCESS);
        link.receive(data);
      },
      onSubscribe: (handle, maxValueSize, updateValue) => {
        const link = this.#links.get(handle);
        if (link === undefined) return;
        link.subscribe(maxValueSize, updateValue);
        this.#o.hooks.onSubscribe(link);
      },
      onUnsubscribe: (handle) => {
        const link = this.#links.get(handle);
        if (link === undefined) return;
        link.unsubscribe();
        this.#o.hooks.onUnsubscribe(link);
      },
      onNotify: (handle) => this.#links.get(handle)?.notified(),
      onIndicate: (handle) => this.#links.get(handle)?.confirmed(),
    });
    const deviceId = new bleno.Characteristic({
      uuid: MESH_CHARACTERISTICS.DEVICE_ID,
      properties: ['read'],
      onReadRequest: (_handle, offset, callback) => serve(this.#deviceId, offset, callback),
    });
    const identity = new bleno.Characteristic({
      uuid: MESH_CHARACTERISTICS.IDENTITY,
      properties: ['read'],
      onReadRequest: (handle, offset, callback) => {
        const link = this.#links.get(handle);
        let blob = link?.identityBlob;
        if (offset === 0 || blob === undefined) {
          blob = this.#identityBlob();
          if (link !== undefined) link.identityBlob = blob;
        }
        serve(Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength), offset, callback);
      },
    });
    return new bleno.PrimaryService({ uuid: nobleUuid(config.serviceUuid), characteristics: [message, deviceId, identity] });
  }

  #identityBlob(): Uint8Array {
    const { identity, clock, hooks } = this.#o;
    const figures = hooks.advertisement();
    const adv = buildAdvertisement({
      degree: figures.degree,
      freeSlots: figures.freeSlots,
      uptimeS: Math.floor((clock.now() - this.#startedAt) / 1000),
      nodeIdHash: nodeIdHash(identity.address),
    });
    return buildIdentityBlob(identity, adv);
  }

  #onAccept(clientAddress: string, handle: BlenoHandle): void {
    const bleno = this.#bleno;
    if (bleno === undefined || this.#closing) return;
    const { config, clock, radioId } = this.#o;
    const link = new BleServerLink({
      handle,
      clientAddress,
      config,
      clock,
      radioId,
      mode: config.peripheral.notify ? 'notify' : 'indicate',
      maxAssemblies: Math.max(4, Math.floor(64 / (config.maxPeers + config.peripheral.maxClients))),
      onFrame: (frame) => this.#o.hooks.onFrame(link, frame),
      onDrop: (reason, details) => this.#o.hooks.onDrop(reason, { peerId: link.peerId, ...details }),
    });
    this.#links.set(handle, link);
    this.#o.log.debug({ radio: radioId, central: link.clientId, handle }, 'BLE central connected');
    const over = this.#links.size > config.peripheral.maxClients;
    if (over) this.#o.hooks.onDrop('ble_client_over_limit', { peerId: link.clientId, maxClients: config.peripheral.maxClients });
    if (over || !this.#o.hooks.onConnect(link)) {
      this.#links.delete(handle);
      link.lost();
      bleno.disconnect(handle);
    }
    this.#syncAdvertising();
  }

  #onDisconnect(handle: BlenoHandle): void {
    const link = this.#links.get(handle);
    if (link === undefined) return;
    this.#drop(link, 'disconnected');
    this.#syncAdvertising();
  }

  #drop(link: BleServerLink, reason: string): void {
    this.#links.delete(link.handle);
    link.lost();
    this.#o.log.debug({ radio: this.#o.radioId, central: link.clientId, reason }, 'BLE central gone');
    this.#o.hooks.onDisconnect(link, reason);
  }

  /** bleno reports the MTU without the connection; it can be placed only when one central is connected. */
  #onMtu(attMtu: number): void {
    if (this.#links.size === 1) {
      for (const link of this.#links.values()) link.setAttMtu(attMtu);
    } else {
      this.#o.log.debug({ radio: this.#o.radioId, attMtu }, 'BLE MTU exchange with several centrals connected: left to the subscription');
    }
  }

  #syncAdvertising(): void {
    const bleno = this.#bleno;
    if (bleno === undefined || this.#closing || !this.#servicesSet || bleno.state !== 'poweredOn') return;
    const full = this.#links.size >= this.#o.config.peripheral.maxClients;
    const waiting = this.#o.clock.now() < this.#retryAt;
    if (!full && !waiting && this.#advertising === 'off') this.#startAdvertising(bleno);
    else if (full && this.#advertising === 'on') this.#stopAdvertising(() => this.#syncAdvertising());
    if (full) this.#setState('full', `${counted(this.#links.size, 'central')} connected`);
    else if (this.#advertising === 'on') this.#setState('advertising', this.#hci);
  }

  #startAdvertising(bleno: BlenoLike): void {
    const { config, clock } = this.#o;
    this.#advertising = 'starting';
    const { advertisement, scanResponse } = meshAdvertisingData(config.serviceUuid, config.peripheral.advertiseName);
    let answered = false;
    const done = (err?: Error | null): void => {
      if (answered || this.#closing) return;
      answered = true;
      clock.clearTimeout(this.#commandTimer);
      if (err) {
        this.#advertising = 'off';
        this.#failAdvertising(err.message);
        return;
      }
      this.#advertising = 'on';
      if (this.#rearmWanted) {
        this.#rearmWanted = false;
        this.rearm();
        return;
      }
      this.#syncAdvertising();
    };
    this.#commandTimer = clock.setTimeout(() => done(new Error(`no answer within ${ADVERTISING_COMMAND_TIMEOUT_MS} ms`)), ADVERTISING_COMMAND_TIMEOUT_MS);
    bleno.startAdvertisingWithEIRData(advertisement, scanResponse, done);
  }

  #stopAdvertising(then: () => void): void {
    const bleno = this.#bleno;
    if (bleno === undefined) return;
    const { clock } = this.#o;
    this.#advertising = 'stopping';
    let answered = false;
    const done = (): void => {
      if (answered || this.#closing) return;
      answered = true;
      clock.clearTimeout(this.#commandTimer);
      this.#advertising = 'off';
      this.#rearmWanted = false;
      then();
    };
    this.#commandTimer = clock.setTimeout(done, ADVERTISING_COMMAND_TIMEOUT_MS);
    bleno.stopAdvertising(done);
  }

  /** A controller that refuses to advertise (no peripheral support, or busy): say so, and try again later. */
  #failAdvertising(reason: string): void {
    const { clock, config } = this.#o;
    const delay = config.reconnect.maxMs;
    this.#retryAt = clock.now() + delay;
    this.#setState('unsupported', `${this.#hci}: the adapter refused to advertise (${reason}); retrying in ${Math.round(delay / 1000)} s`);
    clock.clearTimeout(this.#retryTimer);
    this.#retryTimer = clock.setTimeout(() => {
      this.#retryAt = 0;
      this.#syncAdvertising();
    }, delay);
  }
}

/** A read answered from `value` at `offset` (bleno cuts the answer to ATT_MTU − 1; the central reads on). */
function serve(value: Buffer, offset: number, callback: BlenoReadCallback): void {
  if (offset > value.length) callback(ATT_RESULT.INVALID_OFFSET);
  else callback(ATT_RESULT.SUCCESS, value.subarray(offset));
}
