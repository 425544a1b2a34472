/**
 * The sqlite store's deferred commits (`transaction(fn, { deferSync: true })` + `sync()`) and the metadata and counter
 * caches behind every queue and seen-set call: what a rollback leaves behind must be what the file says.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSqliteDriver, openStore, type Store } from '../../../lib/store';

describe('SqliteStore deferred commits and sync()', () => {
  let dir: string;
  let store: Store | undefined;
  const file = (): string => path.join(dir, 'store.db');

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-defer-'));
  });
  afterEach(() => {
    if (store && !store.closed) store.close();
    store = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('commits a deferred transaction at once and keeps it across a reopen; sync() resolves', async () => {
    store = openStore(file());
    const q = store.queue('q');
    const seq = store.transaction(() => q.push('deferred'), { deferSync: true });
    assert.equal(q.size(), 1, 'visible as soon as the call returned');
    await store.sync();
    await store.sync(); // nothing new: resolves at once
    store.close();
    store = openStore(file());
    assert.deepEqual(
      store.queue('q').peek().map((i) => [i.seq, i.value]),
      [[seq, 'deferred']],
    );
  });

  it('shares one fsync among the callers that arrive while it runs and runs another for later commits', async () => {
    store = openStore(file());
    const q = store.queue('q');
    store.transaction(() => q.push('a'), { deferSync: true });
    const first = store.sync();
    const same = store.sync();
    store.transaction(() => q.push('b'), { deferSync: true });
    const next = store.sync();
    const nextToo = store.sync();
    assert.equal(first, same, 'nothing was committed in between');
    assert.notEqual(first, next, 'b came after the first fsync started');
    assert.equal(next, nextToo);
    await Promise.all([first, next]);
  });

  it('commits deferred transactions at synchronous NORMAL and every other at FULL, switching only when the next one needs the other', () => {
    // The real driver, watched: what `synchronous` reads inside each outermost transaction, and each switch.
    const seen: number[] = [];
    const switches: string[] = [];
    const Native = loadSqliteDriver();
    class Watched extends Native {
      override exec(sql: string): unknown {
        if (sql.startsWith('PRAGMA synchronous =')) switches.push(sql.slice('PRAGMA synchronous = '.length));
        return super.exec(sql);
      }
      private level = 0;
      override transaction<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T {
        const inner = super.transaction((...args: A) => {
          if (this.level === 1) seen.push(Number(this.pragma('synchronous', { simple: true })));
          return fn(...args);
        });
        return (...args: A) => {
          this.level += 1;
          try {
            return inner(...args);
          } finally {
            this.level -= 1;
          }
        };
      }
    }
    store = openStore(file(), { driver: Watched });
    const q = store.queue('q');
    seen.length = 0;
    switches.length = 0;
    const deferred = (v: string): number => store!.transaction(() => q.push(v), { deferSync: true });
    deferred('a');
    deferred('b');
    deferred('c');
    q.push('plain, outside any transaction');
    store.transaction(() => q.push('plain'));
    assert.throws(() => store!.transaction(() => {
      q.push('rolled back');
      throw new Error('no');
    }, { deferSync: true }), /no/);
    store.transaction(() => q.push('plain after a failed deferred commit'));
    deferred('d');
    const NORMAL = 1;
    const FULL = 2;
    assert.deepEqual(seen, [NORMAL, NORMAL, NORMAL, FULL, FULL, NORMAL, FULL, NORMAL]);
    assert.deepEqual(switches, ['NORMAL', 'FULL', 'NORMAL', 'FULL', 'NORMAL'], 'one switch per change of need, none per commit');
    assert.deepEqual(
      q.peek(10).map((i) => i.value),
      ['a', 'b', 'c', 'plain, outside any transaction', 'plain', 'plain after a failed deferred commit', 'd'],
    );
  });

  it('resolves sync() at once for normal synchronous, nested transactions and the memory store', async () => {
    store = openStore(file(), { synchronous: 'normal' });
    const q = store.queue('q');
    store.transaction(() => q.push('a'), { deferSync: true });
    await store.sync();
    store.transaction(() => store!.transaction(() => q.push('b'), { deferSync: true }));
    await store.sync();
    assert.equal(q.size(), 2);
    const memory = openStore(':memory:');
    memory.transaction(() => memory.queue('m').push('x'), { deferSync: true });
    await memory.sync();
    assert.equal(memory.queue('m').size(), 1);
    memory.close();
  });

  it('keeps every deferred commit of a writer killed with SIGKILL (the log is written before the call returns)', async function () {
    this.timeout(20000);
    const script = `
      const { openStore } = require(${JSON.stringify(path.resolve(__dirname, '../../../lib/store'))});
      const store = openStore(${JSON.stringify(file())});
      const q = store.queue('crash', { capacity: 1000000 });
      let n = 0;
      const burst = () => {
        for (let i = 0; i < 20; i++) { store.transaction(() => q.push('item-' + n), { deferSync: true }); process.stdout.write('ack ' + n + '\\n'); n++; }
        store.sync().catch(() => undefined);
        setImmediate(burst);
      };
      burst();`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let acked = -1;
    let buffered = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) if (line.startsWith('ack ')) acked = Number(line.slice(4));
        if (acked >= 2000 && child.exitCode === null && !child.killed) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((r) => child.once('exit', r));
    store = openStore(file());
    const values = new Set(store.queue('crash').peek().map((i) => i.value));
    for (let n = 0; n <= acked; n++) assert.ok(values.has(`item-${n}`), `item-${n} was acknowledged and must be there`);
  });

  it('forgets what a rolled-back transaction wrote to queue metadata and counters', () => {
    store = openStore(file());
    const s = store;
    const q = s.queue('q', { capacity: 3, overflow: 'drop-oldest' });
    const seen = s.seen('ids', { capacity: 2 });
    const first = q.push('a');
    seen.add('k1');
    assert.throws(
      () =>
        s.transaction(() => {
          q.push('b');
          q.push('c');
          q.push('d'); // drops 'a'
          q.remove(first);
          seen.add('k2');
          seen.add('k3'); // evicts k1
          throw new Error('undo');
        }),
      /undo/,
    );
    assert.equal(q.size(), 1);
    assert.deepEqual(q.counters(), { pushed: 1, removed: 0, dropped: 0, rejected: 0 });
    assert.deepEqual(q.peek().map((i) => i.value), ['a']);
    assert.equal(seen.size(), 1);
    assert.equal(seen.evicted(), 0);
    assert.ok(seen.has('k1'));
    assert.ok(!seen.has('k2'));
    // The next writes continue from what the file holds, not from what the rolled-back transaction had cached.
    const second = q.push('b');
    assert.equal(second, first + 1);
    assert.equal(seen.add('k2'), true);
    assert.equal(seen.add('k1'), false, 'a key already there is not added twice');
    assert.equal(seen.size(), 2);
    s.close();
    store = openStore(file());
    assert.deepEqual(store.queue('q').counters(), { pushed: 2, removed: 0, dropped: 0, rejected: 0 });
    assert.equal(store.seen('ids').size(), 2);
  });

  it('answers has() for every key on disk after a rollback undid keys the memory filter had counted', () => {
    store = openStore(file());
    const s = store;
    const seen = s.seen('ids', { capacity: 10 });
    const keys = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    seen.addMany(keys('a', 10));
    seen.addMany(keys('b', 5));
    assert.throws(
      () =>
        s.transaction(() => {
          seen.addMany(keys('p', 5));
          throw new Error('undo');
        }),
      /undo/,
    );
    // On disk: a5..a9 and b0..b4. Counted as taken, the five undone keys would have turned the filters over and
    // taken a5..a9 out of them.
    assert.equal(seen.size(), 10);
    assert.deepEqual(['a4', 'a5', 'a9', 'b0', 'b4', 'p0'].map((k) => seen.has(k)), [false, true, true, true, true, false]);
  });

  it('answers has() from the file for keys written before a reopen, through many evictions', () => {
    store = openStore(file());
    let seen = store.seen('ids', { capacity: 50 });
    for (let i = 0; i < 400; i += 8) seen.addMany(Array.from({ length: 8 }, (_, k) => `k${i + k}`));
    for (let i = 400; i < 437; i++) seen.add(`k${i}`);
    store.close();
    store = openStore(file());
    seen = store.seen('ids', { capacity: 50 });
    for (let i = 437; i < 450; i++) seen.add(`k${i}`);
    for (let i = 0; i < 450; i++) assert.equal(seen.has(`k${i}`), i >= 400, `k${i}`);
  });

  it('keeps an outer transaction right when an inner one fails and is caught', () => {
    store = openStore(file());
    const s = store;
    const q = s.queue('q', { capacity: 10 });
    s.transaction(() => {
      q.push('a');
      try {
        s.transaction(() => {
          q.push('inner');
          throw new Error('inner fails');
        });
      } catch {
        // The caller goes on with the outer transaction.
      }
      q.push('c');
    });
    assert.deepEqual(q.peek().map((i) => i.value), ['a', 'c']);
    assert.equal(q.size(), 2);
    assert.equal(q.counters().pushed, 2);
    s.close();
    store = openStore(file());
    assert.equal(store.queue('q').size(), 2);
  });

  it('reads a reconfigured capacity at once', () => {
    store = openStore(file());
    const q = store.queue('q', { capacity: 5, overflow: 'reject' });
    for (const v of ['a', 'b', 'c']) q.push(v);
    store.queue('q', { capacity: 3, overflow: 'reject' });
    assert.equal(q.capacity, 3);
    assert.throws(() => q.push('d'), { code: 'QUEUE_FULL' });
    assert.equal(q.counters().rejected, 1);
  });
});
