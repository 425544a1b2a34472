/**
 * The real noble and bleno, each on the UART HCI driver over a pty to a virtual controller (test/support/ble), and
 * a phone-like peripheral built with bleno that serves the reference GATT layout (mesh-reference-facts.md §3).
 *
 * Everything from the HCI packets up (HCI, L2CAP, ATT, GATT of both stacks) is the packages' own code.
 */
import { EventEmitter } from 'node:events';
import type { BlenoCharacteristic, BlenoLike, BlenoUpdateValue } from '../../../../gateway/radios/ble-bleno';
import { meshAdvertisingData } from '../../../../gateway/radios/ble-bleno';
import type { NobleLike } from '../../../../gateway/radios/ble-noble';
import { buildAdvertisement, buildIdentityBlob, identityFromSeed, type MeshIdentity } from '../../../../gateway/radios/mesh-identity';
import { encodeFragments, FragmentReassembler, fragmentSizeForAttMtu } from '../../../../lib/mesh/ble-fragment';

// The loaders require the binding resolvers, not the packages' index files (which build a default instance at
// require time), and name the UART driver, so nothing here depends on BLUETOOTH_HCI_SOCKET_* variables: setting
// them in this process would switch other tests' real noble to the UART driver too.

type Resolve<T> = (type: string, options: Record<string, unknown>) => T;

function uart(path: string): Record<string, unknown> {
  return { hciDriver: 'uart', bindParams: { uart: { port: path, baudRate: 1_000_000 } } };
}

/** noble on the UART driver; legacy commands, as the gateway uses when bleno shares its controller. */
export function nobleOnUart(path: string): NobleLike {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const withBindings = require('@stoprocent/noble/lib/resolve-bindings') as Resolve<NobleLike>;
  return withBindings('hci', { ...uart(path), extended: false });
}

export function blenoOnUart(path: string): BlenoLike {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const withBindings = require('@stoprocent/bleno/lib/resolve-bindings') as Resolve<BlenoLike>;
  return withBindings('hci', uart(path));
}

export const UUID = Object.freeze({
  SERVICE: '6E400001-B5A3-F393-E0A9-E50E24DCCA9E',
  MESSAGE: '6E400002-B5A3-F393-E0A9-E50E24DCCA9E',
  DEVICE_ID: '6E400003-B5A3-F393-E0A9-E50E24DCCA9E',
  IDENTITY: '6E400004-B5A3-F393-E0A9-E50E24DCCA9E',
});

const bare = (uuid: string): string => uuid.replace(/-/g, '').toLowerCase();

function gattInternals(bleno: BlenoLike): { maxMtu: number } | undefined {
  return (bleno as unknown as { _bindings?: { _gatt?: { maxMtu: number } } })._bindings?._gatt;
}

export interface PhoneOptions {
  seed?: string;
  /** The largest ATT MTU its GATT server accepts (bleno answers min(asked, this)). Android accepts 517. */
  maxAttMtu?: number;
  /** MESSAGE properties; default iOS's (write without response + notify). Android: indicate instead of notify. */
  messageProperties?: string[];
}

export interface PhoneEvents {
  frame: [Uint8Array];
  subscribed: [number];
  connected: [string];
  disconnected: [string];
  mtu: [number];
}

/**
 * A phone as the gateway's central sees one: advertises the mesh service UUID (advertisement and scan response),
 * serves MESSAGE, DEVICE_ID and IDENTITY, reassembles what the central writes, and sends frames as fragments in
 * notifications sized by the negotiated MTU, as the reference does.
 */
export class BlenoPhone extends EventEmitter<PhoneEvents> {
  readonly identity: MeshIdentity;
  readonly reassembler = new FragmentReassembler();
  attMtu = 23;
  /** MESSAGE writes received, and those that were not a valid fragment. */
  writes = 0;
  badFragments = 0;
  largestWrite = 0;
  private update: BlenoUpdateValue | undefined;
  private nextId = 0;

