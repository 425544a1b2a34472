/**
 * Admission control through the whole gateway (issue 11 §2): with the broker away, messages stay taken and unACKed
 * until their PUBACK; past `mesh.max_pending_deliveries` the gateway turns new ones away, and the senders keep them.
 * When the broker returns, what was taken is published and ACKed, the senders' retries are taken, and every
 * message ends up at the broker and ACKed: nothing ACKed is lost, nothing turned away is lost either.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ackTarget, isAck } from '../../lib/mesh/ack';
import { createMessage, type MeshMessage } from '../../lib/mesh/message';
import { MessageId } from '../../lib/mesh/message-id';
import type { VirtualPeer } from '../../gateway/radios';
import { eventually, startBroker, type TestBroker } from './support/broker';
import { BASE, startGateway, type Running } from './support/gateway';

const BOUND = 16;
const SENT = 40;

function message(from: VirtualPeer, to: string, n: number): MeshMessage {
  return createMessage({ id: MessageId.random(), sender: from.address, recipient: to, app_id: 'admission', priority: 'medium', ttl: 8, hop_count: 0, timestamp: BigInt(Date.now()), content: `reading ${n}` });
}

function ackedIds(peer: VirtualPeer): Set<string> {
  return new Set(peer.receipts().flatMap((r) => (r.message && isAck(r.message) ? [ackTarget(r.message)!] : [])));
}

describe('gateway admission control', function () {
  this.timeout(30000);
  let broker: TestBroker;
  let gw: Running;

  beforeEach(async () => {
    broker = await startBroker();
    await broker.stop();
    gw = await startGateway(broker, { mesh: { max_pending_deliveries: BOUND } });
  });
  afterEach(async () => {
    await gw.stop();
    await broker.stop();
    fs.rmSync(gw.dir, { recursive: true, force: true });
  });

  it('holds at most the bound while the broker is away, and every message arrives once the senders retry', async () => {
    const alice = gw.peer('sim0', 'alice');
    const sent = Array.from({ length: SENT }, (_, n) => message(alice, gw.gateway.info.address, n));
    for (const m of sent) await alice.send(m);
    const metrics = (): Record<string, unknown> => gw.gateway.metrics.snapshot();
    await eventually(() => metrics()['clawling_gateway_pending_deliveries'] === BOUND, 5000, 'the bound reached');
    await eventually(() => (metrics()['clawling_gateway_frames_rejected_total'] as Record<string, number> | undefined)?.['reason=GATEWAY_BUSY'] === SENT - BOUND, 5000, 'the rest turned away');
    assert.equal(gw.gateway.snapshot().queues.mqtt!.depth, BOUND, 'only what was taken waits in the outbox');
    assert.equal(ackedIds(alice).size, 0, 'nothing ACKed before its PUBACK');

    await broker.restart();
    await eventually(() => ackedIds(alice).size === BOUND, 10000, 'what was taken ACKed');
    // Alice retries whatever has no ACK, as a mesh sender does, until everything is ACKed.
    for (let round = 0; ackedIds(alice).size < SENT; round++) {
      assert.ok(round < 20, `still unACKed after ${round} rounds of retries`);
      const acked = ackedIds(alice);
      for (const m of sent) if (!acked.has(m.id.toString())) await alice.send(m);
      await new Promise((r) => setTimeout(r, 200));
    }
    const published = new Set(broker.published.filter((p) => p.topic === `${BASE}/messages`).map((p) => (JSON.parse(p.payload.toString()) as { id: string }).id));
    assert.deepEqual([...published].sort(), sent.map((m) => m.id.toString()).sort(), 'every message at the broker');
    assert.equal(metrics()['clawling_gateway_pending_deliveries'], 0);
  });
});
