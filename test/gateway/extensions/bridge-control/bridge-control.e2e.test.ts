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
});

function e0Level(gw: Running): string {
  return (gw.gateway as unknown as { extensions: Array<{ ctx: { logger: { level: string } } }> }).extensions[0]!.ctx.logger.level;
}
