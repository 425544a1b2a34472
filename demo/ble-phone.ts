/**
 * A phone as the gateway's central sees one, built with the real bleno (over a virtual controller: ble-hosts.ts):
 * it advertises the mesh service, serves the reference GATT layout (mesh-reference-facts.md §3: MESSAGE, DEVICE_ID,
 * IDENTITY) and speaks the reference's fragments. The demo's BLE phones (`--virtual-ble`) and the BLE tests use it.
 */
import { EventEmitter } from 'node:events';
import type { BlenoCharacteristic, BlenoLike, BlenoUpdateValue } from '../gateway/radios/ble/ble-bleno';
import { meshAdvertisingData, quietenStoppedBleno } from '../gateway/radios/ble/ble-bleno';
import { buildAdvertisement, buildIdentityBlob, identityFromSeed, type MeshAdvertisementFields, type MeshIdentity } from '../gateway/radios/mesh-identity';
import { encodeFragments, FragmentReassembler, fragmentSizeForAttMtu } from '../lib/mesh/ble-fragment';

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
  /** What its signed advertisement in IDENTITY says (battery, load, …); default: nothing reported. */
  advertisement?: MeshAdvertisementFields;
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
  private identityBlob: Buffer;

  constructor(
    readonly bleno: BlenoLike,
    private readonly options: PhoneOptions = {},
  ) {
    super();
    this.identity = identityFromSeed(options.seed ?? 'virtual-phone');
    this.identityBlob = this.signedIdentity(options.advertisement ?? {});
  }

  /** A new battery or load, as a phone's IDENTITY changes: served from the next read on. */
  setAdvertisement(fields: MeshAdvertisementFields): void {
    this.identityBlob = this.signedIdentity(fields);
  }

  private signedIdentity(fields: MeshAdvertisementFields): Buffer {
    return Buffer.from(buildIdentityBlob(this.identity, buildAdvertisement(fields)));
  }

  /** Resolves once the phone advertises. */
  start(): Promise<void> {
    const bleno = this.bleno;
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
    const readable = (uuid: string, read: () => Buffer): BlenoCharacteristic =>
      new bleno.Characteristic({
        uuid: bare(uuid),
        properties: ['read'],
        onReadRequest: (_h, offset, callback) => {
          const value = read();
          if (offset > value.length) callback(0x07);
          else callback(0, value.subarray(offset));
        },
      });
    const service = new bleno.PrimaryService({
      uuid: bare(UUID.SERVICE),
      characteristics: [message, readable(UUID.DEVICE_ID, () => deviceId), readable(UUID.IDENTITY, () => this.identityBlob)],
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
      // The loader (ble-hosts.ts) started the binding already; it may have powered on before this start().
      if (bleno.state === 'poweredOn') onState('poweredOn');
      else bleno.on('stateChange', onState);
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
    // bleno's adapter poll outlives stop() and would keep the process alive.
    quietenStoppedBleno(this.bleno);
  }
}

