/**
 * The router's answer to a full peer queue (`QUEUE_FULL`): park the write and retry from 50 ms doubling to 2 s, 12
 * retries at most (mesh-reference-facts.md §3 "Pacing"), count a failure only when it gives up, and drop parked
 * writes on stop. A fake radio and a manual clock make every retry time exact.
 */
import assert from 'node:assert/strict';
import type { RadioPeer } from '../../../gateway/radios/radio';
import { newAddress, routerOn } from './support';

const PEER: RadioPeer = { id: 'peer-1', address: newAddress(), wireVersions: [1], connected: true };

function setup(fullFor: number) {
  const r = routerOn([PEER], fullFor);
  const message = () => r.message(PEER.address!);
  const sendErrors = (): number => r.metrics.counter('clawling_gateway_radio_send_errors_total', '').get({ radio: 'r1', code: 'QUEUE_FULL' });
  return { ...r, message, sendErrors };
}

describe('MeshRouter: QUEUE_FULL park and retry', () => {
  it('retries after 50, 100, 200 ms and writes the frame once the queue has room, counting no failure', async () => {
    const { clock, radio, router, message, sendErrors } = setup(3);
    await router.send(message());
    await clock.tick(10_000);
    assert.deepEqual(radio.tries, [0, 50, 150, 350]);
    assert.equal(radio.written.length, 1);
    assert.equal(sendErrors(), 0);
    assert.equal(clock.pending(), 0);
  });

  it('gives up after 12 retries, the delays capped at 2 s, and counts the failure once', async () => {
    const { clock, radio, router, message, sendErrors } = setup(Infinity);
    await router.send(message());
    await clock.tick(60_000);
    const gaps = radio.tries.slice(1).map((t, i) => t - radio.tries[i]);
    assert.deepEqual(gaps, [50, 100, 200, 400, 800, 1600, 2000, 2000, 2000, 2000, 2000, 2000]);
    assert.equal(radio.written.length, 0);
    assert.equal(sendErrors(), 1);
    assert.equal(clock.pending(), 0);
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
    assert.equal(clock.pending(), 4096);
    router.stop();
  });
});
