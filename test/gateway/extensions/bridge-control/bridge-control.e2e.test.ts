/**
 * The gateway's controls over MQTT and in Home Assistant, end to end: the real `clawling gateway` run loop in this
 * process (so a restart is a real stop and start), a real aedes broker, requests published as Home Assistant would.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import YAML from 'yaml';
import type { Gateway } from '../../../../gateway/gateway';
import { runGateway } from '../../../../gateway/main';
import { discoveryProblems } from '../../../support/ha-discovery-rules';
import { eventually, Recorder, startBroker, type TestBroker } from '../../support/broker';
import { startGateway, tempDir, type Running } from '../../support/gateway';

const BASE = 'clawling/gw-ctl';

interface Discovery {
  components: Record<string, Record<string, unknown>>;
}

describe('gateway controls over MQTT (bridge requests) and in Home Assistant', function () {
  this.timeout(30_000);
  let broker: TestBroker;
  let rec: Recorder;
  let dir: string;

  beforeEach(async () => {
    broker = await startBroker();
    rec = await Recorder.connect(broker.url, [`${BASE}/bridge/#`, 'homeassistant/#']);
    dir = tempDir('gw-ctl-');
  });
  afterEach(async () => {
    await rec.close();
    await broker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('restarts in place on the restart request, answers first, and comes back under the same identity', async () => {
    const file = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(file, YAML.stringify({ gateway: { id: 'gw-ctl', state_dir: path.join(dir, 'state') }, log: { level: 'silent' }, radios: [{ id: 'sim0', kind: 'simulated' }], http: { enabled: false }, mqtt: { url: broker.url } }));
    const started: Gateway[] = [];
    const running = runGateway({ configFile: file, env: {}, stderr: new PassThrough(), onStarted: (g) => started.push(g) });
    try {
      await eventually(() => started.length === 1 && started[0]!.mqtt?.connected === true, 10_000, 'first start');
      const gatewayDevice = `homeassistant/device/clawling_gw-ctl/config`;
      await rec.until(() => rec.on(gatewayDevice).length > 0, 5000, 'the gateway device');
      const dev = JSON.parse(rec.on(gatewayDevice).at(-1)!.payload.toString()) as Discovery;
      assert.equal(dev.components.restart!.platform, 'button');
      assert.equal(dev.components.restart!.command_topic, `${BASE}/bridge/request/restart`);
      assert.deepEqual(discoveryProblems(rec.messages), []);
      await rec.client.publishAsync(`${BASE}/bridge/request/restart`, 'restart', { qos: 1 });
      await rec.until(() => rec.json<{ status: string }>(`${BASE}/bridge/response/restart`).some((r) => r.status === 'ok'), 5000, 'the answer');
      await eventually(() => started.length === 2 && started[1]!.mqtt?.connected === true, 15_000, 'second start');
      assert.notEqual(started[1], started[0]);
      assert.equal(started[1]!.info.address, started[0]!.info.address);
    } finally {
      process.emit('SIGTERM', 'SIGTERM');
      assert.equal(await running, 0);
    }
  });

  describe('on a gateway run by a program (no run loop)', () => {
    let gw: Running;
    beforeEach(async () => {
      gw = await startGateway(broker, { gateway: { id: 'gw-ctl' }, mqtt: { enabled: true, url: broker.url, base_topic: BASE }, log: { level: 'info' } }, dir);
    });
    afterEach(async () => {
      await gw?.stop();
    });

    it('changes the log level of every logger, keeps it as the select state, and refuses a level that does not exist', async () => {
      // A gateway run by a program logs where the program says: here a silent logger, shown as it is.
      await rec.until(() => rec.json<{ log_level: string }>(`${BASE}/bridge/options`).some((o) => o.log_level === 'silent'), 5000, 'the options');
      await rec.client.publishAsync(`${BASE}/bridge/request/log_level`, JSON.stringify({ value: 'debug' }), { qos: 1 });
      await rec.until(() => rec.json<{ log_level: string }>(`${BASE}/bridge/options`).some((o) => o.log_level === 'debug'), 5000, 'debug');
      await rec.until(() => rec.json(`${BASE}/bridge/response/log_level`).length === 1, 5000, 'the answer');
      assert.deepEqual(rec.json(`${BASE}/bridge/response/log_level`)[0], { status: 'ok', data: { log_level: 'debug' } });
      const ext = (gw.gateway as unknown as { extensions: Array<{ name: string; ctx: { logger: { level: string } } }> }).extensions;
      for (const e of ext) assert.equal(e.ctx.logger.level, 'debug', `${e.name}'s logger`);
      await rec.client.publishAsync(`${BASE}/bridge/request/log_level`, 'loud', { qos: 1 });
      await rec.until(() => rec.json<{ status: string }>(`${BASE}/bridge/response/log_level`).some((r) => r.status === 'error'), 5000, 'the refusal');
      assert.match((rec.json<{ error: string }>(`${BASE}/bridge/response/log_level`).at(-1))!.error, /one of fatal, error, warn, info, debug, trace, silent/);
      assert.equal(e0Level(gw), 'debug', 'a refused request changes nothing');
    });

    it('offers a log-level select and a version sensor, but no restart button it could not honour', async () => {
      const topic = 'homeassistant/device/clawling_gw-ctl/config';
      await rec.until(() => rec.on(topic).length > 0, 5000, 'the gateway device');
      const dev = JSON.parse(rec.on(topic).at(-1)!.payload.toString()) as Discovery;
      assert.equal(dev.components.log_level!.platform, 'select');
      assert.deepEqual(dev.components.log_level!.options, ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
      assert.equal(dev.components.version!.state_topic, `${BASE}/bridge/info`);
      assert.equal(dev.components.restart, undefined);
      await rec.client.publishAsync(`${BASE}/bridge/request/restart`, '', { qos: 1 });
      await rec.until(() => rec.json<{ status: string }>(`${BASE}/bridge/response/restart`).length > 0, 5000, 'the answer');
      assert.equal(rec.json<{ status: string }>(`${BASE}/bridge/response/restart`)[0]!.status, 'error');
      assert.deepEqual(discoveryProblems(rec.messages), []);
    });
  });

  describe('the pairing window (a BLE radio with admission: listed)', () => {
    // No adapter here: the radio is unsupported, but its admission rule is what offers the window.
    const BLE = { id: 'ble0', kind: 'ble', adapter: 'uart:/dev/clawling-no-such-controller', admission: 'listed', peripheral: { enabled: false } };
    let gw: Running | undefined;
    afterEach(async () => {
      await gw?.stop();
      gw = undefined;
    });
    const start = async (extra: Record<string, unknown> = {}): Promise<Running> => {
      gw = await startGateway(broker, { gateway: { id: 'gw-ctl', pairing_window_s: 300 }, mqtt: { enabled: true, url: broker.url, base_topic: BASE, ...extra }, radios: [{ id: 'sim0', kind: 'simulated' }, BLE] }, dir);
      return gw;
    };
    const options = (): Array<{ pairing?: string; pairing_until?: string | null }> => rec.json(`${BASE}/bridge/options`);

    it('is a switch in Home Assistant, off by default; a request opens it for the seconds asked and it turns itself off', async () => {
      await start();
      const topic = 'homeassistant/device/clawling_gw-ctl/config';
      await rec.until(() => rec.on(topic).length > 0 && options().length > 0, 5000, 'the gateway device and options');
      const dev = JSON.parse(rec.on(topic).at(-1)!.payload.toString()) as Discovery;
      assert.deepEqual(
        [dev.components.pairing!.platform, dev.components.pairing!.command_topic, dev.components.pairing!.state_topic, dev.components.pairing!.value_template],
        ['switch', `${BASE}/bridge/request/pairing`, `${BASE}/bridge/options`, '{{ value_json.pairing }}'],
      );
      assert.deepEqual(discoveryProblems(rec.messages), []);
      assert.equal(options().at(-1)!.pairing, 'OFF');

      const t0 = Date.now();
      await rec.client.publishAsync(`${BASE}/bridge/request/pairing`, JSON.stringify({ value: 2 }), { qos: 1 });
      await rec.until(() => options().some((o) => o.pairing === 'ON'), 5000, 'the switch on');
      const on = options().find((o) => o.pairing === 'ON')!;
      assert.ok(Math.abs(Date.parse(on.pairing_until!) - (t0 + 2000)) < 1500, `until ${on.pairing_until}`);
      // The options go out as the window opens, before the answer to the request that opened it: wait for that too.
      await rec.until(() => rec.json(`${BASE}/bridge/response/pairing`).length > 0, 5000, 'the answer');
      assert.equal((rec.json<{ status: string; data: { pairing: string } }>(`${BASE}/bridge/response/pairing`).at(-1))!.data.pairing, 'ON');
      await rec.until(() => options().at(-1)!.pairing === 'OFF', 6000, 'the window closed by itself');
      assert.equal(options().at(-1)!.pairing_until, null);
    });

    it('refuses a value it cannot read, and changes nothing', async () => {
      await start();
      await rec.until(() => options().length > 0, 5000, 'the options');
      await rec.client.publishAsync(`${BASE}/bridge/request/pairing`, 'maybe', { qos: 1 });
      await rec.until(() => rec.json(`${BASE}/bridge/response/pairing`).length > 0, 5000, 'the answer');
      assert.deepEqual(rec.json<{ status: string; code: string }>(`${BASE}/bridge/response/pairing`).map((r) => [r.status, r.code]), [['error', 'BAD_PAIRING_VALUE']]);
      assert.equal(options().at(-1)!.pairing, 'OFF');
    });

    it('is neither offered nor carried out when mqtt.send_policy.requests leaves it out', async () => {
      await start({ send_policy: { requests: ['log_level'] } });
      const topic = 'homeassistant/device/clawling_gw-ctl/config';
      await rec.until(() => rec.on(topic).length > 0, 5000, 'the gateway device');
      const dev = JSON.parse(rec.on(topic).at(-1)!.payload.toString()) as Discovery;
      assert.equal(dev.components.pairing, undefined);
      assert.equal(dev.components.log_level!.platform, 'select');
      await rec.client.publishAsync(`${BASE}/bridge/request/pairing`, 'ON', { qos: 1 });
      await rec.until(() => rec.json(`${BASE}/bridge/response/pairing`).length > 0, 5000, 'the answer');
      assert.equal((rec.json<{ code: string }>(`${BASE}/bridge/response/pairing`)[0])!.code, 'SEND_POLICY_REQUEST');
      assert.equal(options().every((o) => o.pairing !== 'ON'), true);
    });
  });

  it('offers no pairing switch when no BLE radio admits listed peers only', async () => {
    const gw = await startGateway(broker, { gateway: { id: 'gw-ctl' }, mqtt: { enabled: true, url: broker.url, base_topic: BASE } }, dir);
    try {
      const topic = 'homeassistant/device/clawling_gw-ctl/config';
      await rec.until(() => rec.on(topic).length > 0, 5000, 'the gateway device');
      assert.equal((JSON.parse(rec.on(topic).at(-1)!.payload.toString()) as Discovery).components.pairing, undefined);
      await rec.client.publishAsync(`${BASE}/bridge/request/pairing`, 'ON', { qos: 1 });
      await rec.until(() => rec.json(`${BASE}/bridge/response/pairing`).length > 0, 5000, 'the answer');
      assert.equal((rec.json<{ code: string }>(`${BASE}/bridge/response/pairing`)[0])!.code, 'PAIRING_UNAVAILABLE');
    } finally {
      await gw.stop();
    }
  });
});

function e0Level(gw: Running): string {
  return (gw.gateway as unknown as { extensions: Array<{ ctx: { logger: { level: string } } }> }).extensions[0]!.ctx.logger.level;
}
