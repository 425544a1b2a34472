import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSqliteDriver, openStore, SqliteStore, StoreError, storeFileFor, type Store } from '../../../lib/store';
import { storeSuite } from './support/store-suite';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'clawling-store-'));
let counter = 0;
const freshFile = (): string => path.join(tmpRoot, `s${++counter}`, 'store.sqlite');

after(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

storeSuite('SqliteStore', {
  open: (options) => openStore(freshFile(), options),
  reopen: (store, options) => {
    store.close();
    return openStore(store.location, options);
  },
});

function expectStoreError(fn: () => unknown, code: string): StoreError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StoreError, String(err));
    assert.equal(err.code, code);
    return err;
  }
  assert.fail(`expected ${code}`);
}

describe('SqliteStore on disk', () => {
  it('creates its folder and an owner-only file, and writes through a write-ahead log', () => {
    const file = freshFile();
    const store = openStore(file);
    try {
      assert.ok(store instanceof SqliteStore);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      store.kv.set('a', 'b');
      assert.ok(fs.existsSync(`${file}-wal`), 'WAL mode keeps a -wal file while open');
    } finally {
      store.close();
    }
  });

  it('keeps statement journals in memory: a multi-row write inside a commit opens no temporary file', () => {
    const store = openStore(freshFile());
    // Temporary files sqlite opens are unlinked at once; on Linux they show in /proc/self/fd as deleted or anonymous.
    const temporaryFds = (): string[] =>
      fs.existsSync('/proc/self/fd')
        ? fs.readdirSync('/proc/self/fd').flatMap((fd) => {
            try {
              const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
              return /\(deleted\)$|\/#\d+$/.test(target) ? [target] : [];
            } catch {
              return [];
            }
          })
        : [];
    try {
      const db = (store as unknown as { c: { db: { pragma(text: string, o: { simple: boolean }): unknown } } }).c.db;
      assert.equal(Number(db.pragma('temp_store', { simple: true })), 2);
      const queue = store.queue('out', { capacity: 10_000 });
      const before = temporaryFds();
      let during: string[] = [];
      for (let round = 0; round < 3; round++) {
        store.transaction(() => {
          queue.pushMany(Array.from({ length: 40 }, (_, i) => `${round}:${i}:${'x'.repeat(600)}`));
          queue.removeMany(queue.peek(20).map((item) => item.seq));
          during = [...during, ...temporaryFds()];
        });
      }
      assert.deepEqual(during.filter((t) => !before.includes(t)), []);
      assert.equal(queue.size(), 60);
    } finally {
      store.close();
    }
  });

  it('lets one owner at a time hold a file', () => {
    const file = freshFile();
    const first = openStore(file);
    try {
      const err = expectStoreError(() => openStore(file, { lockTimeoutMs: 50 }), 'STORE_LOCKED');
      assert.match(err.message, /in use/);
    } finally {
      first.close();
    }
    const second = openStore(file);
    second.close();
  });

  it('refuses a file that is not a store', () => {
    const file = freshFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'this is not sqlite, just text that is long enough to look like a header'.repeat(20));
    expectStoreError(() => openStore(file), 'STORE_CORRUPT');
  });

  it('refuses a file written by a newer layout version', () => {
    const file = freshFile();
    openStore(file).close();
    const Database = loadSqliteDriver();
    const db = new Database(file);
    db.pragma('user_version = 99');
    db.close();
    const err = expectStoreError(() => openStore(file), 'STORE_VERSION');
    assert.equal(err.details?.version, 99);
  });

  it('refuses a bad synchronous setting', () => {
    expectStoreError(() => openStore(freshFile(), { synchronous: 'off' as 'full' }), 'STORE_BAD_ARGUMENT');
  });

  it('keeps every acknowledged write of a writer killed with SIGKILL mid-stream', async function () {
    this.timeout(30_000);
    const writer = path.join(__dirname, 'support', 'crash-writer.js');
    for (const killAfter of [37, 250, 801]) {
      const file = freshFile();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const child = spawn(process.execPath, [writer, file], { stdio: ['ignore', 'pipe', 'inherit'] });
      let highestAck = -1;
      let buffered = '';
      await new Promise<void>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', () => resolve());
        child.stdout.on('data', (chunk: Buffer) => {
          buffered += chunk.toString('utf8');
          const lines = buffered.split('\n');
          buffered = lines.pop() as string;
          for (const line of lines) {
            const m = /^ack (\d+)$/.exec(line);
            if (m) highestAck = Number(m[1]);
          }
          if (highestAck >= killAfter && child.exitCode === null) child.kill('SIGKILL');
        });
      });
      assert.equal(child.signalCode, 'SIGKILL');
      assert.ok(highestAck >= killAfter);

      const store: Store = openStore(file);
      try {
        const items = store.queue('crash').peek();
        assert.ok(items.length >= highestAck + 1, `acked ${highestAck + 1} items, found ${items.length}`);
        items.forEach((item, i) => assert.equal(item.value, `item-${i}`, 'in order, none missing'));
        for (let i = 0; i <= highestAck; i++) assert.ok(store.inbox.get(`m-${i}`), `inbox row m-${i}`);
        assert.ok((store.kv.getNumber('high') as number) >= highestAck);
        assert.equal(store.queue('crash').counters().pushed, items.length, 'counters committed with their items');
      } finally {
        store.close();
      }
    }
  });

  it('says which Node.js is needed when node:sqlite cannot be loaded, while :memory: still works', () => {
    const preload = path.join(__dirname, 'support', 'no-sqlite-preload.js');
    const storeIndex = path.join(__dirname, '..', '..', '..', 'lib', 'store', 'index.js');
    const script = `
      const { openStore } = require(${JSON.stringify(storeIndex)});
      const mem = openStore(':memory:'); mem.kv.set('a', 'b'); mem.close();
      try { openStore(${JSON.stringify(freshFile())}); console.log('opened'); }
      catch (err) { console.log(JSON.stringify({ code: err.code, message: err.message, pkg: err.details && err.details.package })); }
    `;
    const run = spawnSync(process.execPath, ['-r', preload, '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout.trim()) as { code: string; message: string; pkg: string };
    assert.equal(out.code, 'STORE_DRIVER_MISSING');
    assert.equal(out.pkg, 'node:sqlite');
    assert.match(out.message, /node:sqlite.*Node\.js 22\.13\.0 or later/);
    assert.match(out.message, /:memory:/);
  });
});

describe('storeFileFor', () => {
  it('puts one file per owner under the state folder, with a safe name', () => {
    assert.equal(storeFileFor('/state', 'hub-config.1a2b'), path.join('/state', 'hub-config.1a2b.sqlite'));
    const escaped = storeFileFor('/state', '../etc/passwd');
    assert.equal(path.dirname(escaped), '/state');
    assert.match(path.basename(escaped), /^__etc_passwd-[0-9a-f]{12}\.sqlite$/);
    assert.notEqual(storeFileFor('/s', 'a/b'), storeFileFor('/s', 'a_b'), 'no two owners share a file');
    assert.throws(() => storeFileFor('', 'x'), StoreError);
    assert.throws(() => storeFileFor('/s', ''), StoreError);
  });
});
