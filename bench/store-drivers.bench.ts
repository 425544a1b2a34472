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
 * Prints ops/s of each driver and node:sqlite's ratio to better-sqlite3.
 *
 * Then, node:sqlite alone, what one group commit of the MQTT outbox costs per message (BENCH_GROUP messages, 12 by
 * default: about one commit's worth at 6 000 msg/s and one commit per 2 ms), as CPU µs of the main thread and of
 * the whole process: a row at a time (push, seen-set add, remove: the outbox before issue 26), one multi-row write
 * per batch (`pushMany`, `addMany`, `removeMany`), and that batch handed to a worker thread that commits it (issue
 * 26: would a worker lower the main thread's CPU without raising the total?). better-sqlite3 is not a dependency any
 * more: install it for the comparison with `npm i --no-save better-sqlite3` (it compiles for minutes without a
 * prebuilt binary; node_modules' copy only loads on the Node it was built for).
 */
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
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

const GROUP = Number(process.env.BENCH_GROUP ?? 12);
const GROUP_ROUNDS = Number(process.env.BENCH_GROUP_ROUNDS ?? 3000);

interface Cost {
  mainUs: number;
  totalUs: number;
}

/** The calling thread's CPU time (Node 23.9+; the @types/node in use predates it). */
const threadCpuUsage = (previous?: NodeJS.CpuUsage): NodeJS.CpuUsage =>
  (process as unknown as { threadCpuUsage(previous?: NodeJS.CpuUsage): NodeJS.CpuUsage }).threadCpuUsage(previous);

/** CPU µs per message of the main thread and of the process while `run` handles `messages` messages. */
async function cpuPerMessage(messages: number, run: () => Promise<void> | void): Promise<Cost> {
  const t0 = threadCpuUsage();
  const p0 = process.cpuUsage();
  await run();
  const t1 = threadCpuUsage(t0);
  const p1 = process.cpuUsage(p0);
  return { mainUs: (t1.user + t1.system) / messages, totalUs: (p1.user + p1.system) / messages };
}

function groupValues(round: number): { values: Uint8Array[]; ids: string[] } {
  const values: Uint8Array[] = [];
  const ids: string[] = [];
  for (let i = 0; i < GROUP; i++) {
    const id = `0000${round}-${i}-4000-8000-000000000000`;
    ids.push(id);
    values.push(Buffer.from(`${id}\nmesh/bench/messages\n{"id":"${id}","content":"${'x'.repeat(180)}"}`));
  }
  return { values, ids };
}

/** The commit as the outbox makes it: this round's rows and ids in, the previous round's rows out. */
function commitGroup(store: SqliteStore, batched: boolean, round: number, previous: number[]): number[] {
  const queue = store.queue('mqtt-outbox', { capacity: 100_000, overflow: 'drop-oldest' });
  const seen = store.seen('mqtt-outbox-ids', { capacity: 100_000 });
  const { values, ids } = groupValues(round);
  let seqs: number[] = [];
  store.transaction(() => {
    if (batched) {
      queue.removeMany(previous);
      seqs = queue.pushMany(values);
      seen.addMany(ids);
    } else {
      for (const seq of previous) queue.remove(seq);
      for (let i = 0; i < values.length; i++) {
        seqs.push(queue.push(values[i]!));
        seen.add(ids[i]!);
      }
    }
  });
  return seqs;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { SqliteStore } = require(workerData.store);
const store = SqliteStore.open(workerData.file, { synchronous: 'normal' });
const queue = store.queue('mqtt-outbox', { capacity: 100000, overflow: 'drop-oldest' });
const seen = store.seen('mqtt-outbox-ids', { capacity: 100000 });
parentPort.on('message', (m) => {
  if (m === 'close') { store.close(); parentPort.close(); return; }
  let seqs = [];
  store.transaction(() => { queue.removeMany(m.previous); seqs = queue.pushMany(m.values); seen.addMany(m.ids); });
  parentPort.postMessage(seqs);
});
`;

async function groupCommit(dir: string): Promise<Array<[string, Cost]>> {
  const out: Array<[string, Cost]> = [];
  for (const batched of [false, true]) {
    const store = SqliteStore.open(path.join(dir, `group-${batched}.db`), { synchronous: 'normal' });
    let previous: number[] = [];
    for (let r = 0; r < 50; r++) previous = commitGroup(store, batched, r, previous);
    out.push([batched ? 'one multi-row write per batch' : 'a row at a time', await cpuPerMessage(GROUP * GROUP_ROUNDS, () => {
      for (let r = 0; r < GROUP_ROUNDS; r++) previous = commitGroup(store, batched, r + 50, previous);
    })]);
    store.close();
  }
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { store: path.join(__dirname, '../lib/store/index.js'), file: path.join(dir, 'group-worker.db') } });
  const ask = (m: unknown): Promise<number[]> => new Promise((resolve) => { worker.once('message', resolve); worker.postMessage(m); });
  let previous: number[] = [];
  for (let r = 0; r < 50; r++) previous = await ask({ ...groupValues(r), previous });
  out.push(['handed to a worker that commits it', await cpuPerMessage(GROUP * GROUP_ROUNDS, async () => {
    for (let r = 0; r < GROUP_ROUNDS; r++) previous = await ask({ ...groupValues(r + 50), previous });
  })]);
  worker.postMessage('close');
  await new Promise((r) => worker.once('exit', r));
  // What building the values costs the main thread is in every figure: measured alone, to take it out.
  const build = await cpuPerMessage(GROUP * GROUP_ROUNDS, () => {
    for (let r = 0; r < GROUP_ROUNDS; r++) groupValues(r);
  });
  return out.map(([name, c]) => [name, { mainUs: c.mainUs - build.mainUs, totalUs: c.totalUs - build.totalUs }]);
}

async function main(): Promise<void> {
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
  const groupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-group-'));
  try {
    console.log(`group commit of the MQTT outbox, ${GROUP} messages a commit, ${GROUP_ROUNDS} commits, load average ${os.loadavg()[0]!.toFixed(1)}: CPU per message`);
    for (const [name, c] of await groupCommit(groupDir)) {
      console.log(`  ${name.padEnd(36)} main thread ${c.mainUs.toFixed(1).padStart(6)} us   whole process ${c.totalUs.toFixed(1).padStart(6)} us`);
    }
  } finally {
    fs.rmSync(groupDir, { recursive: true, force: true });
  }
}

void main();
