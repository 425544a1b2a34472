/** `/health` as monitoring reads it: a real gateway, real HTTP, a real broker that goes away. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Gateway } from '../../../../gateway/gateway';
import { silentLogger } from '../../../../gateway/logger';
import { createRadio, RadioError, type Radio } from '../../../../gateway/radios';
import { eventually, startBroker, type TestBroker } from '../../support/broker';
import { testConfig } from '../../support/config';
import { tempDir } from '../../support/gateway';

interface Health {
  status: string;
  causes: Array<{ code: string; detail: string }>;
}

function getHealth(base: string): Promise<{ code: number; body: Health }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}/health`, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body: JSON.parse(text) as Health }));
      })
      .on('error', reject);
  });
}

/** A BLE radio on a host without the noble package: the real BleRadio, its loader failing as a missing package does. */
function unsupportedBle(id: string): Radio {
  return createRadio(
    { id, kind: 'ble', peripheral: { enabled: false } },
    {
      logger: silentLogger(),
      stateDir: '/nonexistent',
      noble: () => {
        throw new RadioError('UNSUPPORTED', 'the optional package @stoprocent/noble is not usable here (Cannot find module)', { package: '@stoprocent/noble' });
      },
    },
  );
}

describe('gateway /health', function () {
  this.timeout(30000);
  let dir: string;
  let gateway: Gateway | undefined;
  let broker: TestBroker | undefined;
  beforeEach(() => {
    dir = tempDir('gw-health-');
  });
  afterEach(async () => {
    await gateway?.stop('test');
    gateway = undefined;
    await broker?.stop();
    broker = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function start(overrides: Record<string, unknown>, radios?: Radio[]): Promise<string> {
    const config = testConfig(path.join(dir, 'state'), { http: { enabled: true, port: 0 }, ...overrides });
    gateway = new Gateway(config, radios ? { radios } : {});
    await gateway.start();
    return gateway.statusUrl!;
  }

  it('answers 503 degraded with the cause when every radio is unusable', async () => {
    const base = await start({ radios: [] }, [unsupportedBle('ble0')]);
    assert.equal(gateway!.radios[0]!.status().state, 'unsupported');
    const h = await getHealth(base);
    assert.equal(h.code, 503);
    assert.equal(h.body.status, 'degraded');
    assert.deepEqual(h.body.causes.map((c) => c.code), ['RADIOS_UNUSABLE']);
    assert.match(h.body.causes[0]!.detail, /ble0 unsupported .*@stoprocent\/noble/);
  });

  it('answers 200 ok while one radio of several is usable', async () => {
    const sim = createRadio({ id: 'sim0', kind: 'simulated' }, { logger: silentLogger(), stateDir: dir });
    const base = await start({ radios: [] }, [unsupportedBle('ble0'), sim]);
    const h = await getHealth(base);
    assert.equal(h.code, 200);
    assert.equal(h.body.status, 'ok');
    assert.deepEqual(h.body.causes, []);
  });

  it('turns degraded once MQTT has been down longer than http.health_mqtt_down_ms, and ok again when it is back', async () => {
    broker = await startBroker();
    const base = await start({
      radios: [{ id: 'sim0', kind: 'simulated' }],
      mqtt: { enabled: true, url: broker.url },
      http: { enabled: true, port: 0, health_mqtt_down_ms: 0 },
    });
    await eventually(() => gateway!.mqtt?.connected === true, 10000, 'connected');
    assert.equal((await getHealth(base)).code, 200);
    await broker.stop();
    await eventually(() => gateway!.mqtt?.connected === false, 10000, 'disconnected');
    const down = await getHealth(base);
    assert.equal(down.code, 503);
    assert.equal(down.body.status, 'degraded');
    assert.deepEqual(down.body.causes.map((c) => c.code), ['MQTT_DOWN']);
    assert.match(down.body.causes[0]!.detail, /mqtt:\/\/127\.0\.0\.1:\d+.*disconnected/);
    await broker.restart();
    await eventually(() => gateway!.mqtt?.connected === true, 10000, 'reconnected');
    assert.equal((await getHealth(base)).code, 200);
  });

  it('stays ok while an MQTT outage is shorter than the limit', async () => {
    broker = await startBroker();
    const base = await start({
      radios: [{ id: 'sim0', kind: 'simulated' }],
      mqtt: { enabled: true, url: broker.url },
      http: { enabled: true, port: 0, health_mqtt_down_ms: 3_600_000 },
    });
    await eventually(() => gateway!.mqtt?.connected === true, 10000, 'connected');
    await broker.stop();
    await eventually(() => gateway!.mqtt?.connected === false, 10000, 'disconnected');
    const h = await getHealth(base);
    assert.equal(h.code, 200);
    assert.equal(h.body.status, 'ok');
  });

  it('answers 503 stopping once a stop has begun', async () => {
    const base = await start({ radios: [{ id: 'sim0', kind: 'simulated' }] });
    gateway!.bus.emit('stopping', { reason: 'test' });
    const h = await getHealth(base);
    assert.equal(h.code, 503);
    assert.equal(h.body.status, 'stopping');
  });

  it('answers 503 degraded at once when the only radio never became ready (a serial path that does not exist)', async () => {
    const base = await start({ radios: [{ id: 'usb0', kind: 'serial', path: path.join(dir, 'no-such-tty') }] });
    const health = await getHealth(base);
    assert.equal(health.code, 503);
    assert.equal(health.body.status, 'degraded');
    assert.deepEqual(health.body.causes.map((c) => c.code), ['RADIOS_UNUSABLE']);
    assert.match(health.body.causes[0]!.detail, /usb0/);
    const status = JSON.parse(await new Promise<string>((resolve, reject) => {
      http.get(`${base}/status.json`, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve(text));
      }).on('error', reject);
    })) as { health: Health };
    assert.deepEqual(status.health, { status: health.body.status, causes: health.body.causes });
  });

  it('answers 503 degraded at once when the broker refuses the credentials, long before http.health_mqtt_down_ms', async () => {
    broker = await startBroker(0, { credentials: { username: 'gateway', password: 'right' } });
    const base = await start({
      radios: [{ id: 'sim0', kind: 'simulated' }],
      mqtt: { enabled: true, url: broker.url, username: 'gateway', password: 'wrong' },
      http: { enabled: true, port: 0, health_mqtt_down_ms: 3_600_000 },
    });
    let health = await getHealth(base);
    await eventually(() => {
      void getHealth(base).then((h) => (health = h));
      return health.body.causes.some((c) => c.code === 'MQTT_REFUSED');
    }, 10000, 'refusal reported');
    assert.equal(health.code, 503);
    assert.equal(health.body.status, 'degraded');
    assert.equal(JSON.stringify(health.body).includes('wrong'), false, 'the password is never shown');
  });
});
