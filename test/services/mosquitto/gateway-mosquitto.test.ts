/**
 * The gateway against a real Mosquitto 2 (started here; see mosquitto.ts for what the machine needs): MQTT 5 with a
 * password file, TLS with a client certificate, MQTT 5 request/response, the last will after a SIGKILL, and the
 * broker stopped for the 30 s (CLAWLING_TEST_BROKER_OUTAGE_MS overrides) in the middle of a flow.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ackTarget, isAck } from '../../../lib/mesh/ack';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { silentLogger } from '../../../gateway/logger';
import { MqttConnection } from '../../../gateway/mqtt/connection';
import type { VirtualPeer } from '../../../gateway/radios';
import { discoveryProblems } from '../../support/ha-discovery-rules';
import { Recorder, eventually } from '../../gateway/support/broker';
import { testConfig } from '../../gateway/support/config';
import { BASE, startGateway, tempDir, type Running } from '../../gateway/support/gateway';
import { Mosquitto, PASSWORD, USER } from './mosquitto';

const OUTAGE_MS = Number(process.env.CLAWLING_TEST_BROKER_OUTAGE_MS ?? 30000);

function message(from: VirtualPeer, to: string, content: string): MeshMessage {
  return createMessage({ id: MessageId.random(), sender: from.address, recipient: to, app_id: 'mosquitto', priority: 'medium', ttl: 8, hop_count: 0, timestamp: BigInt(Date.now()), content });
}

function acked(peer: VirtualPeer): Set<string> {
  return new Set(peer.receipts().flatMap((r) => (r.message && isAck(r.message) ? [ackTarget(r.message)!] : [])));
}

describe('gateway against a real Mosquitto (MQTT 5, TLS, credentials)', function () {
  this.timeout(OUTAGE_MS + 60000);
  let dir: string;
  let mq: Mosquitto;
  let passwordFile: string;
  const running: Running[] = [];
  const recorders: Recorder[] = [];

  const auth = { username: USER, password: PASSWORD, protocolVersion: 5 as const };

  before(async () => {
    dir = tempDir('gw-mosquitto-');
    mq = await Mosquitto.start(dir);
    passwordFile = path.join(dir, 'mqtt-password');
    fs.writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  });
  afterEach(async () => {
    for (const r of running.splice(0)) await r.stop();
    for (const r of recorders.splice(0)) await r.close();
  });
  after(async () => {
    await mq.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function gateway(mqtt: Record<string, unknown>): Promise<Running> {
    const g = await startGateway(undefined, { mqtt: { enabled: true, reconnect_min_ms: 200, reconnect_max_ms: 1000, ...mqtt } }, tempDir('gw-mq-state-'));
    running.push(g);
    await eventually(() => g.gateway.mqtt?.connected === true, 10000, `the gateway connected\n${mq.log}`);
    return g;
  }

  async function recorder(url: string, filters: string[], options: Record<string, unknown>): Promise<Recorder> {
    const r = await Recorder.connect(url, filters, options);
    recorders.push(r);
    return r;
  }

  it('speaks MQTT 5 with a password file, and carries the mesh id as a user property', async () => {
    const rec = await recorder(mq.url, [`${BASE}/messages`], auth);
    const g = await gateway({ url: mq.url, username: USER, password_file: passwordFile });
    assert.equal(g.gateway.mqtt?.protocolVersion, 5);
    const alice = g.peer('sim0', 'alice');
    const m = message(alice, g.gateway.info.address, 'over MQTT 5');
    await alice.send(m);
    await rec.until(() => rec.on(`${BASE}/messages`).length === 1, 5000, 'the message');
    const got = rec.on(`${BASE}/messages`)[0]!;
    assert.equal((JSON.parse(got.payload.toString()) as { id: string }).id, m.id.toString());
    assert.deepEqual({ ...(got.properties?.userProperties as object) }, { message_id: m.id.toString() });
    assert.equal(got.properties?.contentType, 'application/json');
    await eventually(() => acked(alice).has(m.id.toString()), 5000, 'ACK after PUBACK');
  });

  it('does not connect with a wrong password and reports why', async () => {
    const config = testConfig(dir, { mqtt: { enabled: true, url: mq.url, username: USER, password: 'wrong', reconnect_min_ms: 5000, reconnect_max_ms: 5000 } });
    const conn = new MqttConnection({ config: config.mqtt, clientId: 'wrong-password', will: { topic: 't/state', payload: 'offline' }, logger: silentLogger() });
    conn.start();
    await eventually(() => conn.lastErrorText !== undefined, 5000, 'the refusal');
    assert.equal(conn.connected, false);
    assert.match(conn.lastErrorText!, /not authori[sz]ed|bad user name or password/i);
    await conn.stop();
  });

  it('connects over TLS with a client certificate, and is refused without one', async () => {
    const tls = { ca: mq.pki.ca, cert: mq.pki.clientCert, key: mq.pki.clientKey };
    const rec = await recorder(mq.tlsUrl, [`${BASE}/bridge/state`], { protocolVersion: 5, ca: fs.readFileSync(mq.pki.ca), cert: fs.readFileSync(mq.pki.clientCert), key: fs.readFileSync(mq.pki.clientKey) });
    const g = await gateway({ url: mq.tlsUrl, tls });
    assert.equal(g.gateway.mqtt?.protocolVersion, 5);
    await rec.until(() => rec.on(`${BASE}/bridge/state`).some((m) => m.payload.toString() === 'online'), 5000, 'online over TLS');

    const config = testConfig(dir, { mqtt: { enabled: true, url: mq.tlsUrl, tls: { ca: mq.pki.ca }, reconnect_min_ms: 5000, reconnect_max_ms: 5000 } });
    const bare = new MqttConnection({ config: config.mqtt, clientId: 'no-client-cert', will: { topic: 't/state', payload: 'offline' }, logger: silentLogger() });
    bare.start();
    await eventually(() => bare.lastErrorText !== undefined, 5000, 'the TLS refusal');
    assert.equal(bare.connected, false);
    await bare.stop();
  });

  it('publishes Home Assistant discovery that follows the documented rules, retained on the broker', async () => {
    const g = await gateway({ url: mq.url, username: USER, password_file: passwordFile });
    const alice = g.peer('sim0', 'alice');
    const m = message(alice, g.gateway.info.address, 'temperature 21.5 °C');
    await alice.send(m);
    await alice.waitFor((r) => r.message !== undefined && isAck(r.message) && ackTarget(r.message) === m.id.toString());
    // The message's app id becomes an event type of alice's device, which is announced again with it; only once that
    // has happened is there nothing left in flight for a later subscriber to get live.
    const early = await recorder(mq.url, [`homeassistant/device/mesh_${alice.address}/config`], auth);
    await early.until(() => early.messages.some((x) => x.payload.toString().includes('"app_mosquitto"')), 5000, 'the device with its new event type');
    // A subscriber that arrives later gets what Home Assistant would get at its start: the retained configs.
    const rec = await recorder(mq.url, ['homeassistant/#'], auth);
    await rec.until(() => rec.messages.some((x) => x.topic === 'homeassistant/device/clawling_gw-test/config'), 5000, 'the retained gateway device');
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(rec.messages.every((x) => x.retain), 'every discovery message is retained');
    assert.deepEqual(discoveryProblems(rec.messages), []);
  });

  it("sends a text to a mesh node from its Home Assistant notify entity and reports the ACK", async () => {
    const g = await gateway({ url: mq.url, username: USER, password_file: passwordFile });
    const alice = g.peer('sim0', 'alice');
    const rec = await recorder(mq.url, ['homeassistant/device/#', 'clawling/nodes/#'], auth);
    const topic = `homeassistant/device/mesh_${alice.address}/config`;
    await rec.until(() => rec.on(topic).length > 0, 5000, "alice's device");
    const notify = (JSON.parse(rec.on(topic).at(-1)!.payload.toString()) as { components: { send: { platform: string; command_topic: string } } }).components.send;
    assert.equal(notify.platform, 'notify');
    await rec.client.publishAsync(notify.command_topic, 'dim the lights', { qos: 1 });
    await alice.waitFor((r) => r.message?.content === 'dim the lights');
    await rec.until(() => rec.json<{ status: string }>(`clawling/nodes/${alice.address}/send/result`).some((r) => r.status === 'acked'), 5000, 'acked');
  });

  it('answers a send request on its MQTT 5 response topic with the correlation data', async () => {
    const g = await gateway({ url: mq.url, username: USER, password_file: passwordFile });
    const rec = await recorder(mq.url, ['replies/me'], auth);
    const alice = g.peer('sim0', 'alice');
    await rec.client.publishAsync(`${BASE}/send`, JSON.stringify({ recipient: alice.address, content: 'ping' }), {
      qos: 1,
      properties: { responseTopic: 'replies/me', correlationData: Buffer.from('req-42') },
    });
    await rec.until(() => rec.json<{ status: string }>('replies/me').some((r) => r.status === 'acked'), 5000, 'acked reply');
    assert.ok(rec.on('replies/me').every((m) => Buffer.from(m.properties?.correlationData as Buffer).toString() === 'req-42'));
    assert.equal((await alice.waitFor((r) => r.message?.content === 'ping')).format, 'binary');
  });

  it('leaves the retained offline will when the gateway is killed', async () => {
    const rec = await recorder(mq.url, ['clawling/killed/bridge/state'], auth);
    const file = path.join(dir, 'killed.yaml');
    fs.writeFileSync(
      file,
      `gateway:\n  id: killed\n  state_dir: ${path.join(dir, 'killed-state')}\nlog:\n  level: warn\nmqtt:\n  url: ${mq.url}\n  username: ${USER}\n  password_file: ${passwordFile}\n  keepalive_s: 2\nhttp:\n  enabled: false\n`,
    );
    const child = spawn(process.execPath, [path.join(__dirname, '..', '..', '..', 'cli', 'clawling.js'), 'gateway', '--config', file], { stdio: 'ignore' });
    try {
      await rec.until(() => rec.on('clawling/killed/bridge/state').at(-1)?.payload.toString() === 'online', 10000, 'online');
      child.kill('SIGKILL');
      await rec.until(() => rec.on('clawling/killed/bridge/state').at(-1)?.payload.toString() === 'offline', 10000, 'the will');
    } finally {
      child.kill('SIGKILL');
    }
    const late = await recorder(mq.url, ['clawling/killed/bridge/state'], auth);
    await late.until(() => late.on('clawling/killed/bridge/state').length === 1, 5000, 'retained');
    assert.equal(late.messages[0]!.payload.toString(), 'offline');
    assert.equal(late.messages[0]!.retain, true);
  });

  it(`loses nothing while Mosquitto is stopped for ${OUTAGE_MS / 1000} s mid-flow`, async () => {
    // A persistent subscriber: its session and queued messages survive the broker restart.
    const rec = await recorder(mq.url, [`${BASE}/messages`], { ...auth, clientId: 'outage-subscriber', clean: false, properties: { sessionExpiryInterval: 3600 } });
    const g = await gateway({ url: mq.url, username: USER, password_file: passwordFile });
    const alice = g.peer('sim0', 'alice');
    const sent: MeshMessage[] = [];
    let flowing = true;
    const flow = (async () => {
      while (flowing) {
        const m = message(alice, g.gateway.info.address, `reading ${sent.length}`);
        sent.push(m);
        await alice.send(m);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await new Promise((r) => setTimeout(r, 500));
    await mq.stop();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    assert.ok((g.gateway.snapshot().queues.mqtt?.depth ?? 0) > 0, 'the outbox held the messages meanwhile');
    await mq.restart();
    await new Promise((r) => setTimeout(r, 500));
    flowing = false;
    await flow;
    await eventually(() => acked(alice).size === sent.length, 20000, 'every message ACKed after the outage');
    const want = sent.map((m) => m.id.toString());
    await rec.until(() => new Set(rec.json<{ id: string }>(`${BASE}/messages`).map((p) => p.id)).size === want.length, 20000, 'every message at the subscriber');
    const firsts = [...new Set(rec.json<{ id: string }>(`${BASE}/messages`).map((p) => p.id))];
    assert.deepEqual(firsts, want, 'in order');
    console.log(`      outage: ${sent.length} messages over a ${OUTAGE_MS / 1000} s broker outage, all delivered in order`);
  });
});
