/**
 * A phone in the central role, built with the real noble over a virtual controller (demo/ble-hosts.ts): what the
 * gateway's GATT server sees when a reference phone connects to it.
 */
import { EventEmitter } from 'node:events';
import { UUID } from '../../../../demo/ble-phone';
import type { NobleCharacteristic, NobleLike, NoblePeripheral } from '../../../../gateway/radios/ble/ble-noble';
import { encodeFragments, FragmentReassembler, fragmentSizeForAttMtu } from '../../../../lib/mesh/ble-fragment';

const bare = (uuid: string): string => uuid.replace(/-/g, '').toLowerCase();

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

type NobleCharacteristicLike = NobleCharacteristic;
type NoblePeripheralLike = NoblePeripheral;
type NobleFull = NobleLike & { once(event: 'discover', listener: (p: NoblePeripheralLike) => void): void };
