/**
 * Faults a site throws at the gateway: the broker stopped and restarted mid-flow (CLAWLING_TEST_BROKER_OUTAGE_MS,
 * 3 s here; the Mosquitto suite holds it for the 30 s), and a radio whose peers all disappear and return.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ackTarget, isAck } from '../../lib/mesh/ack';
import { createMessage, type MeshMessage } from '../../lib/mesh/message';
import { MessageId } from '../../lib/mesh/message-id';
import type { VirtualPeer } from '../../gateway/radios';
import { Recorder, eventually, startBroker, type TestBroker } from './support/broker';
import { BASE, startGateway, type Running } from './support/gateway';

const OUTAGE_MS = Number(process.env.CLAWLING_TEST_BROKER_OUTAGE_MS ?? 3000);

function message(from: VirtualPeer, to: string, content: string): MeshMessage {
  return createMessage({ id: MessageId.random(), sender: from.address, recipient: to, app_id: 'faults', priority: 'medium', ttl: 8, hop_count: 0, timestamp: BigInt(Date.now()), content });
}

function ackedIds(peer: VirtualPeer): Set<string> {
  return new Set(peer.receipts().flatMap((r) => (r.message && isAck(r.message) ? [ackTarget(r.message)!] : [])));
}

describe('gateway faults', function () {
  this.timeout(OUTAGE_MS + 30000);
  let broker: TestBroker;
  let gw: Running;

  beforeEach(async () => {
    broker = await startBroker();
    gw = await startGateway(broker);
  });
  afterEach(async () => {
    await gw.stop();
    await broker.stop();
    fs.rmSync(gw.dir, { recursive: true, force: true });
  });

  it(`loses nothing when the broker is stopped for ${OUTAGE_MS} ms mid-flow, and publishes in order`, async () => {
    const alice = gw.peer('sim0', 'alice');
    const sent: MeshMessage[] = [];
    const flowMs = OUTAGE_MS + 1000;
    const every = 10;
    const flow = (async () => {
      for (let t = 0; t < flowMs; t += every) {
        const m = message(alice, gw.gateway.info.address, `reading ${sent.length}`);
        sent.push(m);
        await alice.send(m);
        await new Promise((r) => setTimeout(r, every));
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    await broker.stop();
    const downAt = Date.now();
    await eventually(() => gw.gateway.mqtt?.connected === false, 5000, 'gateway saw the outage');
    await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - downAt))));
    const queuedDuringOutage = gw.gateway.snapshot().queues.mqtt!.depth;
    assert.ok(queuedDuringOutage > 0, 'messages waited in the outbox');
    await broker.restart();
    await flow;
    await eventually(() => ackedIds(alice).size === sent.length, 15000, 'every message ACKed');

    const ids = broker.published.filter((p) => p.topic === `${BASE}/messages`).map((p) => (JSON.parse(p.payload.toString()) as { id: string }).id);
    const firsts = [...new Set(ids)];
    assert.deepEqual(firsts, sent.map((m) => m.id.toString()), 'all of them, first arrivals in the order received');
    assert.ok(ids.length - firsts.length <= gw.gateway.config.mqtt.inflight, 'repeats only from the in-flight window');
    // The retained state came back with the broker (its retained store was wiped by the restart).
    const late = await Recorder.connect(broker.url, [`${BASE}/bridge/state`]);
    await late.until(() => late.on(`${BASE}/bridge/state`).some((m) => m.payload.toString() === 'online'), 5000, 'online again');
    await late.close();
  });

  it('carries on when a radio loses every peer and gets them back', async () => {
    const rec = await Recorder.connect(broker.url, [`${BASE}/radios/#`, `${BASE}/send/result`]);
    const peers = ['alice', 'bob'].map((id) => gw.peer('sim0', id));
    for (const p of peers) p.vanish();
    await eventually(() => gw.gateway.router.neighbours().every((n) => n.radioId !== 'sim0'), 5000, 'sim0 has no neighbours');
    await rec.until(() => ['alice', 'bob'].every((id) => rec.json<{ connected: boolean }>(`${BASE}/radios/sim0/peers/${id}`).at(-1)?.connected === false), 5000, 'peers down on MQTT');
    // The other radio is unaffected meanwhile.
    const carol = gw.peer('sim1', 'carol');
    const m1 = message(carol, gw.gateway.info.address, 'sim1 still here');
    await carol.send(m1);
    await eventually(() => ackedIds(carol).has(m1.id.toString()), 5000, 'carol ACKed');

    for (const p of peers) p.appear();
    await eventually(() => gw.gateway.router.neighbours().filter((n) => n.radioId === 'sim0').length === 2, 5000, 'sim0 neighbours back');
    const alice = peers[0]!;
    const m2 = message(alice, gw.gateway.info.address, 'back');
    await alice.send(m2);
    await eventually(() => ackedIds(alice).has(m2.id.toString()), 5000, 'alice ACKed after the return');
    await rec.client.publishAsync(`${BASE}/send`, JSON.stringify({ recipient: alice.address, content: 'welcome back', request_id: 'wb' }), { qos: 1 });
    await alice.waitFor((r) => r.message?.content === 'welcome back');
    await rec.until(() => rec.json<{ request_id: string; status: string }>(`${BASE}/send/result`).some((r) => r.request_id === 'wb' && r.status === 'acked'), 5000, 'acked');
    await rec.close();
  });
});
