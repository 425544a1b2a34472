/**
 * The gateway end to end: simulated radios with virtual peers sending real (fragmented) frames, a real aedes broker
 * on 127.0.0.1, a real sqlite state folder, the real status HTTP server.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ackTarget, isAck } from '../../lib/mesh/ack';
import { signControlMessage } from '../../lib/mesh/control-signature';
import { createMessage, type MeshMessage } from '../../lib/mesh/message';
import { MessageId } from '../../lib/mesh/message-id';
import type { VirtualPeer, VirtualReceipt } from '../../gateway/radios';
import { discoveryProblems } from '../support/ha-discovery-rules';
import { Recorder, eventually, startBroker, type TestBroker } from './support/broker';
import { BASE, startGateway, type Running } from './support/gateway';
import { renderStatusPage } from '../../gateway/extensions/status/status-page';

interface Published {
  id: string;
  sender: string;
  recipient: string;
  content: string;
  ttl: number;
  hop_count: number;
  lamport_clock: number;
  rx_radio: string;
  rx_peer: string;
  rx_codec: string;
  rssi?: number;
  to_gateway: boolean;
  gateway: string;
}

function ackFor(id: string) {
  return (r: VirtualReceipt): boolean => r.message !== undefined && isAck(r.message) && ackTarget(r.message) === id;
}

function text(from: VirtualPeer, to: string, content: string, extra: Partial<MeshMessage> = {}): MeshMessage {
  return createMessage({
    id: MessageId.random(),
    sender: from.address,
    recipient: to,
    app_id: 'e2e',
    priority: 'medium',
    ttl: 8,
    hop_count: 0,
    timestamp: BigInt(Date.now()),
    content,
    ...extra,
  });
}

async function get(url: string): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

describe('gateway end to end (simulated radios, aedes, sqlite)', function () {
  this.timeout(20000);
  let broker: TestBroker;
  let rec: Recorder;
  let gw: Running;

  beforeEach(async () => {
    broker = await startBroker();
    rec = await Recorder.connect(broker.url, [`${BASE}/#`, 'homeassistant/#']);
    gw = await startGateway(broker);
  });
  afterEach(async () => {
    await gw.stop();
    await rec.close();
    await broker.stop();
    fs.rmSync(gw.dir, { recursive: true, force: true });
  });

  it('publishes a message for the gateway as the JSON floor plus reception fields, then ACKs it', async () => {
    const alice = gw.peer('sim0', 'alice');
    const m = text(alice, gw.gateway.info.address, 'hello gateway', { lamport_clock: 9007199254740993n });
    await alice.send(m);
    await rec.until(() => rec.json<Published>(`${BASE}/messages`).some((p) => p.id === m.id.toString()), 5000, 'the message on MQTT');
    const raw = rec.on(`${BASE}/messages`)[0]!.payload.toString();
    // 2^53 + 1 survives: the floor is rendered by lib/mesh, not by JSON.stringify of a number.
    assert.match(raw, /"lamport_clock":9007199254740993,/);
    const p = rec.json<Published>(`${BASE}/messages`)[0]!;
    assert.equal(p.content, 'hello gateway');
    assert.equal(p.sender, alice.address);
    assert.equal(p.rx_radio, 'sim0');
    assert.equal(p.rx_peer, 'alice');
    assert.equal(p.rx_codec, 'binary');
    assert.equal(p.rssi, -61);
    assert.equal(p.to_gateway, true);
    assert.equal(p.gateway, 'gw-test');
    const ack = (await alice.waitFor(ackFor(m.id.toString()))).message!;
    assert.equal(ack.sender, gw.gateway.info.address);
    assert.equal(ack.recipient, alice.address);
    assert.equal(ack.metadata.get('ack_transport'), 'ble');
    assert.equal(ack.metadata.get('ack_hop_count'), '0');
  });

  it('holds the mesh ACK until the broker has the message (PUBACK), across a broker outage', async () => {
    const alice = gw.peer('sim0', 'alice');
    await broker.stop();
    await eventually(() => gw.gateway.mqtt?.connected === false, 5000, 'the gateway saw the broker go');
    const m = text(alice, gw.gateway.info.address, 'while the broker is away');
    await alice.send(m);
    await eventually(() => (gw.gateway.snapshot().queues.mqtt?.depth ?? 0) === 1, 5000, 'the message in the outbox');
    assert.equal(alice.receipts().filter(ackFor(m.id.toString())).length, 0, 'no ACK while the message is only on disk');
    // A resend meanwhile is not queued twice and not acknowledged either.
    await alice.send(m);
    await eventually(() => gw.gateway.metrics.counter('clawling_gateway_duplicates_total', '').total() === 1, 5000, 'the resend seen as a duplicate');
    assert.equal(gw.gateway.snapshot().queues.mqtt?.depth, 1);
    assert.equal(alice.receipts().filter(ackFor(m.id.toString())).length, 0);

    await broker.restart();
    await alice.waitFor(ackFor(m.id.toString()));
    const atBroker = broker.published.filter((p) => p.topic === `${BASE}/messages`);
    assert.equal(atBroker.length, 1, 'published once');
    // Both copies (the original and the resend) are answered once the PUBACK is in.
    await eventually(() => alice.receipts().filter(ackFor(m.id.toString())).length === 2, 5000, 'two ACKs');
  });

  it('ACKs a duplicate again but publishes it once', async () => {
    const bob = gw.peer('sim0', 'bob');
    const m = text(bob, gw.gateway.info.address, 'twice');
    const frame = await bob.send(m);
    await bob.waitFor(ackFor(m.id.toString()));
    await bob.inject(frame);
    await eventually(() => bob.receipts().filter(ackFor(m.id.toString())).length === 2, 5000, 're-ACK');
    assert.equal(bob.receipts().find(ackFor(m.id.toString()))!.format, 'json', 'bob never advertised wire v1');
    assert.equal(broker.published.filter((p) => p.topic === `${BASE}/messages`).length, 1);
  });

  it('relays a frame for another peer by the TTL and hop rules, never ACKing it itself', async () => {
    const alice = gw.peer('sim0', 'alice');
    const carol = gw.peer('sim1', 'carol');
    const m = text(alice, carol.address, 'via the gateway', { ttl: 8 });
    await alice.send(m);
    const got = await carol.waitFor((r) => r.message?.id.toString() === m.id.toString());
    assert.equal(got.message!.ttl, 7);
    assert.equal(got.message!.hop_count, 1);
    assert.equal(got.format, 'binary');
    // Carol's own ACK travels back through the gateway to alice: the end-to-end ACK, not the gateway's.
    const ack = (await alice.waitFor(ackFor(m.id.toString()))).message!;
    assert.equal(ack.sender, carol.address);
    assert.equal(alice.receipts().filter((r) => r.message && isAck(r.message) && r.message.sender === gw.gateway.info.address).length, 0);
    await rec.until(() => rec.json<Published>(`${BASE}/messages`).some((p) => p.id === m.id.toString() && p.to_gateway === false), 5000, 'observed on MQTT');
    // A frame whose budget is spent is not relayed.
    const spent = text(alice, carol.address, 'no budget', { ttl: 1 });
    await alice.send(spent);
    await eventually(() => gw.gateway.metrics.counter('clawling_gateway_not_forwarded_total', '').get({ reason: 'TTL_EXHAUSTED' }) === 1, 5000, 'refused');
    assert.equal(carol.received().some((r) => r.id.toString() === spent.id.toString()), false);
  });

  it('gates control frames: unsigned is dropped without ACK, signed by the sender passes', async () => {
    const alice = gw.peer('sim0', 'alice');
    const unsigned = text(alice, gw.gateway.info.address, '__CONN_REQ__{"hello":1}');
    await alice.send(unsigned);
    await eventually(() => gw.gateway.metrics.counter('clawling_gateway_frames_rejected_total', '').get({ reason: 'UNSIGNED_CONTROL' }) === 1, 5000, 'rejected');
    const signed = signControlMessage(text(alice, gw.gateway.info.address, '__CONN_REQ__{"hello":2}'), alice.identity.privateKey);
    await alice.send(signed);
    await alice.waitFor(ackFor(signed.id.toString()));
    assert.equal(alice.receipts().filter(ackFor(unsigned.id.toString())).length, 0);
    await rec.until(() => rec.json<Published>(`${BASE}/messages`).some((p) => p.id === signed.id.toString()));
    assert.equal(rec.json<Published>(`${BASE}/messages`).some((p) => p.id === unsigned.id.toString()), false);
  });

  it('sends from the send topic in each peer\'s codec and reports sent, acked, no route and rejections', async () => {
    const alice = gw.peer('sim0', 'alice');
    const bob = gw.peer('sim0', 'bob');
    const results = () => rec.json<{ request_id?: string; status: string; id?: string; via?: string[]; error?: { code: string } }>(`${BASE}/send/result`);
    await rec.client.publishAsync(`${BASE}/send`, JSON.stringify({ recipient: alice.address, content: 'to alice', request_id: 'r1' }), { qos: 1 });
    await rec.client.publishAsync(`${BASE}/send`, JSON.stringify({ recipient: bob.address, content: 'to bob', request_id: 'r2' }), { qos: 1 });
    await rec.until(() => results().filter((r) => r.status === 'acked').length === 2, 5000, 'two ACKed sends');
    const toAlice = await alice.waitFor((r) => r.message?.content === 'to alice');
    const toBob = await bob.waitFor((r) => r.message?.content === 'to bob');
    assert.equal(toAlice.format, 'binary');
    assert.equal(toBob.format, 'json');
    assert.equal(toAlice.message!.sender, gw.gateway.info.address);
    assert.equal(toAlice.message!.app_id, 'clawling-gateway');
    assert.deepEqual(results().find((r) => r.request_id === 'r1' && r.status === 'sent')?.via, ['sim0/alice']);

    await rec.client.publishAsync(`${BASE}/send`, JSON.stringify({ recipient: alice.address, content: 'x', metadata: { ack_for: 'forged' }, request_id: 'r3' }), { qos: 1 });
    await rec.client.publishAsync(`${BASE}/send`, '{not json', { qos: 1 });
    await rec.client.publishAsync(`${BASE}/send`, JSON.stringify({ recipient: alice.address, content: 'x', sender: 'someone-else', request_id: 'r4' }), { qos: 1 });
    // One character of alice's address changed: the checksum fails, nothing is sent to anyone.
    const typo = alice.address.slice(0, -1) + (alice.address.endsWith('q') ? 'p' : 'q');
    await rec.client.publishAsync(`${BASE}/send`, JSON.stringify({ recipient: typo, content: 'x', request_id: 'r6' }), { qos: 1 });
    await rec.until(() => results().filter((r) => r.status === 'rejected').length === 4, 5000, 'four rejections');
    const codes = results().filter((r) => r.status === 'rejected').map((r) => r.error?.code).sort();
    assert.deepEqual(codes, ['BAD_SENDER', 'RESERVED_METADATA_KEY', 'SEND_BAD_JSON', 'SEND_BAD_RECIPIENT']);
    // Refused while parsed, still answered under its request_id.
    assert.deepEqual(results().filter((r) => r.status === 'rejected').map((r) => r.request_id ?? '-').sort(), ['-', 'r3', 'r4', 'r6']);
    assert.equal(alice.received().some((m) => m.content === 'x'), false);

    for (const p of [alice, bob, gw.peer('sim1', 'carol')]) p.vanish();
    await eventually(() => gw.gateway.router.neighbours().length === 0, 5000, 'no neighbours');
    await rec.client.publishAsync(`${BASE}/send`, JSON.stringify({ recipient: alice.address, content: 'nobody', request_id: 'r5' }), { qos: 1 });
    await rec.until(() => results().some((r) => r.request_id === 'r5' && r.status === 'no_route'), 5000, 'no route');
  });

  it('refuses what the send policy does not allow, each with its code and request_id, and rate-limits both doors with one bucket', async () => {
    const [a, b, c] = [gw.peer('sim0', 'alice').address, gw.peer('sim0', 'bob').address, gw.peer('sim1', 'carol').address];
    await gw.stop();
    fs.rmSync(gw.dir, { recursive: true, force: true });
    // Almost no refill: exactly `burst` sends pass, whatever the speed of this machine.
    const send_policy = { app_ids: ['clawling-gateway', 'home'], recipients: [a, b], burst: 3, rate_per_s: 0.001 };
    gw = await startGateway(broker, { mqtt: { enabled: true, url: broker.url, send_policy } });
    const alice = gw.peer('sim0', 'alice');
    await rec.client.subscribeAsync('clawling/nodes/+/send/result', { qos: 1 });
    type Result = { request_id?: string; status: string; error?: { code: string; retry_after_ms?: number } };
    const results = () => rec.json<Result>(`${BASE}/send/result`);
    const send = (body: Record<string, unknown>) => rec.client.publishAsync(`${BASE}/send`, JSON.stringify({ recipient: a, content: 'x', ...body }), { qos: 1 });

    await send({ content: '__CONN_REQ__{"from":"mqtt"}', request_id: 'control' });
    await send({ content: '__MLS_ENC__AAAA', request_id: 'sealed' });
    await send({ content: '', content_type: 'file_chunk', binary_content: [1, 2, 3], request_id: 'chunk' });
    await send({ ttl: 255, request_id: 'ttl' });
    await send({ priority: 'critical', request_id: 'priority' });
    await send({ app_id: 'elsewhere', request_id: 'app' });
    await send({ recipient: c, request_id: 'recipient' });
    for (const id of ['ok1', 'ok2', 'ok3', 'over']) await send({ content: id, request_id: id });
    await rec.until(() => results().filter((r) => r.status === 'rejected').length === 8 && results().filter((r) => r.status === 'sent').length === 3, 5000, 'eight refusals, three sends');
    const refused = Object.fromEntries(results().filter((r) => r.status === 'rejected').map((r) => [r.request_id, r.error?.code]));
    assert.deepEqual(refused, {
      control: 'SEND_POLICY_RESERVED',
      sealed: 'SEND_POLICY_RESERVED',
      chunk: 'SEND_POLICY_RESERVED',
      ttl: 'SEND_POLICY_TTL',
      priority: 'SEND_POLICY_PRIORITY',
      app: 'SEND_POLICY_APP_ID',
      recipient: 'SEND_POLICY_RECIPIENT',
      over: 'SEND_RATE_LIMITED',
    });
    assert.deepEqual(results().filter((r) => r.status === 'sent').map((r) => r.request_id).sort(), ['ok1', 'ok2', 'ok3'], 'refusals spent no token');
    const limited = results().find((r) => r.request_id === 'over')!;
    assert.ok((limited.error?.retry_after_ms ?? 0) > 0, 'says when to try again');

    // The notify topic is the same door: protocol content refused, and the bucket the send topic emptied is shared.
    const nodeResults = () => rec.json<{ status: string; error?: string }>(`clawling/nodes/${a}/send/result`);
    await rec.client.publishAsync(`clawling/nodes/${a}/send`, '__SVC_REQ__{"op":"unlock"}', { qos: 1 });
    await rec.client.publishAsync(`clawling/nodes/${a}/send`, 'good night', { qos: 1 });
    await rec.until(() => nodeResults().length === 2, 5000, 'two notify answers');
    assert.deepEqual(nodeResults().map((r) => [r.status, r.error?.split(':')[0]]), [['rejected', 'SEND_POLICY_RESERVED'], ['rejected', 'SEND_RATE_LIMITED']]);

    await alice.waitFor((r) => r.message?.content === 'ok3');
    const got = alice.received().map((m) => m.content);
    for (const never of ['__CONN_REQ__{"from":"mqtt"}', '__MLS_ENC__AAAA', 'over', 'good night', '__SVC_REQ__{"op":"unlock"}', 'x']) assert.equal(got.includes(never), false, never);
    assert.equal(alice.received().some((m) => m.content_type === 'file_chunk'), false);
  });

  it("picks each neighbour's codec from its key package once one passed the gate", async () => {
    const alice = gw.peer('sim0', 'alice');
    const bob = gw.peer('sim0', 'bob');
    const gateway = gw.gateway.info.address;
    const keyPackage = (from: VirtualPeer, body: Record<string, unknown>): MeshMessage =>
      signControlMessage(text(from, gateway, `__MLS_KEY_PKG__${JSON.stringify({ user_id: from.address, key_package_data: [1, 2, 3], ...body })}`), from.identity.privateKey);
    const results = () => rec.json<{ request_id?: string; status: string }>(`${BASE}/send/result`);
    const send = async (to: VirtualPeer, content: string): Promise<string | undefined> => {
      await rec.client.publishAsync(`${BASE}/send`, JSON.stringify({ recipient: to.address, content, request_id: content }), { qos: 1 });
      await rec.until(() => results().some((r) => r.request_id === content && r.status === 'acked'), 5000, `${content} acked`);
      return (await to.waitFor((r) => r.message?.content === content)).format;
    };
    assert.deepEqual([await send(alice, 'a1'), await send(bob, 'b1')], ['binary', 'json'], 'from the radio configuration');

    // An unsigned key package is refused by the gate and teaches nothing.
    await bob.send(text(bob, gateway, `__MLS_KEY_PKG__${JSON.stringify({ user_id: bob.address, key_package_data: [], wire_versions: [1] })}`));
    await eventually(() => gw.gateway.metrics.counter('clawling_gateway_frames_rejected_total', '').get({ reason: 'UNSIGNED_CONTROL' }) === 1, 5000, 'rejected');
    assert.equal(await send(bob, 'b2'), 'json');

    const upgrade = keyPackage(bob, { wire_versions: [1], env_versions: [1] });
    await bob.send(upgrade);
    await bob.waitFor(ackFor(upgrade.id.toString()));
    // A key package from an older peer has no wire_versions at all: JSON only, whatever its radio said.
    const legacy = keyPackage(alice, {});
    await alice.send(legacy);
    await alice.waitFor(ackFor(legacy.id.toString()));
    assert.deepEqual([await send(alice, 'a2'), await send(bob, 'b3')], ['json', 'binary'], 'from the key packages');

    // The whole key package is kept per peer and shown where peers are: the snapshot (status, bridge) and the page.
    const snap = gw.gateway.snapshot();
    const shown = (peer: VirtualPeer) => snap.neighbours.find((n) => n.address === peer.address)?.key_package;
    assert.deepEqual(shown(bob), { wire_versions: [1], env_versions: [1], rich_versions: [], data_versions: [], ctrl_versions: [], svc_versions: [], ack_versions: [] });
    assert.deepEqual(shown(alice)?.wire_versions, []);
    const page = renderStatusPage(snap, []);
    assert.ok(page.includes('wire 1 · env 1'), 'bob on the status page');
    assert.ok(page.includes('floor only'), 'alice on the status page');
    await rec.until(
      () => rec.json<{ key_package?: { env_versions: number[] } }>(`${BASE}/radios/sim0/peers/bob`).at(-1)?.key_package?.env_versions[0] === 1,
      5000,
      "bob's key package on his peer topic",
    );
  });

  it('answers on the MQTT 3.1.1 broker after falling back from MQTT 5 (aedes)', () => {
    assert.equal(gw.gateway.mqtt?.protocolVersion, 4);
  });

  it('publishes retained bridge state, info, radio and peer availability, and follows a peer that leaves and returns', async () => {
    await rec.until(() => rec.on(`${BASE}/bridge/state`).some((m) => m.payload.toString() === 'online'), 5000, 'online');
    const info = rec.json<{ address: string; mqtt_protocol: string; mesh: unknown }>(`${BASE}/bridge/info`)[0]!;
    assert.equal(info.address, gw.gateway.info.address);
    assert.equal(info.mqtt_protocol, '3.1.1');
    assert.deepEqual(info.mesh, { wire_versions: [1], ctrl_versions: [1, 2] });
    await rec.until(() => rec.json<{ state: string }>(`${BASE}/radios/sim0/state`).some((s) => s.state === 'ready'), 5000, 'radio state');
    await rec.until(() => rec.json<{ connected: boolean }>(`${BASE}/radios/sim0/peers/alice`).some((s) => s.connected), 5000, 'peer up');

    const alice = gw.peer('sim0', 'alice');
    alice.vanish();
    await rec.until(() => rec.json<{ connected: boolean }>(`${BASE}/radios/sim0/peers/alice`).at(-1)?.connected === false, 5000, 'peer down');
    alice.appear();
    await rec.until(() => rec.json<{ connected: boolean }>(`${BASE}/radios/sim0/peers/alice`).at(-1)?.connected === true, 5000, 'peer back');
    // Traffic flows again after the return.
    const m = text(alice, gw.gateway.info.address, 'back again');
    await alice.send(m);
    await alice.waitFor(ackFor(m.id.toString()));

    // A late subscriber sees the present at once (retained).
    const late = await Recorder.connect(broker.url, [`${BASE}/bridge/state`, `${BASE}/radios/+/peers/+`]);
    await late.until(() => late.on(`${BASE}/bridge/state`).length === 1 && late.on(`${BASE}/radios/sim0/peers/alice`).length === 1, 5000, 'retained');
    assert.ok(late.messages.every((x) => x.retain));
    await late.close();
  });

  it('keeps the retained radio counters and neighbour last_seen following the traffic, a few seconds behind at most', async () => {
    const alice = gw.peer('sim0', 'alice');
    const radioState = () => rec.json<{ counters?: { framesIn: number } }>(`${BASE}/radios/sim0/state`);
    const peerState = () => rec.json<{ last_seen: string }>(`${BASE}/radios/sim0/peers/alice`);
    await rec.until(() => radioState().length > 0 && peerState().length > 0, 5000, 'the first states');
    const seenBefore = Date.parse(peerState().at(-1)!.last_seen);
    await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 3; i++) {
      const m = text(alice, gw.gateway.info.address, `reading ${i}`);
      await alice.send(m);
      await alice.waitFor(ackFor(m.id.toString()));
    }
    await rec.until(() => (radioState().at(-1)?.counters?.framesIn ?? 0) >= 3, 12000, 'counters that follow the frames');
    await rec.until(() => Date.parse(peerState().at(-1)!.last_seen) > seenBefore, 12000, 'a later last_seen');
    const publishes = rec.on(`${BASE}/radios/sim0/peers/alice`).length;
    assert.ok(publishes <= 3, `rate-limited: ${publishes} peer publishes for 3 messages`);
  });

  it('announces itself to Home Assistant as one device, and does so again on its birth message', async () => {
    const topic = 'homeassistant/device/clawling_gw-test/config';
    const configs = () => rec.messages.filter((m) => m.topic === topic);
    await rec.until(() => configs().length === 1, 5000, 'the device discovery config');
    assert.deepEqual(discoveryProblems(configs()), []);
    assert.equal(rec.messages.filter((m) => m.topic.startsWith('homeassistant/sensor/')).length, 0, 'no single-component configs');
    const body = JSON.parse(configs()[0]!.payload.toString()) as {
      device: { identifiers: string[] };
      origin: { name: string; sw_version: string };
      availability: Array<{ topic: string }>;
      components: Record<string, Record<string, unknown>>;
    };
    assert.deepEqual(Object.keys(body.components).sort(), ['log_level', 'messages_per_s', 'outbox', 'peers', 'problem', 'radio_sim0_state', 'radio_sim1_state', 'version']);
    const rate = body.components.messages_per_s!;
    assert.equal(rate.platform, 'sensor');
    assert.equal(rate.state_topic, `${BASE}/bridge/health`);
    assert.equal(rate.default_entity_id, 'sensor.clawling_gw_test_messages_per_s');
    assert.equal(rate.unique_id, 'clawling_gw-test_messages_per_s');
    assert.deepEqual(body.availability.map((a) => a.topic), [`${BASE}/bridge/state`]);
    assert.deepEqual(body.device.identifiers, ['clawling_gw-test']);
    assert.equal(body.origin.name, '@clawling/node-red-mesh');
    assert.equal(body.components.radio_sim0_state!.state_topic, `${BASE}/radios/sim0/state`);
    await eventually(() => broker.published.some((p) => p.topic === topic && p.retain), 5000, 'published retained');
    await rec.client.publishAsync('homeassistant/status', 'online', { qos: 1 });
    await rec.until(() => configs().length === 2, 5000, 'republished');
    await rec.client.publishAsync('homeassistant/status', 'offline', { qos: 1 });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(configs().length, 2, 'offline does not trigger discovery');
  });

  it('serves /health, /metrics and a self-refreshing status page on loopback', async () => {
    const alice = gw.peer('sim0', 'alice');
    const m = text(alice, gw.gateway.info.address, '<script>x</script>', { app_id: 'app<&>' });
    await alice.send(m);
    await alice.waitFor(ackFor(m.id.toString()));
    const base = gw.gateway.statusUrl!;
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await get(`${base}/health`);
    assert.equal(health.status, 200);
    const h = JSON.parse(health.body) as { status: string; radios: Array<{ id: string; state: string }>; mqtt: { connected: boolean } };
    assert.equal(h.status, 'ok');
    assert.deepEqual(h.radios.map((r) => `${r.id}:${r.state}`), ['sim0:ready', 'sim1:ready']);
    assert.equal(h.mqtt.connected, true);
    const metrics = await get(`${base}/metrics`);
    assert.match(metrics.type, /^text\/plain; version=0\.0\.4/);
    assert.match(metrics.body, /^clawling_gateway_messages_received_total\{radio="sim0"\} 1$/m);
    assert.match(metrics.body, /^clawling_gateway_acks_sent_total 1$/m);
    assert.match(metrics.body, /^clawling_gateway_queue_depth\{queue="mqtt"\} 0$/m);
    assert.match(metrics.body, /^clawling_gateway_neighbours 3$/m);
    const page = await get(`${base}/`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<meta http-equiv="refresh" content="\d+">/);
    assert.match(page.body, /sim1/);
    assert.match(page.body, /app&#60;&#38;&#62;/, 'mesh text is escaped');
    assert.ok(!page.body.includes('<script>'), 'message content never reaches the page');
    assert.equal((await get(`${base}/nope`)).status, 404);
  });

  it('publishes offline on a graceful stop', async () => {
    await rec.until(() => rec.on(`${BASE}/bridge/state`).some((m) => m.payload.toString() === 'online'));
    await gw.stop();
    await rec.until(() => rec.on(`${BASE}/bridge/state`).at(-1)?.payload.toString() === 'offline', 5000, 'offline');
  });
});
