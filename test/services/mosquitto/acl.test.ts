/**
 * The locked broker of docs/mqtt.md, as documented: a real Mosquitto runs the example files of docs/examples/mosquitto
 * (the listener moved to a free loopback port, the two paths to a temporary folder, nothing else changed), with the
 * password file made by `mosquitto_passwd` as the docs say, and the gateway, Home Assistant and a flow each log in as
 * their user. What each may do works end to end; what they may not is refused by the broker; docs/mqtt.md shows
 * exactly these files.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import mqtt from 'mqtt';
import type { VirtualPeer } from '../../../gateway/radios';
import { Recorder, eventually } from '../../gateway/support/broker';
import { startGateway, tempDir, TWO_RADIOS, type Running } from '../../gateway/support/gateway';
import { freePort, mosquittoBinary, waitForPort } from './mosquitto';

const EXAMPLES = path.resolve(__dirname, '../../../../docs/examples/mosquitto');
const DOCS = path.resolve(__dirname, '../../../../docs/mqtt.md');
const BASE = 'clawling/pi-kitchen';
const SITE = 'clawling/site/home';
const PASSWORDS: Record<string, string> = { 'clawling-gw': 'gw secret', homeassistant: 'ha secret', nodered: 'flow secret', intruder: 'has a login, no rights' };

function example(name: string): string {
  return fs.readFileSync(path.join(EXAMPLES, name), 'utf8');
}

/** The documented acl and conf files, run as they are (only the listener and the paths made local). */
async function startDocumentedBroker(dir: string, acl: string): Promise<{ url: string; child: ChildProcess; log: () => string }> {
  const passwd = path.join(dir, 'passwd');
  const aclFile = path.join(dir, 'acl');
  fs.writeFileSync(aclFile, example(acl));
  // As docs/mqtt.md says: -c creates the file with the first user, later users are added without it.
  Object.entries(PASSWORDS).forEach(([user, password], i) => execFileSync('mosquitto_passwd', [...(i === 0 ? ['-c'] : []), '-b', passwd, user, password], { stdio: 'pipe' }));
  const port = await freePort();
  const documented = example('clawling.conf');
  const conf = documented
    .replace(/^listener 1883$/m, `listener ${port} 127.0.0.1`)
    .replace(/^password_file .*$/m, `password_file ${passwd}`)
    .replace(/^acl_file .*$/m, `acl_file ${aclFile}`);
  assert.notEqual(conf, documented);
  const file = path.join(dir, 'mosquitto.conf');
  fs.writeFileSync(file, ['user root', 'log_dest stderr', 'log_type error', 'log_type warning', conf].join('\n'));
  let log = '';
  const child = spawn(mosquittoBinary(), ['-c', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  await waitForPort(port, 5000);
  return { url: `mqtt://127.0.0.1:${port}`, child, log: () => log };
}

function login(user: string): Record<string, unknown> {
  return { username: user, password: PASSWORDS[user], protocolVersion: 5 };
}

/** Resolves with the broker's reason code for a QoS 1 publish (0: accepted). */
async function publishCode(rec: Recorder, topic: string, payload: string): Promise<number> {
  try {
    await rec.client.publishAsync(topic, payload, { qos: 1 });
    return 0;
  } catch (err) {
    return (err as { code?: number }).code ?? -1;
  }
}

for (const acl of ['acl', 'ha-addon/accesscontrollist']) {
  describe(`the documented Mosquitto lock (docs/examples/mosquitto/${acl})`, function () {
    this.timeout(60000);
    let dir: string;
    let broker: Awaited<ReturnType<typeof startDocumentedBroker>>;
    let gw: Running;
    let alice: VirtualPeer;
    const recorders: Recorder[] = [];

    async function recorder(user: string, filters: string[]): Promise<Recorder> {
      const r = await Recorder.connect(broker.url, filters, login(user));
      recorders.push(r);
      return r;
    }

    before(async () => {
      dir = tempDir('mq-acl-');
      broker = await startDocumentedBroker(dir, acl);
      const passwordFile = path.join(dir, 'gateway-password');
      fs.writeFileSync(passwordFile, `${PASSWORDS['clawling-gw']}\n`, { mode: 0o600 });
      gw = await startGateway(
        undefined,
        {
          gateway: { id: 'pi-kitchen' },
          mqtt: { enabled: true, url: broker.url, username: 'clawling-gw', password_file: passwordFile, reconnect_min_ms: 200, site: { id: 'home' } },
          // A BLE radio that admits listed peers only offers the pairing window (no controller here: it stays unsupported).
          radios: [...TWO_RADIOS, { id: 'ble0', kind: 'ble', adapter: 'uart:/dev/clawling-no-such-controller', admission: 'listed', peripheral: { enabled: false } }],
        },
        tempDir('mq-acl-gw-'),
      );
      await eventually(() => gw.gateway.mqtt?.connected === true, 10000, `the gateway connected\n${broker.log()}`);
      alice = gw.peer('sim0', 'alice');
    });
    after(async () => {
      for (const r of recorders.splice(0)) await r.close();
      await gw?.stop();
      if (gw) fs.rmSync(gw.dir, { recursive: true, force: true });
      broker?.child.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('is docs/mqtt.md word for word', () => {
      const docs = fs.readFileSync(DOCS, 'utf8');
      for (const name of ['clawling.conf', 'acl', 'ha-addon/acl.conf', 'ha-addon/accesscontrollist']) assert.ok(docs.includes(example(name)), `docs/mqtt.md shows docs/examples/mosquitto/${name}`);
    });

    it('refuses a client without a login', async () => {
      const client = mqtt.connect(broker.url, { protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 5000 });
      const code = await new Promise<number | undefined>((resolve) => {
        client.once('connect', () => resolve(0));
        client.once('error', (err) => resolve((err as { code?: number }).code));
      });
      client.end(true);
      assert.equal(code, 135, 'CONNACK: not authorized');
    });

    it("lets the gateway publish its state and discovery, Home Assistant send through the notify topic, and the flow through the send topic", async () => {
      const ha = await recorder('homeassistant', ['homeassistant/#', 'clawling/#']);
      const flow = await recorder('nodered', [`${BASE}/messages`, `${BASE}/bridge/#`, `${BASE}/send/result/#`, `${SITE}/send/result/#`]);
      await ha.until(() => ha.on('homeassistant/device/clawling_pi-kitchen/config').length > 0, 5000, 'the gateway device, written by the gateway user');
      await ha.until(() => ha.on(`homeassistant/device/mesh_${alice.address}/config`).length > 0, 5000, "alice's device");
      await flow.until(() => flow.on(`${BASE}/bridge/state`).some((m) => m.payload.toString() === 'online'), 5000, 'bridge state, read by the flow');

      assert.equal(await publishCode(ha, `clawling/nodes/${alice.address}/send`, 'from home assistant'), 0);
      await ha.until(() => ha.json<{ status: string }>(`clawling/nodes/${alice.address}/send/result`).some((r) => r.status === 'acked'), 5000, 'the notify send acked');
      assert.equal(await publishCode(flow, `${BASE}/send`, JSON.stringify({ recipient: alice.address, content: 'from the flow', request_id: 'flow-1' })), 0);
      await flow.until(() => flow.json<{ request_id?: string; status: string }>(`${BASE}/send/result`).some((r) => r.request_id === 'flow-1' && r.status === 'acked'), 5000, 'the flow send acked');
      // The site downlink: the gateway's shared subscription passes the ACL, the flow may send there and read the answer.
      assert.equal(await publishCode(flow, `${SITE}/send`, JSON.stringify({ recipient: alice.address, content: 'through the site', request_id: 'site-1' })), 0);
      await flow.until(() => flow.json<{ request_id?: string; status: string; gateway?: string }>(`${SITE}/send/result`).some((r) => r.request_id === 'site-1' && r.status === 'acked' && r.gateway === 'pi-kitchen'), 5000, 'the site send acked');
      const got = alice.received().map((m) => m.content);
      assert.ok(got.includes('from home assistant') && got.includes('from the flow') && got.includes('through the site'));
    });

    it("takes the gateway's control requests from Home Assistant only: a refused request changes nothing", async () => {
      const ha = await recorder('homeassistant', [`${BASE}/bridge/#`]);
      const flow = await recorder('nodered', [`${BASE}/bridge/#`]);
      const intruder = await recorder('intruder', ['clawling/#']);
      await ha.until(() => ha.json<{ log_level: string }>(`${BASE}/bridge/options`).length > 0, 5000, 'the options');
      const before = ha.json<{ log_level: string }>(`${BASE}/bridge/options`).at(-1)!.log_level;
      const wanted = before === 'debug' ? 'warn' : 'debug';
      const denied = [await publishCode(flow, `${BASE}/bridge/request/log_level`, wanted), await publishCode(intruder, `${BASE}/bridge/request/restart`, 'restart')];
      assert.deepEqual(denied, [135, 135], 'PUBACK: not authorized');
      assert.equal(await publishCode(ha, `${BASE}/bridge/request/log_level`, wanted), 0);
      await ha.until(() => ha.json<{ log_level: string }>(`${BASE}/bridge/response/log_level`).length > 0, 5000, "Home Assistant's answer");
      // One answer only: the refused requests never reached the gateway.
      assert.deepEqual(ha.json(`${BASE}/bridge/response/log_level`), [{ status: 'ok', data: { log_level: wanted } }]);
      assert.deepEqual(ha.json(`${BASE}/bridge/response/restart`), []);
      assert.equal(gw.gateway.mqtt?.connected, true);
    });

    it('opens the pairing window for Home Assistant only: the flow and an intruder admit nothing', async () => {
      const ha = await recorder('homeassistant', [`${BASE}/bridge/#`]);
      const flow = await recorder('nodered', [`${BASE}/bridge/#`]);
      const intruder = await recorder('intruder', ['clawling/#']);
      const options = (): Array<{ pairing?: string }> => ha.json(`${BASE}/bridge/options`);
      await ha.until(() => options().at(-1)?.pairing === 'OFF', 5000, 'the switch off');
      assert.deepEqual([await publishCode(flow, `${BASE}/bridge/request/pairing`, 'ON'), await publishCode(intruder, `${BASE}/bridge/request/pairing`, 'ON')], [135, 135]);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(gw.gateway.pairingOpen, false, 'a refused request opened nothing');
      assert.equal(await publishCode(ha, `${BASE}/bridge/request/pairing`, 'ON'), 0);
      await ha.until(() => options().at(-1)?.pairing === 'ON', 5000, 'the switch on');
      assert.equal(gw.gateway.pairingOpen, true);
      assert.equal(await publishCode(ha, `${BASE}/bridge/request/pairing`, 'OFF'), 0);
      await ha.until(() => options().at(-1)?.pairing === 'OFF', 5000, 'the switch off again');
      // The options go out when the window changes, before the answer to the request that changed it: wait for it.
      const answers = (): string[] => ha.json<{ status: string }>(`${BASE}/bridge/response/pairing`).map((r) => r.status);
      await ha.until(() => answers().length >= 2, 5000, 'the answer to OFF');
      // A refused request that had reached the gateway would have been answered before the first 'ok'.
      assert.deepEqual(answers(), ['ok', 'ok'], 'two answers: the refused requests never arrived');
    });

    it('refuses a login without rights on the send topic, and the flow everywhere else: nothing of theirs reaches the mesh', async () => {
      // Asks for everything; the broker grants nothing (the retained bridge state would otherwise arrive at once).
      const intruder = await recorder('intruder', ['clawling/#', 'homeassistant/#']);
      const flow = await recorder('nodered', [`${BASE}/send/result/#`]);
      const denied = [
        await publishCode(intruder, `${BASE}/send`, JSON.stringify({ recipient: alice.address, content: 'intruder', request_id: 'intruder' })),
        await publishCode(intruder, `clawling/nodes/${alice.address}/send`, 'intruder notify'),
        await publishCode(flow, `clawling/nodes/${alice.address}/send`, 'flow notify'),
        await publishCode(flow, `${BASE}/bridge/state`, 'offline'),
        await publishCode(flow, 'homeassistant/device/clawling_pi-kitchen/config', ''),
        await publishCode(flow, 'clawling/other-gateway/send', JSON.stringify({ recipient: alice.address, content: 'elsewhere' })),
        await publishCode(intruder, `${SITE}/send`, JSON.stringify({ recipient: alice.address, content: 'intruder site' })),
        await publishCode(flow, 'clawling/site/other/send', JSON.stringify({ recipient: alice.address, content: 'other site' })),
      ];
      assert.deepEqual(denied, [135, 135, 135, 135, 135, 135, 135, 135], 'PUBACK: not authorized');
      // Its PUBACKs came after anything the broker sent it when it subscribed: it read nothing.
      assert.deepEqual(intruder.messages.map((m) => m.topic), []);
      // The broker handled each refused publish before its PUBACK; a later allowed one is answered after them.
      await publishCode(flow, `${BASE}/send`, JSON.stringify({ recipient: alice.address, content: 'after', request_id: 'after' }));
      await flow.until(() => flow.json<{ request_id?: string; status: string }>(`${BASE}/send/result`).some((r) => r.request_id === 'after' && r.status === 'acked'), 5000, 'the later send acked');
      await alice.waitFor((r) => r.message?.content === 'after');
      assert.equal(flow.json<{ request_id?: string }>(`${BASE}/send/result`).some((r) => r.request_id === 'intruder'), false);
      const got = alice.received().map((m) => m.content);
      for (const never of ['intruder', 'intruder notify', 'flow notify', 'elsewhere', 'intruder site', 'other site']) assert.equal(got.includes(never), false, never);
      assert.equal(gw.gateway.mqtt?.connected, true);
    });

    it("tells the gateway's own publish path of a publish the broker refused: MQTT_PUBLISH_REFUSED with the PUBACK's reason code", async () => {
      const conn = gw.gateway.mqtt!;
      await assert.rejects(conn.publishAsync('clawling/other-gateway/messages', 'not mine', { qos: 1 }), (err: { code?: string; details?: { reasonCode?: number } }) => {
        assert.equal(err.code, 'MQTT_PUBLISH_REFUSED');
        assert.equal(err.details?.reasonCode, 135, 'not authorized');
        return true;
      });
      // The connection stays up and its next publish, on a topic of its own, is taken.
      await conn.publishAsync(`${BASE}/bridge/probe`, 'mine', { qos: 1, properties: { contentType: 'text/plain' } });
      assert.equal(conn.connected, true);
    });
  });
}
