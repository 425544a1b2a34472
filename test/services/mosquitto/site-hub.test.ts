/**
 * Three gateways of one site on one hub account (docs/scaling.md): a real Mosquitto, a real dev hub, the three
 * gateways with overlapping simulated radios. A mesh message heard by two or three gateways is on MQTT once per
 * gateway (consumers dedup by `id`) and in the hub once (the `msg-` id every gateway computes the same, merged by the
 * hub's inbox). A hub message goes into the mesh from every gateway of the account under the one mesh id they all
 * derive from it, so the recipient, deduplicating by id as every mesh node does, takes it once and re-ACKs the copies.
 */
import assert from 'node:assert/strict';
import type { DevHub } from '../../../devhub';
import type { HubBridge } from '../../../gateway/extensions/hub-bridge/hub-bridge';
import { hubMessageIdFor, meshIdForHubMessage } from '../../../gateway/extensions/hub-bridge/message-ids';
import { isAck } from '../../../lib/mesh/ack';
import { Deduplicator } from '../../../lib/mesh/dedup';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { Recorder, eventually } from '../../gateway/support/broker';
import { CHAT, GATEWAY_USER, Tester, hubSection, startHub } from '../../gateway/extensions/hub-bridge/support/hub-site';
import { GATEWAY_IDS, SITE_NODES, startThreeGatewaySite, type NodeName, type ThreeGatewaySite } from './three-gateways';

const BROADCAST = 'off1broadcast';

function reading(from: string, n: number): MeshMessage {
  return createMessage({
    id: MessageId.random(),
    sender: from,
    recipient: BROADCAST,
    app_id: 'sensors',
    priority: 'medium',
    ttl: 1,
    hop_count: 0,
    timestamp: BigInt(Date.now()),
    content: `reading ${n}`,
  });
}

