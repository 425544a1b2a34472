import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store } from '../../../../lib/store';
import { silentLogger } from '../../../../gateway/logger';
import { MqttConnection } from '../../../../gateway/mqtt/connection';
import { MqttOutbox } from '../../../../gateway/extensions/mqtt-bridge/outbox';
import { Recorder, eventually, startBroker, type TestBroker } from '../../support/broker';
import { testConfig } from '../../support/config';

const TOPIC = 'clawling/t/messages';

describe('gateway mqtt outbox (lib/store queue, real aedes)', () => {
  let dir: string;
  let broker: TestBroker;
  let recorder: Recorder;
  let store: Store;
  let connection: MqttConnection | undefined;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-outbox-'));
    broker = await startBroker();
    recorder = await Recorder.connect(broker.url, [TOPIC]);
    store = openStore(path.join(dir, 'gateway.db'));
  });
  afterEach(async () => {
    await connection?.stop();
    connection = undefined;
    await recorder.close();
    await broker.stop();
    if (!store.closed) store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function connect(): MqttConnection {
    const config = testConfig(dir, { mqtt: { enabled: true, url: broker.url } });
    connection = new MqttConnection({ config: config.mqtt, clientId: 'outbox-test', will: { topic: 'clawling/t/bridge/state', payload: 'offline' }, logger: silentLogger() });
    return connection;
  }

  function outbox(options: Partial<{ capacity: number; inflight: number }> = {}): MqttOutbox {
    const o = new MqttOutbox(store, { capacity: options.capacity ?? 1000, dedupCapacity: 10000, inflight: options.inflight ?? 16 }, silentLogger());
    o.open();
    return o;
  }

  function ids(): string[] {
    return recorder.json<{ id: string }>(TOPIC).map((m) => m.id);
  }

  it('keeps messages on disk while the broker is away and publishes them in order when it is back', async () => {
    const box = outbox({ inflight: 4 });
    const settled: string[] = [];
    for (let i = 0; i < 50; i += 1) {
      const id = `m-${String(i).padStart(3, '0')}`;
      assert.equal(box.accept(id, TOPIC, JSON.stringify({ id }), (ok) => settled.push(`${id}:${ok}`)), 'queued');
    }
    box.flush();
    assert.equal(box.depth, 50);
    assert.equal(store.queue('mqtt-outbox').size(), 50, 'on disk before anything was published');
    assert.equal(settled.length, 0, 'nothing settles before a PUBACK');

    const conn = connect();
    conn.on('up', () => box.attach(conn));
    conn.on('down', () => box.detach());
    conn.start();
    await recorder.until(() => ids().length === 50, 10000, '50 messages');
    assert.deepEqual(ids(), Array.from({ length: 50 }, (_, i) => `m-${String(i).padStart(3, '0')}`));
    await eventually(() => settled.length === 50 && box.depth === 0, 5000, 'settled');
    assert.ok(settled.every((s) => s.endsWith(':true')));
    await eventually(() => store.queue('mqtt-outbox').size() === 0, 5000, 'removed from disk');
    box.close();
  });

  it('drops the oldest when full, counts it and fails its claim', () => {
    const box = outbox({ capacity: 10 });
    const failed: string[] = [];
    for (let i = 0; i < 15; i += 1) box.accept(`m-${i}`, TOPIC, `{"id":"m-${i}"}`, (ok) => !ok && failed.push(`m-${i}`));
    box.flush();
    assert.equal(box.depth, 10);
    assert.equal(box.dropped, 5);
    assert.deepEqual(failed, ['m-0', 'm-1', 'm-2', 'm-3', 'm-4']);
    assert.deepEqual(
      store.queue('mqtt-outbox').peek(100).map((i) => Buffer.from(i.value).toString('utf8').split('\n')[0]),
      Array.from({ length: 10 }, (_, i) => `m-${i + 5}`),
    );
    box.close();
  });

  it('queues an id once, even across a restart, and knows when it is out', async () => {
    const box = outbox();
    assert.equal(box.accept('a', TOPIC, '{"id":"a"}'), 'queued');
    assert.equal(box.accept('a', TOPIC, '{"id":"a"}'), 'pending', 'same turn');
    box.flush();
    assert.equal(box.accept('a', TOPIC, '{"id":"a"}'), 'pending', 'after the commit');
    assert.equal(box.depth, 1);
    box.close();
    store.close();

    // A new process on the same state folder: the entry and its id are still there.
    store = openStore(path.join(dir, 'gateway.db'));
    const again = outbox();
    assert.equal(again.depth, 1);
    let settledAfterRestart: boolean | undefined;
    assert.equal(again.accept('a', TOPIC, '{"id":"a"}', (ok) => (settledAfterRestart = ok)), 'pending');
    const conn = connect();
    conn.on('up', () => again.attach(conn));
    conn.start();
    await recorder.until(() => ids().length === 1);
    await eventually(() => settledAfterRestart === true, 5000, 'the resend settles with the PUBACK');
    assert.equal(again.accept('a', TOPIC, '{"id":"a"}'), 'published');
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(ids(), ['a'], 'published exactly once');
    again.close();
  });

  it('publishes before the fsync but settles a claim only once the broker and the disk both have the message', async () => {
    // The real store, with its sync() held back until the test lets it go: a slow disk.
    const held: Array<() => void> = [];
    const real = store;
    const slowDisk = new Proxy(real, {
      get(target, key) {
        if (key === 'sync') return () => target.sync().then(() => new Promise<void>((resolve) => held.push(resolve)));
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const box = new MqttOutbox(slowDisk, { capacity: 100, dedupCapacity: 100, inflight: 4 }, silentLogger());
    box.open();
    const conn = connect();
    conn.on('up', () => box.attach(conn));
    conn.start();
    await eventually(() => conn.connected, 5000, 'connected');
    const settled: string[] = [];
    assert.equal(box.accept('a', TOPIC, '{"id":"a"}', (ok) => settled.push(`first:${ok}`)), 'queued');
    await recorder.until(() => ids().length === 1, 5000, 'a at the broker');
    await eventually(() => box.counters.published === 1 && held.length > 0, 5000, 'PUBACKed, fsync pending');
    assert.equal(settled.length, 0, 'no claim settles before the disk has the entry');
    assert.equal(box.accept('a', TOPIC, '{"id":"a"}', (ok) => settled.push(`resend:${ok}`)), 'pending', 'a resend waits with it');
    for (const release of held.splice(0)) release();
    await eventually(() => settled.length === 2, 5000, 'settled after the fsync');
    assert.deepEqual(settled, ['first:true', 'resend:true']);
    assert.equal(box.accept('a', TOPIC, '{"id":"a"}'), 'published');
    box.close();
    for (const release of held.splice(0)) release();
  });

  it('republishes what was in flight when the broker went away, never losing an entry', async () => {
    const box = outbox({ inflight: 8 });
    const conn = connect();
    conn.on('up', () => box.attach(conn));
    conn.on('down', () => box.detach());
    conn.start();
    await eventually(() => conn.connected, 5000, 'connected');
    for (let i = 0; i < 200; i += 1) box.accept(`k-${i}`, TOPIC, `{"id":"k-${i}"}`);
    box.flush();
    await broker.stop();
    for (let i = 200; i < 300; i += 1) box.accept(`k-${i}`, TOPIC, `{"id":"k-${i}"}`);
    box.flush();
    await broker.restart();
    await eventually(() => box.depth === 0, 10000, 'outbox drained after the restart');
    // The broker's own log (a subscriber may miss what arrives while it reconnects; the outbox may not lose any).
    const atBroker = broker.published.filter((p) => p.topic === TOPIC).map((p) => (JSON.parse(p.payload.toString()) as { id: string }).id);
    const distinct = new Set(atBroker);
    assert.equal(distinct.size, 300, 'every message reached the broker');
    // Only what was in flight when the broker died can arrive twice.
    assert.ok(atBroker.length - distinct.size <= 8, `${atBroker.length - distinct.size} repeats for an in-flight window of 8`);
    // And in order: the first arrival of each id follows the queue order.
    const firsts = [...distinct].map((id) => Number(id.slice(2)));
    assert.deepEqual(firsts, [...firsts].sort((a, b) => a - b));
    box.close();
  });
});
