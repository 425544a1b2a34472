/**
 * Several gateways, one home (issue: Home Assistant sees the mesh, §5): three gateways on one real Mosquitto with
 * overlapping simulated radios. A node heard by two or three of them is one Home Assistant device whose ids come
 * from the node, and it stays available and connected while any gateway that hears it is up.
 */
import assert from 'node:assert/strict';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { discoveryProblems } from '../../support/ha-discovery-rules';
import { Recorder } from '../../gateway/support/broker';
import type { Running } from '../../gateway/support/gateway';
import { startThreeGatewaySite, type ThreeGatewaySite } from './three-gateways';

interface Discovery {
  device: { identifiers: string[] };
  availability: Array<{ topic: string }>;
  availability_mode?: string;
}

describe('three gateways, one site, on Mosquitto: one Home Assistant device per mesh node', function () {
  this.timeout(60000);
  let site: ThreeGatewaySite;
  let gateways: Running[];
  let rec: Recorder;
  let mq: ThreeGatewaySite['mq'];
  let auth: ThreeGatewaySite['auth'];

  before(async () => {
    site = await startThreeGatewaySite('ha-site-');
    ({ gateways, mq, auth } = site);
  });
  after(async () => {
    await rec?.close();
    await site.stop();
  });

  it('makes one device per node, available through every gateway that hears it, and keeps it when one gateway stops', async () => {
    const [g1, g2] = gateways as [Running, Running, Running];
    const alice = g1.peer('sim0', 'alice').address;
    const carol = g2.peer('sim1', 'carol').address;
    const bob = g1.peer('sim0', 'bob').address;
    assert.equal(g2.peer('sim0', 'alice').address, alice, 'one node, heard by three gateways');

    // One reading from alice, heard by all three gateways (the same frame on three radios).
    const reading: MeshMessage = createMessage({ id: MessageId.random(), sender: alice, recipient: 'off1broadcast', app_id: 'sensors', priority: 'medium', ttl: 1, hop_count: 0, timestamp: BigInt(Date.now()), content: 'temperature 20.5 °C' });
    for (const g of gateways) await g.peer('sim0', 'alice').send(reading);

    rec = await Recorder.connect(mq.url, ['homeassistant/device/#', 'clawling/nodes/#'], auth);
    const discovery = (address: string): Discovery | undefined => {
      const all = rec.on(`homeassistant/device/mesh_${address}/config`).filter((m) => m.payload.length > 0);
      return all.length ? (JSON.parse(all[all.length - 1]!.payload.toString()) as Discovery) : undefined;
    };
    const bridges = (address: string): string[] => (discovery(address)?.availability ?? []).map((a) => a.topic);
    await rec.until(() => bridges(alice).length === 3 && bridges(carol).length === 2 && bridges(bob).length === 1, 15000, 'discovery naming every gateway that hears each node');
    assert.deepEqual(bridges(alice), ['clawling/gw1/bridge/state', 'clawling/gw2/bridge/state', 'clawling/gw3/bridge/state']);
    assert.deepEqual(bridges(carol), ['clawling/gw2/bridge/state', 'clawling/gw3/bridge/state']);
    assert.equal(discovery(alice)!.availability_mode, 'any');
    assert.deepEqual(discovery(alice)!.device.identifiers, [`mesh_${alice}`], 'ids from the node, never the gateway');
    assert.deepEqual(discoveryProblems(rec.messages), []);
    const gatewayDevices = rec.messages.filter((m) => /^homeassistant\/device\/clawling_gw\d\/config$/.test(m.topic)).map((m) => m.topic);
    assert.deepEqual([...new Set(gatewayDevices)].sort(), ['homeassistant/device/clawling_gw1/config', 'homeassistant/device/clawling_gw2/config', 'homeassistant/device/clawling_gw3/config']);
    const views = rec.messages.filter((m) => m.topic.startsWith(`clawling/nodes/${alice}/via/`)).map((m) => m.topic);
    assert.equal(new Set(views).size, 3, 'each gateway keeps its own view of the node');

    // gw1 stops: alice is still connected (gw2 and gw3 hear her); bob, heard by gw1 only, loses his only gateway.
    const [aliceBridges, bobBridges] = [bridges(alice), bridges(bob)];
    rec.messages.length = 0;
    await g1.stop();
    const state = (address: string) => rec.json<{ connected: boolean; gateway: string }>(`clawling/nodes/${address}/state`);
    await rec.until(() => state(alice).some((s) => s.gateway !== 'gw1'), 10000, 'a state of alice from a gateway still up');
    assert.ok(state(alice).filter((s) => s.gateway !== 'gw1').every((s) => s.connected));
    // Home Assistant computes availability from the retained bridge states: gw1 offline, gw2 and gw3 online.
    const late = await Recorder.connect(mq.url, ['clawling/+/bridge/state'], auth);
    await late.until(() => late.messages.length >= 3, 5000, 'three retained bridge states');
    const online = new Map(late.messages.map((m) => [m.topic, m.payload.toString()]));
    await late.close();
    assert.equal(online.get('clawling/gw1/bridge/state'), 'offline');
    // Home Assistant's rule for availability_mode any: available while one listed topic says online.
    assert.equal(aliceBridges.some((t) => online.get(t) === 'online'), true, 'alice stays available');
    assert.equal(bobBridges.some((t) => online.get(t) === 'online'), false, 'bob, heard by gw1 only, is unavailable');
  });
});
