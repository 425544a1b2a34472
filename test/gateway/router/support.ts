/**
 * A real MeshRouter on a fake radio and a manual clock: the radio records every write (its queue full for the
 * first `fullFor` of them) and hands the router frames as a peer would, so router rules are tested exactly.
 */
import { randomBytes } from 'node:crypto';
import { deriveAddress } from '../../../lib/mesh/address';
import { encodeFrame } from '../../../lib/mesh/frame';
import { MessageId } from '../../../lib/mesh/message-id';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import { TypedEmitter } from '../../../lib/typed-emitter';
import { EventBus } from '../../../gateway/bus';
import { loadConfig } from '../../../gateway/load-config';
import { silentLogger } from '../../../gateway/logger';
import { Metrics } from '../../../gateway/metrics';
import { MeshRouter } from '../../../gateway/router';
import { RadioError, type Radio, type RadioEvents, type RadioPeer, type RadioStatus } from '../../../gateway/radios/radio';
import { ManualClock } from '../radios/support/manual-clock';

export const newAddress = (): string => deriveAddress(randomBytes(32));

export class FakeRadio extends TypedEmitter<RadioEvents> implements Radio {
  readonly id = 'r1';
  readonly kind = 'simulated' as const;
  readonly tries: number[] = [];
  readonly written: Uint8Array[] = [];

  constructor(
    private readonly clock: ManualClock,
    readonly peerList: RadioPeer[],
    public fullFor = 0,
  ) {
    super((err) => {
      throw err;
    });
  }

  async open(): Promise<void> {}
  async close(): Promise<void> {}
  peers(): RadioPeer[] {
    return this.peerList;
  }
  status(): RadioStatus {
    return { radioId: this.id, state: 'ready', peers: this.peerList.length };
  }
  async send(_peerId: string, frame: Uint8Array): Promise<void> {
    this.tries.push(this.clock.now());
    if (this.tries.length <= this.fullFor) throw new RadioError('QUEUE_FULL', 'peer queue full');
    this.written.push(frame);
  }

  /** A frame from `peer`, as the radio hands it over (with the address its transport verified, if any). */
  deliver(peer: RadioPeer, message: MeshMessage): void {
    this.emit('frame', { radioId: this.id, peerId: peer.id, frame: encodeFrame(message, 'binary'), receivedAt: this.clock.now(), ...(peer.address ? { peerAddress: peer.address } : {}) });
  }
}

/** `configText`: the gateway config the router's `mesh` settings come from (defaults when only `radios: []`). */
export function routerOn(peers: RadioPeer[], fullFor = 0, configText = 'radios: []\n') {
  const clock = new ManualClock(0);
  const radio = new FakeRadio(clock, peers, fullFor);
  const metrics = new Metrics();
  const { config } = loadConfig({ text: configText, env: {} });
  const address = newAddress();
  const bus = new EventBus(silentLogger());
  const router = new MeshRouter({ address, appId: 'test', radios: [radio], bus, logger: silentLogger(), metrics, clock, mesh: config.mesh });
  router.start();
  const message = (recipient: string, requiresAck = false): MeshMessage =>
    createMessage({ id: MessageId.random(), sender: address, recipient, app_id: 'test', priority: 'medium', ttl: 8, hop_count: 0, timestamp: 1n, content: 'hello', requires_ack: requiresAck });
  return { clock, radio, router, metrics, bus, address, message, config };
}