  constructor(
    readonly bleno: BlenoLike,
    private readonly options: PhoneOptions = {},
  ) {
    super();
    this.identity = identityFromSeed(options.seed ?? 'virtual-phone');
  }

  /** Resolves once the phone advertises. */
  start(): Promise<void> {
    const bleno = this.bleno;
    const blob = Buffer.from(buildIdentityBlob(this.identity, buildAdvertisement({})));
    const deviceId = Buffer.from(this.identity.address, 'utf8');
    const message = new bleno.Characteristic({
      uuid: bare(UUID.MESSAGE),
      properties: this.options.messageProperties ?? ['writeWithoutResponse', 'notify'],
      onWriteRequest: (_h, data, _offset, _withoutResponse, callback) => {
        this.writes++;
        this.largestWrite = Math.max(this.largestWrite, data.length);
        try {
          const r = this.reassembler.push(data);
          if (r.status === 'complete') this.emit('frame', r.frame);
        } catch {
          this.badFragments++;
        }
        callback(0);
      },
      onSubscribe: (_h, maxValueSize, updateValue) => {
        this.update = updateValue;
        this.emit('subscribed', maxValueSize);
      },
      onUnsubscribe: () => {
        this.update = undefined;
      },
    });
    const readable = (uuid: string, value: Buffer): BlenoCharacteristic =>
      new bleno.Characteristic({
        uuid: bare(uuid),
        properties: ['read'],
        onReadRequest: (_h, offset, callback) => (offset > value.length ? callback(0x07) : callback(0, value.subarray(offset))),
      });
    const service = new bleno.PrimaryService({
      uuid: bare(UUID.SERVICE),
      characteristics: [message, readable(UUID.DEVICE_ID, deviceId), readable(UUID.IDENTITY, blob)],
    });
    bleno.on('accept', (address) => this.emit('connected', address));
    bleno.on('disconnect', (address) => {
      this.update = undefined;
      this.emit('disconnected', address);
      this.advertise();
    });
    bleno.on('mtuChange', (mtu) => {
      this.attMtu = mtu;
      this.emit('mtu', mtu);
    });
    return new Promise((resolve, reject) => {
      const onState = (state: string): void => {
        if (state !== 'poweredOn') return;
        bleno.removeListener('stateChange', onState);
        const gatt = gattInternals(bleno);
        if (gatt !== undefined && this.options.maxAttMtu !== undefined) gatt.maxMtu = this.options.maxAttMtu;
        bleno.setServices([service], (err) => {
          if (err) return reject(err);
          this.advertise((e) => (e ? reject(e) : resolve()));
        });
      };
      bleno.on('stateChange', onState);
    });
  }

  private advertise(callback?: (err?: Error | null) => void): void {
    const { advertisement, scanResponse } = meshAdvertisingData(UUID.SERVICE);
    this.bleno.startAdvertisingWithEIRData(advertisement, scanResponse, callback);
  }

  get subscribed(): boolean {
    return this.update !== undefined;
  }

  /**
   * Sends a frame to the subscribed central in notifications: the reference's fragment size for this MTU, but no
   * more than a notification carries (ATT_MTU − 3), as a phone whose stack refuses longer values must. Where that
   * leaves no room for a fragment header (ATT MTU 23), the reference size is sent and the stack cuts it short.
   */
  send(frame: Uint8Array): number {
    const update = this.update;
    if (update === undefined) throw new Error('the central has not subscribed');
    const id = `00000000-0000-4000-8000-${(this.nextId++).toString(16).padStart(12, '0')}`;
    const capped = Math.min(fragmentSizeForAttMtu(this.attMtu), this.attMtu - 3);
    const fragments = encodeFragments(frame, id, capped > 46 ? capped : fragmentSizeForAttMtu(this.attMtu));
    for (const f of fragments) update(Buffer.from(f));
    return fragments.length;
  }

  stop(): void {
    this.bleno.removeAllListeners();
    this.bleno.stopAdvertising();
    this.bleno.stop();
  }
}

