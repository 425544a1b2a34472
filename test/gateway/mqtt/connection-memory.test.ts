import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

describe('gateway mqtt connection memory', () => {
  it("never builds mqtt-packet's table of 65 536 number buffers (about 7 MB of heap)", function () {
    this.timeout(20000);
    const dist = path.resolve(__dirname, '../../..');
    // A fresh process: the table is module state, and other tests' clients may have built it in this one.
    const script = `
      const path = require('path');
      const { startBroker } = require(${JSON.stringify(path.join(dist, 'test/gateway/support/broker'))});
      const { MqttConnection } = require(${JSON.stringify(path.join(dist, 'gateway/mqtt/connection'))});
      const { silentLogger } = require(${JSON.stringify(path.join(dist, 'gateway/logger'))});
      const { testConfig } = require(${JSON.stringify(path.join(dist, 'test/gateway/support/config'))});
      const numbers = require(require.resolve('mqtt-packet/numbers', { paths: [path.dirname(require.resolve('mqtt'))] }));
      (async () => {
        const broker = await startBroker();
        const config = testConfig(require('os').tmpdir(), { mqtt: { enabled: true, url: broker.url } });
        const conn = new MqttConnection({ config: config.mqtt, clientId: 'cache-test', will: { topic: 't/state', payload: 'offline' }, logger: silentLogger() });
        await new Promise((resolve) => { conn.on('up', resolve); conn.start(); });
        for (let i = 0; i < 20; i++) await conn.publishAsync('t/x', 'payload ' + i, { qos: 1 });
        console.log(JSON.stringify({ cached: Object.keys(numbers.cache).length }));
        await conn.stop();
        await broker.stop();
      })();`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim().split('\n').pop()!) as { cached: number };
    assert.equal(out.cached, 0);
  });
});
