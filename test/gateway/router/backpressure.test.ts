/**
 * The router's answer to a full peer queue (`QUEUE_FULL`): park the write and retry from 50 ms doubling to 2 s, 12
 * retries at most (mesh-reference-facts.md §3 "Pacing"), count a failure only when it gives up, and drop parked
 * writes on stop. A fake radio and a manual clock make every retry time exact.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { deriveAddress } from '../../../lib/mesh/address';
import { MessageId } from '../../../lib/mesh/message-id';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import { TypedEmitter } from '../../../lib/typed-emitter';
import { EventBus } from '../../../gateway/bus';
import { loadConfig } from '../../../gateway/config/load-config';
import { silentLogger } from '../../../gateway/logger';
import { Metrics } from '../../../gateway/metrics';
import { MeshRouter } from '../../../gateway/router';
import { RadioError, type Radio, type RadioEvents, type RadioPeer, type RadioStatus } from '../../../gateway/radios/radio';
import { ManualClock } from '../radios/support/manual-clock';

const PEER: RadioPeer = { id: 'peer-1', address: deriveAddress(randomBytes(32)), wireVersions: [1], connected: true };

/** A radio whose queue is full for the first `fullFor` writes; records when each write was tried. */
class FullQueueRadio extends TypedEmitter<RadioEvents> implements Radio {
  readonly id = 'r1';
  readonly kind = 'simulated' as const;
  readonly tries: number[] = [];
  readonly written: Uint8Array[] = [];

  constructor(
    private readonly clock: ManualClock,
    public fullFor: number,
  ) {
    super((err) => {
      throw err;
    });
  }

  async open(): Promise<void> {}
  async close(): Promise<void> {}
  peers(): RadioPeer[] {
    return [PEER];
  }
  status(): RadioStatus {
    return { radioId: this.id, state: 'ready', peers: 1 };
  }
  async send(_peerId: string, frame: Uint8Array): Promise<void> {
    this.tries.push(this.clock.now());
    if (this.tries.length <= this.fullFor) throw new RadioError('QUEUE_FULL', 'peer queue full');
    this.written.push(frame);
  }
}

function setup(fullFor: number) {
  const clock = new ManualClock(0);
  const radio = new FullQueueRadio(clock, fullFor);
  const metrics = new Metrics();
  const { config } = loadConfig({ text: 'radios: []\n', env: {} });
  const address = deriveAddress(randomBytes(32));
  const router = new MeshRouter({ address, appId: 'test', radios: [radio], bus: new EventBus(silentLogger()), logger: silentLogger(), metrics, clock, mesh: config.mesh });
  router.start();
  const message = (): MeshMessage =>
    createMessage({ id: MessageId.random(), sender: address, recipient: PEER.address!, app_id: 'test', priority: 'medium', ttl: 8, hop_count: 0, timestamp: 1n, content: 'hello', requires_ack: false });
  const sendErrors = (): number => metrics.counter('clawling_gateway_radio_send_errors_total', '').get({ radio: 'r1', code: 'QUEUE_FULL' });
  return { clock, radio, router, message, sendErrors };
}

describe('MeshRouter: QUEUE_FULL park and retry', () => {
  it('retries after 50, 100, 200 ms and writes the frame once the queue has room, counting no failure', async () => {
    const { clock, radio, router, message, sendErrors } = setup(3);
    await router.send(message());
    await clock.tick(10_000);
    assert.deepEqual(radio.tries, [0, 50, 150, 350]);
    assert.equal(radio.written.length, 1);
    assert.equal(sendErrors(), 0);
    assert.equal(clock.pending, 0);
  });

  it('gives up after 12 retries, the delays capped at 2 s, and counts the failure once', async () => {
    const { clock, radio, router, message, sendErrors } = setup(Infinity);
    await router.send(message());
    await clock.tick(60_000);
    const gaps = radio.tries.slice(1).map((t, i) => t - radio.tries[i]);
    assert.deepEqual(gaps, [50, 100, 200, 400, 800, 1600, 2000, 2000, 2000, 2000, 2000, 2000]);
    assert.equal(radio.written.length, 0);
    assert.equal(sendErrors(), 1);
    assert.equal(clock.pending, 0);
  });

  it('drops parked writes on stop: nothing is written afterwards', async () => {
    const { clock, radio, router, message } = setup(1);
    await router.send(message());
    await clock.tick(0);
    assert.equal(radio.tries.length, 1);
    router.stop();
    await clock.tick(10_000);
    assert.equal(radio.tries.length, 1);
    assert.equal(radio.written.length, 0);
  });

  it('parks at most 4096 writes; beyond that a full queue is a failure at once', async () => {
    const { clock, radio, router, message, sendErrors } = setup(Infinity);
    for (let i = 0; i < 4100; i++) await router.send(message());
    await clock.tick(0);
    assert.equal(radio.tries.length, 4100);
    assert.equal(sendErrors(), 4);
    assert.equal(clock.pending, 4096);
    router.stop();
  });
});
