/**
 * Mesh nodes as Home Assistant devices, end to end: simulated radios, a real aedes broker, the real gateway. What
 * Home Assistant would receive is read off the broker and checked against the discovery rules.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { addressFromHash } from '../../../../lib/mesh/address';
import { isAck } from '../../../../lib/mesh/ack';
import { createMessage, type MeshMessage } from '../../../../lib/mesh/message';
import { MessageId } from '../../../../lib/mesh/message-id';
import type { HaNodes } from '../../../../gateway/extensions/home-assistant/ha-nodes';
import type { VirtualPeer } from '../../../../gateway/radios';
import { discoveryProblems } from '../../../support/ha-discovery-rules';
import { Recorder, startBroker, type TestBroker } from '../../support/broker';
import { startGateway, type Running } from '../../support/gateway';

const NODES = 'clawling/nodes';

function msg(from: VirtualPeer, to: string, content: string, extra: Partial<MeshMessage> = {}): MeshMessage {
  return createMessage({ id: MessageId.random(), sender: from.address, recipient: to, app_id: 'sensors', priority: 'medium', ttl: 8, hop_count: 0, timestamp: BigInt(Date.now()), content, ...extra });
}

interface Discovery {
  device: { identifiers: string[]; name: string; via_device: string };
  components: Record<string, Record<string, unknown>>;
}

function last(rec: Recorder, topic: string): string | undefined {
  const all = rec.on(topic);
  return all.length ? all[all.length - 1]!.payload.toString() : undefined;
}

function lastJson<T>(rec: Recorder, topic: string): T | undefined {
  const text = last(rec, topic);
  return text ? (JSON.parse(text) as T) : undefined;
}

describe('mesh nodes as Home Assistant devices (aedes, simulated radios)', function () {
  this.timeout(20000);
  let broker: TestBroker;
  let rec: Recorder;
  let gw: Running;
  let alice: VirtualPeer;
  let bob: VirtualPeer;

  beforeEach(async () => {
    broker = await startBroker();
    rec = await Recorder.connect(broker.url, ['homeassistant/#', `${NODES}/#`]);
    // The addresses of the virtual peers come from their identities; learn them from a first gateway run.
    gw = await startGateway(broker);
    alice = gw.peer('sim0', 'alice');
    bob = gw.peer('sim0', 'bob');
    const [a, b] = [alice.address, bob.address];
    await gw.stop();
    fs.rmSync(gw.dir, { recursive: true, force: true });
    rec.messages.length = 0;
    gw = await startGateway(broker, {
      nodes: { names: { [a]: 'Kitchen' } },
      devices: [
        {
          match: { name: 'Kitchen', content: '^temperature ' },
          entities: [{ key: 'temperature', name: 'Temperature', from: { regex: '(-?\\d+(?:\\.\\d+)?) °C' }, unit: '°C', device_class: 'temperature', state_class: 'measurement' }],
        },
        {
          match: { sender: b, app_id: 'sensors' },
          entities: [{ key: 'door', platform: 'binary_sensor', type: 'boolean', from: { json_pointer: '/door' }, device_class: 'door' }],
        },
      ],
    });
    alice = gw.peer('sim0', 'alice');
    bob = gw.peer('sim0', 'bob');
  });
  afterEach(async () => {
    await gw.stop();
    await rec.close();
    await broker.stop();
    fs.rmSync(gw.dir, { recursive: true, force: true });
  });

  const discoveryOf = (address: string): string => `homeassistant/device/mesh_${address}/config`;

  it('makes every neighbour a device of its own, via the gateway, with the default entities and a friendly name', async () => {
    await rec.until(() => [alice, bob].every((p) => last(rec, discoveryOf(p.address)) !== undefined), 5000, 'both neighbours discovered');
    assert.deepEqual(discoveryProblems(rec.messages), []);
    const kitchen = lastJson<Discovery>(rec, discoveryOf(alice.address))!;
    assert.equal(kitchen.device.name, 'Kitchen');
    assert.deepEqual(kitchen.device.identifiers, [`mesh_${alice.address}`]);
    assert.equal(kitchen.device.via_device, 'clawling_gw-test');
    for (const key of ['connectivity', 'rssi', 'last_seen', 'last_message', 'send', 'last_send', 'temperature']) assert.ok(kitchen.components[key], `component ${key}`);
    assert.equal(kitchen.components.connectivity!.default_entity_id, 'binary_sensor.kitchen_connectivity');
    assert.equal(kitchen.components.send!.platform, 'notify');
    assert.equal(kitchen.components.send!.command_topic, `${NODES}/${alice.address}/send`);
    assert.equal(kitchen.components.temperature!.unit_of_measurement, '°C');
    const state = lastJson<{ connected: boolean; neighbour: boolean; rssi: number; readings: Record<string, unknown> }>(rec, `${NODES}/${alice.address}/state`)!;
    assert.equal(state.connected, true);
    assert.equal(state.neighbour, true);
    assert.equal(state.rssi, -61);
    assert.deepEqual(state.readings, { temperature: null });
    const page = await (await fetch(`${gw.gateway.statusUrl!}/`)).text();
    assert.match(page, new RegExp(`<td>Kitchen \\(${alice.address.slice(0, 10)}…`), 'the friendly name on the status page');
    const unnamed = lastJson<Discovery>(rec, discoveryOf(bob.address))!;
    assert.match(unnamed.device.name, /^Mesh node /);
    assert.equal(unnamed.components.door!.platform, 'binary_sensor');
  });

  it("announces every node device again, once each, when Home Assistant comes back online", async () => {
    await rec.until(() => [alice, bob].every((p) => last(rec, discoveryOf(p.address)) !== undefined), 5000, 'both neighbours discovered');
    const count = (address: string): number => rec.on(discoveryOf(address)).length;
    const before = [count(alice.address), count(bob.address)];
    await rec.client.publishAsync('homeassistant/status', 'online', { qos: 1 });
    await rec.until(() => count(alice.address) > before[0]! && count(bob.address) > before[1]!, 5000, 'both devices announced again');
    // A second birth message while nothing else happens: again once each, never a burst of repeats.
    await rec.client.publishAsync('homeassistant/status', 'online', { qos: 1 });
    await rec.until(() => count(alice.address) > before[0]! + 1 && count(bob.address) > before[1]! + 1, 5000, 'announced after the second birth');
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.deepEqual([count(alice.address), count(bob.address)], [before[0]! + 2, before[1]! + 2]);
    assert.deepEqual(discoveryProblems(rec.messages), []);
  });

  it('turns mapped messages into typed readings on the node state topic, and counts what does not match', async () => {
    const self = gw.gateway.info.address;
    await alice.send(msg(alice, self, 'temperature 21.5 °C'));
    await rec.until(() => lastJson<{ readings: { temperature: unknown } }>(rec, `${NODES}/${alice.address}/state`)?.readings.temperature === 21.5, 5000, 'the reading');
    // Matches the content filter, but the value's regex finds no number: a counted mismatch, not a crash.
    await alice.send(msg(alice, self, 'temperature unknown'));
    await rec.until(() => (lastJson<{ mapping_mismatches: number }>(rec, `${NODES}/${alice.address}/state`)?.mapping_mismatches ?? 0) === 1, 5000, 'the mismatch');
    const state = lastJson<{ readings: { temperature: number }; last_message: { content: string; sender_verified: boolean }; last_mismatch: { key: string } }>(rec, `${NODES}/${alice.address}/state`)!;
    assert.equal(state.readings.temperature, 21.5, 'the last good reading stays');
    assert.equal(state.last_message.content, 'temperature unknown');
    assert.equal(state.last_message.sender_verified, true);
    assert.equal(state.last_mismatch.key, 'temperature');
    // JSON content through a JSON pointer, to a binary sensor.
    await bob.send(msg(bob, self, JSON.stringify({ door: 'open' })));
    await rec.until(() => lastJson<{ readings: { door: unknown } }>(rec, `${NODES}/${bob.address}/state`)?.readings.door === true, 5000, 'the door reading');
    // Not matching the mapping's filter is not a mismatch.
    await alice.send(msg(alice, self, 'hello'));
    await rec.until(() => lastJson<{ last_message: { content: string } }>(rec, `${NODES}/${alice.address}/state`)?.last_message.content === 'hello', 5000, 'the last message');
    assert.equal(lastJson<{ mapping_mismatches: number }>(rec, `${NODES}/${alice.address}/state`)!.mapping_mismatches, 1);
    const metrics = gw.gateway.metrics.renderPrometheus();
    assert.match(metrics, /^clawling_gateway_node_mapping_mismatches_total\{device="0",entity="temperature"\} 1$/m);
  });

  it('cuts a long last message between characters, never inside a surrogate pair, so the state stays valid for Home Assistant', async () => {
    const content = `${'a'.repeat(253)}😀 and more after the emoji`;
    await alice.send(msg(alice, gw.gateway.info.address, content));
    const topic = `${NODES}/${alice.address}/state`;
    await rec.until(() => (lastJson<{ last_message: { content: string } } | undefined>(rec, topic)?.last_message?.content ?? '').startsWith('aaa'), 5000, 'the last message');
    const raw = last(rec, topic)!;
    assert.equal(/\\ud[89a-f]/i.test(raw), false, 'no escaped lone surrogate in the payload');
    const shown = lastJson<{ last_message: { content: string } }>(rec, topic)!.last_message.content;
    assert.equal(shown, `${'a'.repeat(253)}…`);
    assert.ok(shown.length <= 255);
  });

  it('takes no reading from a claimed sender unless the mapping accepts claimed senders', async () => {
    const self = gw.gateway.info.address;
    // Bob's radio link delivers a message that claims to come from the kitchen.
    await bob.send(msg(bob, self, 'temperature 99.0 °C', { sender: alice.address }));
    await rec.until(() => (lastJson<{ mapping_mismatches: number }>(rec, `${NODES}/${alice.address}/state`)?.mapping_mismatches ?? 0) === 1, 5000, 'the refusal');
    const state = lastJson<{ readings: { temperature: unknown }; last_message: { sender_verified: boolean }; last_mismatch: { reason: string } }>(rec, `${NODES}/${alice.address}/state`)!;
    assert.equal(state.readings.temperature, null);
    assert.equal(state.last_message.sender_verified, false);
    assert.match(state.last_mismatch.reason, /claimed/);
  });

  it('sends a text to the node from its notify entity and reports the ACK; an unreachable node gets no_route', async () => {
    await rec.until(() => last(rec, discoveryOf(alice.address)) !== undefined, 5000, 'discovery');
    await rec.client.publishAsync(`${NODES}/${alice.address}/send`, 'Lights off', { qos: 1 });
    const got = await alice.waitFor((r) => r.message?.content === 'Lights off');
    assert.equal(got.message!.recipient, alice.address);
    await rec.until(() => rec.json<{ status: string }>(`${NODES}/${alice.address}/send/result`).some((r) => r.status === 'acked'), 5000, 'acked');
    await rec.until(() => lastJson<{ last_send: { status: string } | null }>(rec, `${NODES}/${alice.address}/state`)?.last_send?.status === 'acked', 5000, 'last send state');
    for (const p of [alice, bob, gw.peer('sim1', 'carol')]) p.vanish();
    const far = addressFromHash(crypto.randomBytes(20));
    await rec.client.publishAsync(`${NODES}/${far}/send`, 'anyone?', { qos: 1 });
    await rec.until(() => rec.json<{ status: string }>(`${NODES}/${far}/send/result`).some((r) => r.status === 'no_route'), 5000, 'no route');
  });

  it('fires an event and a device trigger on every message, even the same text twice, and on every send result', async () => {
    const self = gw.gateway.info.address;
    const events = (): Array<{ event_type: string; trigger: string; content: string; app_id: string }> => rec.json(`${NODES}/${alice.address}/event`);
    await alice.send(msg(alice, self, 'door open'));
    await alice.send(msg(alice, self, 'door open'));
    await rec.until(() => events().length === 2, 5000, 'two events for two equal texts');
    for (const e of events()) assert.deepEqual([e.event_type, e.trigger, e.content, e.app_id], ['app_sensors', 'message_received', 'door open', 'sensors']);
    assert.equal(rec.on(`${NODES}/${alice.address}/event`).some((m) => m.retain), false, 'events are not retained');
    assert.deepEqual(rec.on(`${NODES}/${alice.address}/event`).map((m) => m.qos), [0, 0], 'events go at QoS 0 by default');
    await rec.until(() => (lastJson<Discovery>(rec, discoveryOf(alice.address))?.components.message?.event_types as string[] | undefined)?.includes('app_sensors') === true, 5000, 'the app id among the event types');
    const dev = lastJson<Discovery>(rec, discoveryOf(alice.address))!;
    assert.equal(dev.components.message!.platform, 'event');
    assert.equal(dev.components.message!.state_topic, `${NODES}/${alice.address}/event`);
    assert.deepEqual(
      ['message_received', 'send_acked', 'send_failed'].map((k) => [dev.components[k]!.platform, dev.components[k]!.type, dev.components[k]!.subtype]),
      [['device_automation', 'message', 'received'], ['device_automation', 'send', 'acked'], ['device_automation', 'send', 'failed']],
    );
    assert.equal(dev.components.send_acked!.payload, 'send_acked');
    for (const key of ['messages_per_min', 'duplicates', 'delivery_ratio', 'gateways_hearing']) {
      assert.equal(dev.components[key]!.enabled_by_default, false, `${key} is off by default`);
      assert.equal(dev.components[key]!.entity_category, 'diagnostic');
    }
    assert.deepEqual(discoveryProblems(rec.messages), []);

    await rec.client.publishAsync(`${NODES}/${alice.address}/send`, 'Lights off', { qos: 1 });
    await rec.until(() => rec.json<{ trigger: string }>(`${NODES}/${alice.address}/send/result`).some((r) => r.trigger === 'send_acked'), 5000, 'the send_acked trigger');
    const acked = rec.json<{ event_type: string; trigger: string }>(`${NODES}/${alice.address}/send/result`).find((r) => r.trigger === 'send_acked')!;
    assert.equal(acked.event_type, 'acked');
    await rec.until(() => lastJson<{ health: { delivery_ratio: number | null } }>(rec, `${NODES}/${alice.address}/state`)?.health.delivery_ratio === 100, 5000, 'the delivery ratio');
    const health = lastJson<{ health: { messages_per_min: number; duplicates: number; rssi_by_gateway: Record<string, number | null> } }>(rec, `${NODES}/${alice.address}/state`)!.health;
    assert.ok(health.messages_per_min >= 2, `messages per minute ${health.messages_per_min}`);
    assert.deepEqual(Object.keys(health.rssi_by_gateway), ['gw-test']);
  });

  it('publishes the events at QoS 1 when mqtt.homeassistant.event_qos asks for it', async () => {
    await gw.stop();
    fs.rmSync(gw.dir, { recursive: true, force: true });
    rec.messages.length = 0;
    gw = await startGateway(broker, { mqtt: { enabled: true, url: broker.url, homeassistant: { event_qos: 1 } } });
    alice = gw.peer('sim0', 'alice');
    await alice.send(msg(alice, gw.gateway.info.address, 'door open'));
    await rec.until(() => rec.on(`${NODES}/${alice.address}/event`).length === 1, 5000, 'the event');
    assert.equal(rec.on(`${NODES}/${alice.address}/event`)[0]!.qos, 1);
  });

  it('counts a message heard twice as a duplicate of the node, not as a second message', async () => {
    const m = msg(alice, gw.gateway.info.address, 'once');
    await alice.send(m);
    await alice.send(m);
    await rec.until(() => lastJson<{ health: { duplicates: number } }>(rec, `${NODES}/${alice.address}/state`)?.health.duplicates === 1, 5000, 'one duplicate');
    assert.equal(rec.json(`${NODES}/${alice.address}/event`).length, 1, 'one event');
  });

  it('forgets a node on the forget command and one not heard for forget_after_s, clearing its retained topics', async () => {
    const self = gw.gateway.info.address;
    const far = addressFromHash(crypto.randomBytes(20));
    // A node two hops away: heard as a sender, never a neighbour.
    const relayed = createMessage({ id: MessageId.random(), sender: far, recipient: self, app_id: 'sensors', priority: 'medium', ttl: 8, hop_count: 2, timestamp: BigInt(Date.now()), content: 'hi' });
    await alice.send(relayed);
    await rec.until(() => last(rec, discoveryOf(far)) !== undefined && last(rec, `${NODES}/${far}/state`) !== undefined, 5000, 'the far node discovered');
    const farState = lastJson<{ neighbour: boolean; rssi: unknown; last_message: { sender_verified: boolean } }>(rec, `${NODES}/${far}/state`)!;
    assert.equal(farState.neighbour, false);
    assert.equal(farState.rssi, null, 'no RSSI for a node heard through a relay');
    assert.equal(farState.last_message.sender_verified, false);

    const ext = gw.gateway.extension<HaNodes>('ha-nodes')!;
    ext.registry.get(far)!.lastSeen = Date.now() - 8 * 86400 * 1000;
    ext.sweep();
    await rec.until(() => last(rec, discoveryOf(far)) === '' && last(rec, `${NODES}/${far}/state`) === '', 5000, 'cleared after the forget time');
    assert.equal(ext.registry.get(far), undefined);
    assert.ok(ext.registry.get(alice.address), 'a connected neighbour is never forgotten by time');

    await rec.client.publishAsync(`${NODES}/forget`, alice.address, { qos: 1 });
    await rec.until(() => last(rec, discoveryOf(alice.address)) === '', 5000, 'cleared on command');
    assert.deepEqual(rec.json<{ status: string; gateway: string }>(`${NODES}/forget/result`).map((r) => `${r.gateway}:${r.status}`), ['gw-test:forgotten']);
    assert.equal(last(rec, `${NODES}/${alice.address}/via/gw-test`), '', 'its own view cleared too');
    assert.ok(rec.messages.filter((m) => m.topic === discoveryOf(alice.address) && m.payload.length === 0).length >= 1);
    assert.ok(!isAck(relayed));
  });
});