export interface CentralEvents {
  frame: [Uint8Array];
}

/**
 * A phone in the central role, built with noble: finds the mesh service, connects asking for `attMtu`, reads
 * DEVICE_ID and IDENTITY, subscribes to MESSAGE and writes fragments without response, as the reference's
 * centrals do (mesh-reference-facts.md §3, "Central handshake").
 */
export class NoblePhoneCentral extends EventEmitter<CentralEvents> {
  readonly reassembler = new FragmentReassembler();
  deviceId = '';
  identityBlob: Buffer = Buffer.alloc(0);
  attMtu = 23;
  private message: NobleCharacteristicLike | undefined;
  private peripheral: NoblePeripheralLike | undefined;
  private nextId = 0;

  constructor(readonly noble: NobleLike) {
    super();
  }

  /** Resolves once connected, identified and subscribed. */
  connect(attMtu: number): Promise<void> {
    const noble = this.noble as unknown as NobleFull;
    return new Promise((resolve, reject) => {
      const go = (): void => noble.startScanning([bare(UUID.SERVICE)], false, (err) => err && reject(err));
      if (noble.state === 'poweredOn') go();
      else noble.on('stateChange', (state: string) => state === 'poweredOn' && go());
      noble.once('discover', (p: NoblePeripheralLike) => {
        this.peripheral = p;
        noble.stopScanning();
        p.connect({ mtu: attMtu }, (err) => {
          if (err) return reject(err);
          p.discoverSomeServicesAndCharacteristics([bare(UUID.SERVICE)], [], (e, _s, chars) => {
            // noble queues its MTU exchange ahead of discovery, so the MTU is known here.
            this.attMtu = p.mtu ?? 23;
            if (e || chars === null) return reject(e instanceof Error ? e : new Error(String(e)));
            const by = (uuid: string): NobleCharacteristicLike | undefined => chars.find((c) => c.uuid === bare(uuid));
            const message = by(UUID.MESSAGE);
            const deviceId = by(UUID.DEVICE_ID);
            const identity = by(UUID.IDENTITY);
            if (message === undefined || deviceId === undefined || identity === undefined) return reject(new Error('the mesh characteristics are missing'));
            this.message = message;
            deviceId.read((e1, d1) => {
              if (e1) return reject(e1);
              this.deviceId = d1.toString('utf8');
              identity.read((e2, d2) => {
                if (e2) return reject(e2);
                this.identityBlob = d2;
                message.on('data', (data) => {
                  try {
                    const r = this.reassembler.push(data);
                    if (r.status === 'complete') this.emit('frame', r.frame);
                  } catch {
                    // a bad fragment is dropped, as the reference does
                  }
                });
                message.subscribe((e3) => (e3 ? reject(e3) : resolve()));
              });
            });
          });
        });
      });
    });
  }

  /** Writes a frame as fragments without response, one after the other (the reference's one outstanding write). */
  async send(frame: Uint8Array): Promise<number> {
    const message = this.message;
    if (message === undefined) throw new Error('not connected');
    const id = `00000000-0000-4000-9000-${(this.nextId++).toString(16).padStart(12, '0')}`;
    const fragments = encodeFragments(frame, id, fragmentSizeForAttMtu(this.attMtu));
    for (const f of fragments) await new Promise<void>((resolve, reject) => message.write(Buffer.from(f), true, (err) => (err ? reject(err) : resolve())));
    return fragments.length;
  }

  stop(): void {
    this.peripheral?.disconnect();
    this.noble.removeAllListeners();
    this.noble.stop();
  }
}

type NobleCharacteristicLike = import('../../../../gateway/radios/ble-noble').NobleCharacteristic;
type NoblePeripheralLike = import('../../../../gateway/radios/ble-noble').NoblePeripheral;
type NobleFull = NobleLike & { once(event: 'discover', listener: (p: NoblePeripheralLike) => void): void };