describe('three gateways on one hub account, on Mosquitto: exactly once into the hub, once into the mesh', function () {
  this.timeout(120000);
  let hub: DevHub;
  let tester: Tester;
  let site: ThreeGatewaySite;
  let rec: Recorder;
  const uplinks: Array<{ device: string; messageId: string }> = [];
  const bridge = (id: (typeof GATEWAY_IDS)[number]): HubBridge => site.byId(id).gateway.extension<HubBridge>('hub-bridge')!;

  before(async () => {
    hub = await startHub();
    hub.admin.on('uplink', (u: { event: string; user_id: string; device_id: string; frame?: Record<string, unknown> }) => {
      const messageId = (u.frame?.payload as { message_id?: string } | undefined)?.message_id;
      if (u.event === 'message.send' && u.user_id === GATEWAY_USER && messageId !== undefined) uplinks.push({ device: u.device_id, messageId });
    });
    tester = await Tester.connect(hub);
    site = await startThreeGatewaySite('site-hub-', (id) => ({
      // Every gateway bridges what it hears (recipient '*'), and the chat goes to alice, whom all three hear.
      hub: hubSection(hub, { mesh_to_hub: [{ chat_id: CHAT, recipient: '*', label: 'none' }], hub_to_mesh: [{ chat_id: CHAT, recipient: SITE_NODES.alice.address }], device_id: `site-${id}` }),
      mqtt: { site: { id: 'home' }, homeassistant: { enabled: false } },
    }));
    for (const id of GATEWAY_IDS) await eventually(() => bridge(id).client.state === 'connected', 10000, `${id} on the hub`);
    rec = await Recorder.connect(site.mq.url, ['clawling/+/messages'], site.auth);
  });
  after(async () => {
    await rec?.close();
    await site?.stop();
    await tester?.stop();
    await hub?.stop();
  });

  it('brings each of 300 mesh messages heard by one to three gateways to MQTT from each and to the hub exactly once', async () => {
    const N = 300;
    const names: NodeName[] = ['alice', 'bob', 'carol'];
    const sent: Array<{ message: MeshMessage; node: NodeName }> = [];
    for (let i = 0; i < N; i++) {
      const node = names[i % names.length]!;
      const { address, radio, heardBy } = SITE_NODES[node];
      const message = reading(address, i);
      sent.push({ message, node });
      // One transmission of the node, heard by every gateway in its range.
      await Promise.all(heardBy.map((g) => site.byId(g).peer(radio, node).send(message)));
    }
    const ids = new Set(sent.map((s) => s.message.id.toString()));
    const onMqtt = (): Array<{ id: string; gateway: string }> =>
      rec.messages.map((m) => JSON.parse(m.payload.toString()) as { id: string; gateway: string }).filter((m) => ids.has(m.id));
    const hubIds = new Set(sent.map((s) => hubMessageIdFor(s.message.id)));
    const expectedMqtt = sent.reduce((n, s) => n + SITE_NODES[s.node].heardBy.length, 0);
    await rec.until(() => onMqtt().length >= expectedMqtt, 30000, `${expectedMqtt} publishes`);
    await eventually(() => tester.messages.filter((m) => hubIds.has(m.messageId)).length >= N, 30000, `${N} messages at the tester`);
    // Every gateway's hub send answered: any second copy would have been stored by now.
    for (const id of GATEWAY_IDS) await eventually(() => bridge(id).client.stats().outbox === 0, 10000, `${id} hub outbox empty`);
    await tester.client.idle();

    // MQTT: each gateway that heard a message published it once; consumers merge them by id.
    const mqtt = onMqtt();
    for (const { message, node } of sent) {
      const copies = mqtt.filter((m) => m.id === message.id.toString()).map((m) => m.gateway).sort();
      assert.deepEqual(copies, [...SITE_NODES[node].heardBy].sort(), `${node}'s message on MQTT from each gateway that heard it`);
    }
    assert.equal(new Set(mqtt.map((m) => m.id)).size, N, 'every message on MQTT');

    // The hub: one inbox row and one message at the tester per mesh message, whatever the number of gateways.
    const rows = hub.admin.inbox('usr_tester').filter((r) => hubIds.has(r.message_id));
    assert.equal(rows.length, N, 'one inbox row per mesh message');
    for (const hubId of hubIds) assert.equal(tester.byId(hubId).length, 1, `${hubId} once at the tester`);
    const sends = uplinks.filter((u) => hubIds.has(u.messageId));
    assert.equal(new Set(sends.map((u) => u.device)).size, 3, 'all three gateways sent to the hub');

    // Receptions: the frames the driver gave the gateways' radios (one per gateway in range of the node).
    console.log(
      `      ${N} mesh messages, three gateways: received by gateways ${expectedMqtt} (${(expectedMqtt / N).toFixed(2)} per message), ` +
        `on MQTT ${mqtt.length} (duplicates ${mqtt.length - N}, merged by id), hub sends ${sends.length} (duplicates ${sends.length - N}), ` +
        `hub inbox rows ${rows.length} (duplicates ${rows.length - N}), at the hub user ${N} (duplicates 0)`,
    );
  });

  it('puts each hub message into the mesh under one id from every gateway; the recipient takes it once and ACKs each copy', async () => {
    const N = 20;
    for (const id of GATEWAY_IDS) site.byId(id).peer('sim0', 'alice').clearReceived();
    const texts = Array.from({ length: N }, (_, i) => `to alice ${i}`);
    for (const text of texts) tester.client.send({ chatId: CHAT, text });
    const alices = GATEWAY_IDS.map((id) => site.byId(id).peer('sim0', 'alice'));
    const frames = (): MeshMessage[] => alices.flatMap((a) => a.received()).filter((m) => !isAck(m) && texts.includes(m.content));
    await eventually(() => frames().length >= N * 3, 30000, 'every gateway sent every hub message');
    for (const id of GATEWAY_IDS) await bridge(id).whenToMeshEmpty();

    // alice as one mesh node: it deduplicates by id (lib/mesh/dedup.ts, the reference's rule) whatever gateway sent.
    const node = new Deduplicator();
    const delivered = frames().filter((m) => !node.check(m.id.toString()));
    assert.deepEqual(delivered.map((m) => m.content).sort(), [...texts].sort(), 'each hub message delivered once');
    for (const m of frames()) {
      const hubId = m.metadata.get('hub_message_id') ?? '';
      assert.equal(m.id.toString(), meshIdForHubMessage(hubId, SITE_NODES.alice.address).toString(), 'the id every gateway derives');
    }
    // Each gateway's to-mesh job finished: the recipient's re-ACK of a duplicate settles the copy of that gateway.
    const failed = site.gateways.map((g) => (g.gateway.snapshot().counters['clawling_gateway_hub_to_mesh_failed_total'] as number | Record<string, number> | undefined) ?? 0);
    assert.deepEqual(failed.map((f) => (typeof f === 'number' ? f : Object.values(f).reduce((a, b) => a + b, 0))), [0, 0, 0]);
    console.log(`      ${N} hub messages, three gateways on one account: frames on the air ${frames().length} (${frames().length - N} copies under the same id), delivered at the node ${delivered.length}`);
  });
});
