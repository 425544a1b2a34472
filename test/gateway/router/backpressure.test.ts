/**
 * The router's answer to a full peer queue (`QUEUE_FULL`): park the write, per peer and in order, and write it again
 * when the radio says the queue drained (`writable`), or every 2 s where a radio never says so; give it up after the
 * reference's retry span (~15 s) or when the peer goes away, counting one failure; drop parked writes on stop. A fake
 * radio and a manual clock make every retry time exact.
 */
import assert from 'node:assert/strict';
import { decodeFrame } from '../../../lib/mesh/frame';
import type { RadioPeer } from '../../../gateway/radios/radio';
import { newAddress, routerOn } from './support';

const PEER: RadioPeer = { id: 'peer-1', address: newAddress(), wireVersions: [1], connected: true };

function setup(fullFor: number) {
  const r = routerOn([PEER], fullFor);
  const message = () => r.message(PEER.address!);
  const sendErrors = (code = 'QUEUE_FULL'): number => r.metrics.counter('clawling_gateway_radio_send_errors_total', '').get({ radio: 'r1', code });
  const writable = (free: number): void => {
    r.radio.emit('writable', { radioId: 'r1', peerId: PEER.id, free });
  };
  return { ...r, message, sendErrors, writable };
}

describe('MeshRouter: QUEUE_FULL park and retry', () => {
  it('writes a refused frame again as soon as the radio says the queue drained, with no timer wave', async () => {
    const { clock, radio, router, message, sendErrors, writable } = setup(1);
    await router.send(message());
    await clock.tick(0);
    assert.deepEqual([radio.tries.length, radio.written.length], [1, 0]);
    await clock.tick(30);
    writable(1);
    await clock.tick(0);
    assert.deepEqual(radio.tries, [0, 30], 'retried at the drain, not at a fixed delay');
    assert.equal(radio.written.length, 1);
    assert.equal(sendErrors(), 0);
    assert.equal(clock.pending(), 0);
  });

  it('keeps the order: frames after a refusal queue behind it; a drain releases the room it reports and one more', async () => {
    const { clock, radio, router, message, writable } = setup(1);
    const sent = [message(), message(), message(), message(), message()];
    for (const m of sent) await router.send(m);
    await clock.tick(0);
    assert.equal(radio.tries.length, 1, 'the later frames did not overtake the parked one');
    // The one more is the probe whose refusal makes a real radio report room again.
    writable(2);
    await clock.tick(0);
    assert.deepEqual(radio.written.map((f) => decodeFrame(f).id.toString()), sent.slice(0, 3).map((m) => m.id.toString()));
    writable(1);
    await clock.tick(0);
    assert.deepEqual(radio.written.map((f) => decodeFrame(f).id.toString()), sent.map((m) => m.id.toString()));
  });

  it('probes a radio that never says the queue drained every 2 s, with the oldest frame', async () => {
    const { clock, radio, router, message, sendErrors } = setup(3);
    await router.send(message());
    await clock.tick(10_000);
    assert.deepEqual(radio.tries, [0, 2000, 4000, 6000]);
    assert.equal(radio.written.length, 1);
    assert.equal(sendErrors(), 0);
    assert.equal(clock.pending(), 0);
  });

  it('gives a frame up after the reference retry span and counts the failure once', async () => {
    const { clock, radio, router, message, sendErrors } = setup(Infinity);
    await router.send(message());
    await clock.tick(60_000);
    assert.equal(radio.written.length, 0);
    assert.equal(sendErrors(), 1);
    assert.ok(radio.tries.at(-1)! <= 16_000, `last try at ${radio.tries.at(-1)}`);
    assert.equal(clock.pending(), 0);
  });

  it('gives up what waits for a peer that goes away, as PEER_LOST', async () => {
    const { clock, radio, router, message, sendErrors } = setup(Infinity);
    await router.send(message());
    await router.send(message());
    await clock.tick(0);
    radio.emit('peer', { ...PEER, connected: false, radioId: 'r1', change: 'down' });
    await clock.tick(10_000);
    assert.equal(sendErrors('PEER_LOST'), 2);
    assert.equal(radio.tries.length, 1);
    assert.equal(clock.pending(), 0);
  });

  it('drops parked writes on stop: nothing is written afterwards', async () => {
    const { clock, radio, router, message, writable } = setup(1);
    await router.send(message());
    await clock.tick(0);
    assert.equal(radio.tries.length, 1);
    router.stop();
    writable(1);
    await clock.tick(10_000);
    assert.equal(radio.tries.length, 1);
    assert.equal(radio.written.length, 0);
  });

  it('parks at most 4096 writes; beyond that a full queue is a failure at once', async () => {
    const { clock, router, message, sendErrors, metrics } = setup(Infinity);
    for (let i = 0; i < 4100; i++) await router.send(message());
    await clock.tick(0);
    assert.equal(sendErrors(), 4);
    assert.match(metrics.renderPrometheus(), /clawling_gateway_parked_writes 4096/);
    router.stop();
  });
});
