/**
 * Every Home Assistant entity the gateway announces, on a real Mosquitto 2 with a password: a node's event entity and
 * device triggers firing on each message (a repeated text too), its send-result events, its diagnostics (off by
 * default) and its battery and load from its advertisement, the gateway device's problem sensor and controls, and
 * the re-announcement on Home Assistant's birth message. The discovery rules of docs/home-assistant.md are checked
 * over every message the test saw.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ackTarget, isAck } from '../../../lib/mesh/ack';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import type { VirtualPeer } from '../../../gateway/radios';
import { discoveryProblems } from '../../support/ha-discovery-rules';
import { Recorder, eventually } from '../../gateway/support/broker';
import { BASE, startGateway, tempDir, type Running } from '../../gateway/support/gateway';
import { Mosquitto, PASSWORD, USER } from './mosquitto';

type Components = Record<string, Record<string, unknown>>;

function message(from: VirtualPeer, to: string, content: string): MeshMessage {
  return createMessage({ id: MessageId.random(), sender: from.address, recipient: to, app_id: 'kitchen.sensor', priority: 'medium', ttl: 8, hop_count: 0, timestamp: BigInt(Date.now()), content });
}

describe('Home Assistant entities on a real Mosquitto', function () {
  this.timeout(60_000);
  let dir: string;
  let mq: Mosquitto;
  let gw: Running;
  let rec: Recorder;
  const auth = { username: USER, password: PASSWORD, protocolVersion: 5 as const };

  before(async () => {
    dir = tempDir('ha-entities-');
    mq = await Mosquitto.start(dir);
    const passwordFile = path.join(dir, 'mqtt-password');
    fs.writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
    rec = await Recorder.connect(mq.url, ['homeassistant/#', 'clawling/nodes/#', `${BASE}/bridge/#`], auth);
    gw = await startGateway(
      undefined,
      {
        mqtt: { enabled: true, url: mq.url, username: USER, password_file: passwordFile, reconnect_min_ms: 200 },
        radios: [{ id: 'sim0', kind: 'simulated', peers: [{ id: 'alice', wire_versions: [1], rssi: -58, battery: 64, load: 3 }, { id: 'bob', wire_versions: [] }] }],
      },
      tempDir('ha-entities-gw-'),
    );
    await eventually(() => gw.gateway.mqtt?.connected === true, 10_000, `the gateway connected\n${mq.log}`);
  });
  after(async () => {
    await rec?.close();
    await gw?.stop();
    if (gw) fs.rmSync(gw.dir, { recursive: true, force: true });
    await mq?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const device = (topic: string): Components => (JSON.parse(rec.on(topic).at(-1)!.payload.toString()) as { components: Components }).components;

  it("fires the node's event entity and its trigger on every message, a repeated text too", async () => {
    const alice = gw.peer('sim0', 'alice');
    const events = (): Array<{ event_type: string; trigger: string; content?: string }> => rec.json(`clawling/nodes/${alice.address}/event`);
    for (let i = 0; i < 2; i++) {
      const m = message(alice, gw.gateway.info.address, 'door open');
      await alice.send(m);
      await alice.waitFor((r) => r.message !== undefined && isAck(r.message) && ackTarget(r.message) === m.id.toString());
    }
    await rec.until(() => events().length === 2, 5000, 'two events');
    assert.deepEqual(events().map((e) => [e.event_type, e.trigger]), [['app_kitchen_sensor', 'message_received'], ['app_kitchen_sensor', 'message_received']]);
    assert.ok(rec.on(`clawling/nodes/${alice.address}/event`).every((m) => !m.retain), 'events are not retained');
    const topic = `homeassistant/device/mesh_${alice.address}/config`;
    await rec.until(() => rec.on(topic).some((m) => m.payload.toString().includes('app_kitchen_sensor')), 5000, 'the device with the app event type');
    const c = device(topic);
    assert.deepEqual(c.message!.event_types, ['message', 'app_kitchen_sensor']);
    assert.deepEqual([c.message_received!.platform, c.message_received!.type, c.message_received!.subtype], ['device_automation', 'message', 'received']);
  });

  it('reports a notify send as a send-result event and an acked trigger', async () => {
    const alice = gw.peer('sim0', 'alice');
    const topic = `homeassistant/device/mesh_${alice.address}/config`;
    await rec.until(() => rec.on(topic).length > 0, 5000, "alice's device");
    const c = device(topic);
    await rec.client.publishAsync(c.send!.command_topic as string, 'lights off', { qos: 1 });
    await alice.waitFor((r) => r.message?.content === 'lights off');
    const results = (): Array<{ event_type: string; trigger: string }> => rec.json(`clawling/nodes/${alice.address}/send/result`);
    await rec.until(() => results().some((r) => r.event_type === 'acked'), 5000, 'the acked event');
    const acked = results().find((r) => r.event_type === 'acked')!;
    assert.equal(acked.trigger, c.send_acked!.payload, 'the payload the send_acked trigger waits for');
    assert.ok((c.send_result!.event_types as string[]).includes('acked'));
  });

  it('announces diagnostics off by default, and battery and load from the advertisement where the node reports them', async () => {
    const alice = gw.peer('sim0', 'alice');
    const bob = gw.peer('sim0', 'bob');
    const aliceTopic = `homeassistant/device/mesh_${alice.address}/config`;
    const bobTopic = `homeassistant/device/mesh_${bob.address}/config`;
    await rec.until(() => rec.on(aliceTopic).length > 0 && rec.on(bobTopic).length > 0, 5000, 'both devices');
    const a = device(aliceTopic);
    for (const key of ['messages_per_min', 'duplicates', 'delivery_ratio', 'gateways_hearing', 'ble_load']) {
      assert.equal(a[key]!.enabled_by_default, false, key);
      assert.equal(a[key]!.entity_category, 'diagnostic', key);
    }
    assert.deepEqual([a.ble_battery!.device_class, a.ble_battery!.unit_of_measurement, a.ble_battery!.enabled_by_default], ['battery', '%', undefined]);
    assert.equal(device(bobTopic).ble_battery, undefined, 'bob reports no battery: no entity that would stay unknown');
    const state = rec.json<{ health: { battery: number; load: number }; rssi: number }>(`clawling/nodes/${alice.address}/state`).at(-1)!;
    assert.deepEqual([state.health.battery, state.health.load, state.rssi], [64, 3, -58]);
    const neighbour = gw.gateway.snapshot().neighbours.find((n) => n.address === alice.address)!;
    assert.deepEqual([neighbour.battery, neighbour.load], [64, 3], '/status.json shows them too');
  });

  it("shows the gateway's problem sensor and controls, and announces every device again on Home Assistant's birth message", async () => {
    const gatewayTopic = 'homeassistant/device/clawling_gw-test/config';
    await rec.until(() => rec.on(gatewayTopic).length > 0, 5000, 'the gateway device');
    const g = device(gatewayTopic);
    assert.deepEqual([g.problem!.platform, g.problem!.device_class], ['binary_sensor', 'problem']);
    assert.equal(g.log_level!.platform, 'select');
    assert.equal(g.pairing, undefined, 'no BLE radio with admission listed: no pairing switch');
    await rec.until(() => rec.json<{ problem: boolean }>(`${BASE}/bridge/health`).length > 0, 10_000, 'the health');
    assert.equal(rec.json<{ problem: boolean }>(`${BASE}/bridge/health`).at(-1)!.problem, false);

    const alice = gw.peer('sim0', 'alice');
    const nodeTopic = `homeassistant/device/mesh_${alice.address}/config`;
    const before = [rec.on(gatewayTopic).length, rec.on(nodeTopic).length];
    await rec.client.publishAsync('homeassistant/status', 'online', { qos: 1 });
    await rec.until(() => rec.on(gatewayTopic).length > before[0]! && rec.on(nodeTopic).length > before[1]!, 5000, 'both announced again');
  });

  it('publishes a last message cut across an emoji as well-formed UTF-8 (the §1 defect)', async () => {
    const alice = gw.peer('sim0', 'alice');
    // The old cut, slice(0, 254), split this emoji's surrogate pair.
    const m = message(alice, gw.gateway.info.address, `${'a'.repeat(253)}😀 and more`);
    await alice.send(m);
    const states = (): Array<{ last_message: { id: string; content: string } | null }> => rec.json(`clawling/nodes/${alice.address}/state`);
    await rec.until(() => states().some((x) => x.last_message?.id === m.id.toString()), 5000, 'the state with the long text');
    const raw = rec.on(`clawling/nodes/${alice.address}/state`).at(-1)!.payload;
    assert.equal(Buffer.from(raw.toString('utf8'), 'utf8').equals(Buffer.from(raw)), true, 'valid UTF-8 on the wire');
    const content = states().at(-1)!.last_message!.content;
    assert.doesNotMatch(content, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/, 'no lone surrogate');
    assert.ok(content.length <= 255 && content.startsWith('a'.repeat(253)));
  });

  it('answers /health 503 MQTT_REFUSED at once when Mosquitto refuses the credentials (the §1 defect)', async () => {
    const wrong = path.join(dir, 'wrong-password');
    fs.writeFileSync(wrong, 'not the password\n', { mode: 0o600 });
    const refused = await startGateway(undefined, { gateway: { id: 'gw-refused' }, mqtt: { enabled: true, url: mq.url, username: USER, password_file: wrong, reconnect_min_ms: 200 } }, tempDir('ha-entities-refused-'));
    try {
      const url = `${refused.gateway.statusUrl!}/health`;
      // Well inside http.health_mqtt_down_ms (60 s): a refusal is not waited out as an outage would be.
      const deadline = Date.now() + 5000;
      let last: { code: number; body: { causes?: Array<{ code: string }> } } | undefined;
      for (;;) {
        const res = await fetch(url);
        last = { code: res.status, body: (await res.json()) as { causes?: Array<{ code: string }> } };
        if (last.code === 503 && last.body.causes?.some((c) => c.code === 'MQTT_REFUSED') === true) break;
        assert.ok(Date.now() < deadline, `no 503 MQTT_REFUSED within 5 s; last: ${JSON.stringify(last)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await refused.stop();
      fs.rmSync(refused.dir, { recursive: true, force: true });
    }
  });

  it('broke no discovery rule in any message of this suite', () => {
    assert.ok(rec.messages.some((m) => m.topic.startsWith('homeassistant/device/')));
    assert.deepEqual(discoveryProblems(rec.messages), []);
  });
});
