/**
 * The connection's own publish path (gateway/mqtt/publish-packet.ts) against a real broker (aedes): every QoS 1
 * publish answered once by its own PUBACK, in order at the subscriber, beside mqtt.js's subscribes on the same
 * packet ids; what is in flight when the broker goes fails once with MQTT_DISCONNECTED, and the next connection
 * publishes again.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { MqttConnection } from '../../../gateway/mqtt/connection';
import { silentLogger } from '../../../gateway/logger';
import { Recorder, eventually, startBroker, type TestBroker } from '../support/broker';
import { testConfig } from '../support/config';

describe('gateway mqtt connection: its own publish path', function () {
  this.timeout(20000);
  let broker: TestBroker;
  let conn: MqttConnection;
  let recorder: Recorder;
  let ups: number;

  beforeEach(async () => {
    broker = await startBroker();
    recorder = await Recorder.connect(broker.url, ['pub/#']);
    const config = testConfig(os.tmpdir(), { mqtt: { enabled: true, url: broker.url, reconnect_min_ms: 50, reconnect_max_ms: 100 } });
    conn = new MqttConnection({ config: config.mqtt, clientId: 'own-publish-test', will: { topic: 't/state', payload: 'offline' }, logger: silentLogger() });
    ups = 0;
    conn.on('up', () => {
      ups += 1;
    });
    conn.start();
    await eventually(() => ups === 1, 10000, 'the connection');
  });
  afterEach(async () => {
    await conn.stop();
    await recorder.close();
    await broker.stop();
  });

  it('answers each QoS 1 publish once, with its PUBACK, while mqtt.js subscribes on ids from the same pool', async () => {
    const answers = new Map<number, Array<Error | undefined>>();
    const count = 2000;
    const got: Buffer[] = [];
    conn.on('message', (m) => {
      if (m.topic === 'back/x') got.push(m.payload);
    });
    for (let i = 0; i < count; i++) {
      conn.publish(`pub/${i % 7}`, i % 2 ? `text ${i} é` : Buffer.from(`bytes ${i}`), { qos: 1 }, (err) => answers.set(i, [...(answers.get(i) ?? []), err]));
      // Subscribes in the middle of the flow: their SUBACKs must reach mqtt.js, not the publish path.
      if (i % 500 === 250) conn.subscribe(`back/x`, 1);
    }
    await eventually(() => answers.size === count, 15000, 'every PUBACK');
    for (const [i, a] of answers) assert.deepEqual(a, [undefined], `publish ${i}`);
    await recorder.until(() => recorder.messages.length === count, 10000, 'every message at the subscriber');
    for (let topic = 0; topic < 7; topic++) {
      const expected = [...Array(count).keys()].filter((i) => i % 7 === topic).map((i) => (i % 2 ? `text ${i} é` : `bytes ${i}`));
      assert.deepEqual(recorder.on(`pub/${topic}`).map((m) => m.payload.toString('utf8')), expected);
    }
    // The subscription works: mqtt.js got its SUBACK.
    await recorder.client.publishAsync('back/x', 'ping', { qos: 1 });
    await eventually(() => got.length === 1, 5000, 'the message on the subscribed topic');
    // QoS 0 goes out in the same way, answered at once.
    let sent = 0;
    conn.publish('pub/zero', 'z', { qos: 0 }, (err) => {
      assert.equal(err, undefined);
      sent += 1;
    });
    assert.equal(sent, 1);
    await recorder.until(() => recorder.on('pub/zero').length === 1, 5000, 'the QoS 0 message');
  });

  it('keeps reading PUBACKs after a publish callback throws, and logs the failure', async () => {
    const logged: string[] = [];
    const logger = silentLogger();
    logger.error = ((obj: unknown, msg?: string) => void logged.push(String(msg ?? obj))) as typeof logger.error;
    await conn.stop();
    const config = testConfig(os.tmpdir(), { mqtt: { enabled: true, url: broker.url } });
    conn = new MqttConnection({ config: config.mqtt, clientId: 'own-publish-throw', will: { topic: 't/state', payload: 'offline' }, logger });
    let up = false;
    conn.on('up', () => {
      up = true;
    });
    conn.start();
    await eventually(() => up, 10000, 'the connection');
    const answered: number[] = [];
    for (let i = 0; i < 50; i++) {
      conn.publish('pub/throw', `m ${i}`, { qos: 1 }, () => {
        answered.push(i);
        if (i % 10 === 0) throw new Error(`callback ${i} broke`);
      });
    }
    // The PUBACKs behind each throwing callback still arrive: the socket's read path did not stop.
    await eventually(() => answered.length === 50, 10000, 'every PUBACK');
    assert.deepEqual(answered, [...Array(50).keys()]);
    assert.deepEqual(logged, Array(5).fill('a publish callback failed'));
  });

  it('fails what is in flight once, with MQTT_DISCONNECTED, when the broker goes, and publishes again after', async () => {
    const answers: Array<Error | undefined> = [];
    for (let i = 0; i < 50; i++) conn.publish('pub/lost', `m${i}`, { qos: 1 }, (err) => answers.push(err));
    // The publishes are still corked in this turn: the broker drops the socket before any of them leaves.
    const stopped = broker.stop();
    await stopped;
    await eventually(() => answers.length === 50, 5000, 'an answer for every publish');
    assert.ok(answers.every((e) => (e as { code?: string } | undefined)?.code === 'MQTT_DISCONNECTED'), 'each failed as disconnected');
    await broker.restart();
    await eventually(() => ups === 2, 10000, 'the connection after the restart');
    await conn.publishAsync('pub/after', 'again', { qos: 1 });
    assert.deepEqual(broker.published.filter((p) => p.topic === 'pub/after').map((p) => p.payload.toString()), ['again']);
    assert.equal(broker.published.filter((p) => p.topic === 'pub/lost').length, 0, 'none of the lost ones had left');
    assert.equal(answers.length, 50, 'no publish answered twice');
  });
});
