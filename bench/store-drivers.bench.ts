/**
 * `npm run bench:store`: the sqlite store on its two drivers side by side in one process — `node:sqlite`
 * (`DatabaseSync`, the store's driver) and better-sqlite3 (the driver before issue 22), when it is installed.
 *
 * Both runs use the real `SqliteStore` (same schema, same pragmas, `synchronous: normal` so the figures are the
 * driver's and not the disk's fsync) on a fresh file each:
 * - outbox: what the durable outbox does to the store per group commit: 64 pushes in one transaction, then the
 *   acknowledged rows removed in one more (`removeThrough`); ops/s counts messages;
 * - inbox dedup: `inbox.upsert` of a received message, half of them repeats (same fingerprint, nothing written),
 *   each inside the bounded inbox (capacity 2 000, evicting), plus the `seen` set the mesh dedup keeps.
 * Prints ops/s of each driver and node:sqlite's ratio to better-sqlite3. better-sqlite3 is not a dependency any
 * more: install it for the comparison with `npm i --no-save better-sqlite3` (it compiles for minutes without a
 * prebuilt binary; node_modules' copy only loads on the Node it was built for).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteStore, type SqliteStoreOptions } from '../lib/store';
import { loadSqliteDriver, type SqliteConstructor } from '../lib/store/sqlite-driver';

const RUN_MS = Number(process.env.BENCH_MS ?? 1500);
const BATCH = 64;

interface Driver {
  name: string;
  driver: SqliteConstructor;
}

function betterSqlite3(): SqliteConstructor | string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Database = require('better-sqlite3') as SqliteConstructor;
    new Database(':memory:').close();
    return Database;
  } catch (err) {
    const e = err as { code?: string; message?: string };
    const why = e.code === 'MODULE_NOT_FOUND' ? 'not installed' : `does not load on Node ${process.version} (${(e.message ?? String(err)).split('\n')[0]})`;
    return `better-sqlite3 ${why}; for the comparison run \`npm i --no-save better-sqlite3\` on this Node, then this bench again`;
  }
}

function fresh(dir: string, driver: Driver, kind: string): SqliteStore {
  const options: SqliteStoreOptions = { driver: driver.driver, synchronous: 'normal', inboxCapacity: 2000 };
  return SqliteStore.open(path.join(dir, `${driver.name.replace(/\W/g, '-')}-${kind}.db`), options);
}

/** Runs `round` (which does `n` operations) until RUN_MS passed; returns operations per second. */
function measure(round: () => number): number {
  for (let i = 0; i < 20; i++) round(); // warm-up: statements prepared, JIT settled
  let ops = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < RUN_MS) {
    ops += round();
    elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  }
  return (ops * 1000) / elapsed;
}

function outbox(store: SqliteStore): number {
  const queue = store.queue('outbox', { capacity: 100_000, overflow: 'reject' });
  const body = new Uint8Array(180).fill(7);
  return measure(() => {
    let last = 0;
    store.transaction(() => {
      for (let i = 0; i < BATCH; i++) last = queue.push(body);
    });
    store.transaction(() => queue.removeThrough(last));
    return BATCH;
  });
}

function inboxDedup(store: SqliteStore): number {
  const seen = store.seen('mesh', { capacity: 10_000 });
  let n = 0;
  return measure(() => {
    for (let i = 0; i < BATCH; i++) {
      // Every message arrives twice: the second is a duplicate the store must recognise without writing.
      const id = `m-${Math.floor(n / 2)}`;
      n += 1;
      store.inbox.upsert({ messageId: id, chatId: 'c1', event: 'message', senderId: 's1', provisional: false, fingerprint: `f-${id}`, body: `{"text":"hello ${id}"}`, at: n });
      seen.add(id);
    }
    return BATCH;
  });
}

function main(): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-drivers-'));
  const drivers: Driver[] = [{ name: 'node:sqlite', driver: loadSqliteDriver() }];
  const other = betterSqlite3();
  if (typeof other === 'string') console.log(`(${other}: only node:sqlite runs)`);
  else drivers.push({ name: 'better-sqlite3', driver: other });
  console.log(`store drivers on Node ${process.version}, ${RUN_MS} ms a run, batches of ${BATCH}, synchronous=normal`);
  const rows: Array<{ driver: string; outbox: number; inbox: number }> = [];
  try {
    for (const d of drivers) {
      const a = fresh(dir, d, 'outbox');
      const o = outbox(a);
      a.close();
      const b = fresh(dir, d, 'inbox');
      const i = inboxDedup(b);
      b.close();
      rows.push({ driver: d.name, outbox: o, inbox: i });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  for (const r of rows) {
    console.log(`  ${r.driver.padEnd(15)} outbox ${Math.round(r.outbox).toString().padStart(8)} msg/s   inbox dedup ${Math.round(r.inbox).toString().padStart(8)} msg/s`);
  }
  if (rows.length === 2) {
    const [n, b] = rows;
    console.log(`  node:sqlite / better-sqlite3: outbox ${(n.outbox / b.outbox).toFixed(2)}x   inbox dedup ${(n.inbox / b.inbox).toFixed(2)}x`);
  }
}

main();
