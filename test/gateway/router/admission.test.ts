/**
 * Admission control (issue 11 §2): past `mesh.max_pending_deliveries` messages taken and not yet ACKed, a new
 * message that asks for an ACK is turned away unACKed, so its sender keeps it and retries; what was taken is ACKed as
 * before once its claims settle, and a place freed takes the retry.
 */
import assert from 'node:assert/strict';
import { ackTarget, isAck } from '../../../lib/mesh/ack';
import { decodeFrame } from '../../../lib/mesh/frame';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import type { FrameRejectedEvent } from '../../../gateway/bus';
import type { RadioPeer } from '../../../gateway/radios/radio';
import { newAddress, routerOn } from './support';

const BOUND = 16;
const peer: RadioPeer = { id: 'p', address: newAddress(), wireVersions: [1], connected: true };

/** A router whose one extension claims every delivery and settles only when the test says so. */
function held() {
  const r = routerOn([peer], 0, `radios: []\nmesh:\n  max_pending_deliveries: ${BOUND}\n`);
  const taken: Array<{ id: string; duplicate: boolean }> = [];
  const settles = new Map<string, Array<(delivered: boolean) => void>>();
  const rejected: FrameRejectedEvent[] = [];
  r.bus.on('meshMessage', taken, (e) => {
    taken.push({ id: e.id, duplicate: e.duplicate });
    if (e.delivery) settles.set(e.id, [...(settles.get(e.id) ?? []), e.delivery.claim('test')]);
  });
  r.bus.on('frameRejected', rejected, (e) => {
    rejected.push(e);
  });
  const toGateway = (requiresAck = true): MeshMessage =>
    createMessage({ id: MessageId.random(), sender: peer.address!, recipient: r.address, app_id: 'test', priority: 'medium', ttl: 8, hop_count: 0, timestamp: 1n, content: 'reading', requires_ack: requiresAck });
  const acked = (): string[] =>
    r.radio.written.map((f) => decodeFrame(f)).filter((m) => isAck(m)).map((m) => ackTarget(m)!);
  const settle = (m: MeshMessage, delivered = true): void => {
    for (const s of settles.get(m.id.toString()) ?? []) s(delivered);
  };
  const pending = (): number => r.metrics.snapshot()['clawling_gateway_pending_deliveries'] as number;
  return { ...r, taken, rejected, toGateway, acked, settle, pending };
}

describe('MeshRouter: admission control', () => {
  it('turns away, unACKed, what arrives past the bound, and takes the retry once a place is free', () => {
    const h = held();
    const messages = Array.from({ length: BOUND + 4 }, () => h.toGateway());
    for (const m of messages) h.radio.deliver(peer, m);
    const ids = messages.map((m) => m.id.toString());
    assert.deepEqual(h.taken.map((t) => t.id), ids.slice(0, BOUND));
    assert.deepEqual(h.rejected.map((e) => [e.code, e.messageId]), ids.slice(BOUND).map((id) => ['GATEWAY_BUSY', id]));
    assert.equal(h.pending(), BOUND);
    assert.deepEqual(h.acked(), [], 'nothing is ACKed before its claims settle');

    h.settle(messages[0]!);
    h.settle(messages[1]!);
    assert.deepEqual(h.acked(), ids.slice(0, 2));
    assert.equal(h.pending(), BOUND - 2);

    // The senders retry what was turned away: two places were freed, so two are taken now, as new messages.
    for (const m of messages.slice(BOUND)) h.radio.deliver(peer, m);
    assert.deepEqual(h.taken.slice(BOUND).map((t) => [t.id, t.duplicate]), ids.slice(BOUND, BOUND + 2).map((id) => [id, false]));
    assert.equal(h.rejected.length, 4 + 2);
    for (const m of messages.slice(2)) h.settle(m);
    assert.equal(h.pending(), 0);
    assert.deepEqual([...h.acked()].sort(), ids.slice(0, BOUND + 2).sort());
    h.router.stop();
  });

  it('turns away a duplicate while full; its original is still ACKed once when it settles', () => {
    const h = held();
    const messages = Array.from({ length: BOUND }, () => h.toGateway());
    for (const m of messages) h.radio.deliver(peer, m);
    h.radio.deliver(peer, messages[0]!);
    assert.equal(h.taken.length, BOUND);
    assert.deepEqual(h.rejected.map((e) => e.messageId), [messages[0]!.id.toString()]);
    h.settle(messages[0]!);
    assert.deepEqual(h.acked(), [messages[0]!.id.toString()]);
    // With room again, the next copy is the duplicate it is, and is ACKed again (its first ACK may have been lost).
    h.radio.deliver(peer, messages[0]!);
    assert.deepEqual(h.taken.at(-1), { id: messages[0]!.id.toString(), duplicate: true });
    h.settle(messages[0]!);
    assert.deepEqual(h.acked(), [messages[0]!.id.toString(), messages[0]!.id.toString()]);
    h.router.stop();
  });

  it('still takes a message that asks for no ACK (its sender would not retry it)', () => {
    const h = held();
    for (let i = 0; i < BOUND; i++) h.radio.deliver(peer, h.toGateway());
    const fireAndForget = h.toGateway(false);
    h.radio.deliver(peer, fireAndForget);
    assert.equal(h.taken.at(-1)?.id, fireAndForget.id.toString());
    assert.equal(h.rejected.length, 0);
    h.router.stop();
  });

  it('frees the place of a delivery that failed, and forgets its id so the resend is new', () => {
    const h = held();
    const messages = Array.from({ length: BOUND }, () => h.toGateway());
    for (const m of messages) h.radio.deliver(peer, m);
    h.settle(messages[3]!, false);
    assert.equal(h.pending(), BOUND - 1);
    h.radio.deliver(peer, messages[3]!);
    assert.deepEqual(h.taken.at(-1), { id: messages[3]!.id.toString(), duplicate: false });
    assert.equal(h.rejected.length, 0);
    h.router.stop();
  });

  it('counts what it turns away by reason', () => {
    const h = held();
    for (let i = 0; i < BOUND + 3; i++) h.radio.deliver(peer, h.toGateway());
    assert.deepEqual(h.metrics.snapshot()['clawling_gateway_frames_rejected_total'], { 'reason=GATEWAY_BUSY': 3 });
    h.router.stop();
  });
});
