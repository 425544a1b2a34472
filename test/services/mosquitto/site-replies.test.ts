/**
 * `replies_to_sender` on a site (docs/hub-bridge.md): three gateways on one hub account, a real Mosquitto and dev hub.
 * bob is heard by gw1 alone, so gw1 alone bridges his message; a hub reply to it must reach bob only. gw2 and gw3 did
 * not bridge it and must take no part, rather than fall back to their rule's fixed recipient (carol).
 */
import assert from 'node:assert/strict';
import type { DevHub } from '../../../devhub';
import type { HubBridge } from '../../../gateway/extensions/hub-bridge/hub-bridge';
import { hubMessageIdFor } from '../../../gateway/extensions/hub-bridge/message-ids';
import { isAck } from '../../../lib/mesh/ack';
import { createMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { eventually } from '../../gateway/support/broker';
import { CHAT, Tester, hubSection, startHub } from '../../gateway/extensions/hub-bridge/support/hub-site';
import { GATEWAY_IDS, SITE_NODES, startThreeGatewaySite, type ThreeGatewaySite } from './three-gateways';

describe('three gateways on one hub account: a reply to a bridged message reaches its sender only', function () {
  this.timeout(120000);
  let hub: DevHub;
  let tester: Tester;
  let site: ThreeGatewaySite;
  const bridge = (id: (typeof GATEWAY_IDS)[number]): HubBridge => site.byId(id).gateway.extension<HubBridge>('hub-bridge')!;

  before(async () => {
    hub = await startHub();
    tester = await Tester.connect(hub);
    site = await startThreeGatewaySite('site-replies-', (id) => ({
      hub: hubSection(hub, {
        mesh_to_hub: [{ chat_id: CHAT, recipient: '*', label: 'none' }],
        hub_to_mesh: [{ chat_id: CHAT, recipient: SITE_NODES.carol.address, replies_to_sender: true }],
        device_id: `site-${id}`,
      }),
      mqtt: { site: { id: 'home' }, homeassistant: { enabled: false } },
    }));
    for (const id of GATEWAY_IDS) await eventually(() => bridge(id).client.state === 'connected', 10000, `${id} on the hub`);
  });
  after(async () => {
    await site?.stop();
    await tester?.stop();
    await hub?.stop();
  });

  it('sends the reply to bob from gw1, and nothing to carol from gw2 or gw3', async () => {
    const bob = site.byId('gw1').peer('sim0', 'bob');
    const id = MessageId.random();
    await bob.send(createMessage({ id, sender: bob.address, recipient: 'off1broadcast', app_id: 'sensors', priority: 'medium', ttl: 1, hop_count: 0, timestamp: BigInt(Date.now()), content: 'door open' }));
    const hubId = hubMessageIdFor(id);
    await tester.waitFor((m) => m.messageId === hubId, "bob's message in the hub");
    const carols = (['gw2', 'gw3'] as const).map((g) => site.byId(g).peer('sim1', 'carol'));
    for (const c of carols) c.clearReceived();
    tester.client.send({ chatId: CHAT, text: 'closing it', replyTo: { messageId: hubId } });
    await eventually(() => bob.received().some((m) => !isAck(m) && m.content === 'closing it'), 15000, 'the reply at bob');
    for (const g of GATEWAY_IDS) await bridge(g).whenToMeshEmpty();
    // A plain chat message afterwards still goes to carol from gw2 and gw3: the rule itself is untouched.
    tester.client.send({ chatId: CHAT, text: 'hello carol' });
    await eventually(() => carols.every((c) => c.received().some((m) => m.content === 'hello carol')), 15000, 'the plain message at carol');
    for (const c of carols) assert.equal(c.received().some((m) => m.content === 'closing it'), false, 'carol never got the reply');
    const skipped = (['gw2', 'gw3'] as const).map((g) => (site.byId(g).gateway.snapshot().counters['clawling_gateway_hub_skipped_total'] as Record<string, number> | undefined)?.['reason=reply_bridged_elsewhere'] ?? 0);
    assert.deepEqual(skipped, [1, 1]);
  });
});
