/**
 * The durable store: one sqlite file per owner, write-ahead log, `synchronous=FULL` by default, opened in EXCLUSIVE
 * locking mode so a second process (or a second store object) on the same file fails fast with `STORE_LOCKED`
 * instead of double-sending an outbox.
 *
 * Every public call is one transaction (a savepoint when nested in `transaction()`), so a call that returned is
 * committed; the driver (node:sqlite) is synchronous, so "returned" and "committed" are the same instant.
 */
import fs from 'node:fs';
import path from 'node:path';
import { StoreError } from './errors';
import {
  checkFiniteNumber,
  checkInboxWrite,
  checkKey,
  checkName,
  decideUpsert,
  DEFAULT_INBOX_CAPACITY,
  overBytes,
  positiveInteger,
  resolveQueueOptions,
  resolveSeenCapacity,
  type ResolvedQueueOptions,
  valueBytes,
} from './rules';
import { loadSqliteDriver, sqliteCodeOf, type SqliteConstructor, type SqliteDatabase, type SqliteStatement } from './sqlite-driver';
import { MIGRATE_V1_TO_V2, SCHEMA_V1, SCHEMA_V2, SCHEMA_VERSION } from './sqlite-schema';
import { SqliteSeenSet } from './sqlite-seen-set';
import type {
  InboxRow,
  InboxTable,
  InboxWrite,
  KeyValueTable,
  OpenStoreOptions,
  Queue,
  QueueCounters,
  QueueItem,
  QueueOptions,
  QueueOverflow,
  SeenSet,
  SeenSetOptions,
  Store,
  StoreStats,
  StoreValue,
  TransactionOptions,
  UpsertOutcome,
} from './types';

export interface SqliteStoreOptions extends OpenStoreOptions {
  /** How long to wait for another owner to release the file before failing with `STORE_LOCKED`. Default 1000 ms. */
  lockTimeoutMs?: number;
  /** The driver class; `node:sqlite` unless given. For the driver bench, which runs the same store on better-sqlite3. */
  driver?: SqliteConstructor;
}

type Row = Record<string, unknown>;

/**
 * Maps a driver error to our codes. Our own errors, and whatever a transaction callback threw, pass through
 * untouched: a caller's exception must come back as itself, not disguised as an I/O failure.
 */
function translate(err: unknown, location: string): Error {
  if (err instanceof StoreError) return err;
  const code = sqliteCodeOf(err);
  if (code === '' && err instanceof Error) return err;
  const message = (err as Error)?.message ?? String(err);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StoreError('STORE_LOCKED', `store file ${location} is in use by another owner (${message})`, { location, sqlite: code }, { cause: err });
  }
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) {
    return new StoreError('STORE_CORRUPT', `store file ${location} is not a store database or is damaged (${message})`, { location, sqlite: code }, { cause: err });
  }
  return new StoreError('STORE_IO', `store file ${location}: ${message}`, { location, sqlite: code }, { cause: err });
}

/**
 * The handful of statements and the transaction runner every table of one file shares.
 *
 * Counters and queue metadata are cached here: the file has one owner (EXCLUSIVE locking), so only this object
 * writes them. A rollback (any throw out of a transaction or savepoint) drops every cache, since the file may then
 * hold older values than the ones written through it; the next read goes to the file again.
 */
class Connection {
  closed = false;
  /** Bumped on every rollback; caches tagged with an older value are stale. */
  generation = 0;
  private readonly txn: (fn: () => unknown) => unknown;
  private readonly counterGet;
  private readonly counterSet;
  private readonly counters = new Map<string, number>();
  /** Counters changed inside the current transaction level, written when it ends (`setCounter`). */
  private readonly pendingCounters = new Map<string, number>();
  private readonly disk: DiskSync | undefined;
  /**
   * What the connection's `synchronous` is now. A deferred commit needs NORMAL and any other FULL; switching only
   * when the next commit needs the other one spares a run of deferred commits (all of the MQTT outbox's) two PRAGMA
   * statements each (a few µs hot, tens of µs on a commit that runs alone). They go through `exec`: sqlite applies
   * this pragma while it compiles the statement, so a prepared one run for the first time changes nothing.
   */
  private synchronousNow: 'full' | 'normal';

  constructor(
    readonly db: SqliteDatabase,
    readonly location: string,
    readonly now: () => number,
    readonly synchronous: 'full' | 'normal',
  ) {
    this.txn = db.transaction((fn: () => unknown) => {
      const result = fn();
      if (result !== null && typeof (result as { then?: unknown })?.then === 'function') {
        throw new StoreError('STORE_BAD_ARGUMENT', 'a transaction function must be synchronous (it returned a promise)');
      }
      return result;
    });
    this.counterGet = db.prepare<[string], { value: number }>('SELECT value FROM counters WHERE name = ?');
    this.counterSet = db.prepare<[string, number]>(
      'INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value',
    );
    // With `normal` a commit is as durable as the store promises once it returns; only `full` has work to defer.
    this.disk = synchronous === 'full' ? new DiskSync(`${location}-wal`) : undefined;
    this.synchronousNow = synchronous;
  }

  check(): void {
    if (this.closed) throw new StoreError('STORE_CLOSED', `the store ${this.location} is closed`);
  }

  tx<T>(fn: () => T, deferSync = false): T {
    this.check();
    const outermost = this.disk !== undefined && !this.db.inTransaction;
    const defer = outermost && deferSync;
    if (outermost) this.setSynchronous(defer ? 'normal' : 'full');
    // What the enclosing level changed is written before this savepoint opens, so a rollback of this one (which
    // drops the counters it changed) leaves the enclosing level's alone.
    if (this.db.inTransaction) this.flushCounters();
    try {
      return this.txn(() => {
        const result = fn();
        this.flushCounters();
        return result;
      }) as T;
    } catch (err) {
      this.invalidate();
      throw translate(err, this.location);
    } finally {
      if (defer) this.disk!.dirty = true;
    }
  }

  private setSynchronous(mode: 'full' | 'normal'): void {
    if (this.synchronousNow === mode) return;
    this.db.exec(mode === 'full' ? 'PRAGMA synchronous = FULL' : 'PRAGMA synchronous = NORMAL');
    this.synchronousNow = mode;
  }

  /**
   * The writes of one store operation (a push, a removal, an id added): a transaction of their own, or, inside a
   * caller's transaction, part of it. No savepoint there: an operation fails before it writes (a full queue, a bad
   * key) or on an sqlite error, which the caller's transaction (or savepoint) rolls back as a whole, so a savepoint
   * per operation (two more statements each, three operations per message in an outbox commit) would buy nothing.
   */
  op<T>(fn: () => T): T {
    if (!this.db.inTransaction) return this.tx(fn);
    this.check();
    try {
      return fn();
    } catch (err) {
      // The caches are dropped by the transaction that rolls this back, not here: a caller that goes on inside its
      // transaction keeps what its earlier operations changed.
      throw translate(err, this.location);
    }
  }

  read<T>(fn: () => T): T {
    this.check();
    try {
      return fn();
    } catch (err) {
      throw translate(err, this.location);
    }
  }

  /** Resolves once every commit so far survives a power cut (at once for `normal`, or when nothing was deferred). */
  sync(): Promise<void> {
    if (this.disk === undefined || this.closed) return Promise.resolve();
    return this.disk.sync();
  }

  close(): void {
    this.disk?.close();
  }

  invalidate(): void {
    this.generation += 1;
    this.counters.clear();
    this.pendingCounters.clear();
  }

  counter(name: string): number {
    let value = this.counters.get(name);
    if (value === undefined) {
      value = this.counterGet.get(name)?.value ?? 0;
      this.counters.set(name, value);
    }
    return value;
  }

  /**
   * Inside a transaction the row is written once, when the transaction (or savepoint) that changed it ends: an id
   * added to a seen-set moves two counters, and a commit of many messages would otherwise write them once each.
   */
  setCounter(name: string, value: number): void {
    this.counters.set(name, value);
    if (this.db.inTransaction) this.pendingCounters.set(name, value);
    else this.counterSet.run(name, value);
  }

  private flushCounters(): void {
    if (this.pendingCounters.size === 0) return;
    for (const [name, value] of this.pendingCounters) this.counterSet.run(name, value);
    this.pendingCounters.clear();
  }

  addCounter(name: string, delta: number): number {
    const value = this.counter(name) + delta;
    this.setCounter(name, value);
    return value;
  }
}

/**
 * Group fsync for deferred commits (`transaction(fn, { deferSync: true })`): such commits are written to the WAL
 * without waiting for the disk (sqlite's synchronous=NORMAL), and `sync()` fsyncs the WAL in libuv's thread pool, so
 * the event loop goes on while the disk works. Commits made while an fsync runs wait for the next one; any number
 * of callers share each. This is what synchronous=FULL does at every commit, moved off the main thread.
 */
class DiskSync {
  /** Deferred commits since the last fsync began. */
  dirty = false;
  private fd: number | undefined;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly walFile: string) {}

  sync(): Promise<void> {
    if (this.queued) return this.queued;
    if (this.running) {
      if (!this.dirty) return this.running;
      this.queued = this.running.catch(() => undefined).then(() => {
        this.queued = undefined;
        return this.start();
      });
      return this.queued;
    }
    if (!this.dirty) return Promise.resolve();
    return this.start();
  }

  close(): void {
    // Closing the database checkpoints the WAL into the file and syncs it; an fsync still running keeps its fd.
    this.closed = true;
    if (!this.running && this.fd !== undefined) fs.closeSync(this.fd);
    if (!this.running) this.fd = undefined;
  }

  private start(): Promise<void> {
    this.dirty = false;
    if (this.closed) return Promise.resolve();
    const run = new Promise<void>((resolve, reject) => {
      try {
        this.fd ??= fs.openSync(this.walFile, 'r');
      } catch (err) {
        reject(new StoreError('STORE_IO', `cannot open ${this.walFile} to sync it: ${(err as Error).message}`, { location: this.walFile }, { cause: err }));
        return;
      }
      fs.fsync(this.fd, (err) => {
        if (err) reject(new StoreError('STORE_IO', `fsync of ${this.walFile} failed: ${err.message}`, { location: this.walFile }, { cause: err }));
        else resolve();
      });
    });
    this.running = run;
    const done = (): void => {
      if (this.running === run) this.running = undefined;
      if (this.closed && this.running === undefined && this.fd !== undefined) {
        fs.closeSync(this.fd);
        this.fd = undefined;
      }
    };
    run.then(done, done);
    return run;
  }
}

class SqliteKeyValue implements KeyValueTable {
  private readonly getStmt;
  private readonly setStmt;
  private readonly delStmt;
  private readonly keysStmt;

  constructor(private readonly c: Connection) {
    this.getStmt = c.db.prepare<[string], { value: string }>('SELECT value FROM kv WHERE key = ?');
    this.setStmt = c.db.prepare<[string, string]>('INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
    this.delStmt = c.db.prepare<[string]>('DELETE FROM kv WHERE key = ?');
    // Keys are compared as bytes (BINARY collation), which for UTF-8 is code-point order.
    this.keysStmt = c.db.prepare<[string, string], { key: string }>('SELECT key FROM kv WHERE substr(key, 1, length(?)) = ? ORDER BY key');
  }

  get(key: string): string | undefined {
    checkKey(key);
    return this.c.read(() => this.getStmt.get(key)?.value);
  }

  set(key: string, value: string): void {
    checkKey(key);
    if (typeof value !== 'string') throw new StoreError('STORE_BAD_ARGUMENT', 'a key-value value must be a string');
    this.c.op(() => this.setStmt.run(key, value));
  }

  delete(key: string): boolean {
    checkKey(key);
    return this.c.op(() => this.delStmt.run(key).changes > 0);
  }

  getNumber(key: string): number | undefined {
    const text = this.get(key);
    if (text === undefined) return undefined;
    const n = Number(text);
    return text.trim() !== '' && Number.isFinite(n) ? n : undefined;
  }

  setMax(key: string, value: number): boolean {
    checkKey(key);
    checkFiniteNumber(value, 'setMax value');
    return this.c.op(() => {
      const text = this.getStmt.get(key)?.value;
      const current = text === undefined || text.trim() === '' ? undefined : Number(text);
      if (current !== undefined && Number.isFinite(current) && current >= value) return false;
      this.setStmt.run(key, String(value));
      return true;
    });
  }

  keys(prefix = ''): string[] {
    return this.c.read(() => this.keysStmt.all(prefix, prefix).map((r) => r.key));
  }
}

function toInboxRow(row: Row): InboxRow {
  return {
    messageId: row.message_id as string,
    chatId: row.chat_id as string,
    event: row.event as string,
    senderId: row.sender_id as string,
    provisional: row.provisional === 1,
    fingerprint: row.fingerprint as string,
    body: row.body as string,
    receivedAt: row.received_at as number,
    updatedAt: row.updated_at as number,
  };
}

class SqliteInbox implements InboxTable {
  private readonly getStmt;
  private readonly upsertStmt;
  private readonly deleteStmt;
  private readonly evictStmt;
  private readonly clearStmt;

  constructor(
    private readonly c: Connection,
    readonly capacity: number,
  ) {
    this.getStmt = c.db.prepare<[string], Row>('SELECT * FROM inbox WHERE message_id = ?');
    this.upsertStmt = c.db.prepare(
      `INSERT INTO inbox (message_id, chat_id, event, sender_id, provisional, fingerprint, body, received_at, updated_at, ord)
       VALUES (@messageId, @chatId, @event, @senderId, @provisional, @fingerprint, @body, @at, @at, @ord)
       ON CONFLICT(message_id) DO UPDATE SET chat_id = excluded.chat_id, event = excluded.event, sender_id = excluded.sender_id,
         provisional = excluded.provisional, fingerprint = excluded.fingerprint, body = excluded.body,
         updated_at = excluded.updated_at, ord = excluded.ord`,
    );
    this.deleteStmt = c.db.prepare<[string]>('DELETE FROM inbox WHERE message_id = ?');
    this.evictStmt = c.db.prepare<[number]>('DELETE FROM inbox WHERE message_id IN (SELECT message_id FROM inbox ORDER BY ord LIMIT ?)');
    this.clearStmt = c.db.prepare('DELETE FROM inbox');
  }

  upsert(row: InboxWrite): UpsertOutcome {
    checkInboxWrite(row);
    return this.c.op(() => {
      const stored = this.getStmt.get(row.messageId);
      const outcome = decideUpsert(stored ? toInboxRow(stored) : undefined, row);
      if (outcome === 'unchanged' || outcome === 'kept') return outcome;
      const ord = this.c.addCounter('inbox.ord', 1);
      this.upsertStmt.run({
        messageId: row.messageId,
        chatId: row.chatId,
        event: row.event,
        senderId: row.senderId,
        provisional: row.provisional ? 1 : 0,
        fingerprint: row.fingerprint,
        body: row.body,
        at: row.at,
        ord,
      });
      if (outcome === 'inserted') {
        const size = this.c.addCounter('inbox.size', 1);
        if (size > this.capacity) {
          const excess = size - this.capacity;
          const removed = this.evictStmt.run(excess).changes;
          this.c.addCounter('inbox.size', -removed);
          this.c.addCounter('inbox.evicted', removed);
        }
      }
      return outcome;
    });
  }

  get(messageId: string): InboxRow | undefined {
    return this.c.read(() => {
      const row = this.getStmt.get(messageId);
      return row ? toInboxRow(row) : undefined;
    });
  }

  delete(messageId: string): boolean {
    return this.c.op(() => {
      const removed = this.deleteStmt.run(messageId).changes;
      if (removed > 0) this.c.addCounter('inbox.size', -removed);
      return removed > 0;
    });
  }

  clear(): number {
    return this.c.op(() => {
      const removed = this.clearStmt.run().changes;
      this.c.setCounter('inbox.size', 0);
      return removed;
    });
  }

  size(): number {
    return this.c.read(() => this.c.counter('inbox.size'));
  }

  evicted(): number {
    return this.c.read(() => this.c.counter('inbox.evicted'));
  }
}

interface QueueMeta {
  capacity: number;
  overflow: QueueOverflow;
  max_item_bytes: number;
  size: number;
  next_seq: number;
  pushed: number;
  removed: number;
  dropped: number;
  rejected: number;
}

/** Statements shared by every queue of one file. */
class QueueStatements {
  readonly meta;
  readonly create;
  readonly configure;
  readonly insert;
  readonly dropOldest;
  readonly afterPush;
  readonly bumpRejected;
  readonly peek;
  readonly get;
  readonly remove;
  readonly removeThrough;
  readonly afterRemove;
  readonly all;
  readonly removeListed;
  readonly afterPushMany;
  /** Multi-row inserts by row count (at most `ROWS_PER_INSERT`), prepared when first needed. */
  private readonly inserts = new Map<number, SqliteStatement>();

  constructor(private readonly db: SqliteDatabase) {
    this.meta = db.prepare<[string], QueueMeta>('SELECT * FROM queue_meta WHERE name = ?');
    this.create = db.prepare<[string, number, string, number]>(
      'INSERT INTO queue_meta (name, capacity, overflow, max_item_bytes) VALUES (?, ?, ?, ?)',
    );
    this.configure = db.prepare<[number, string, number, string]>(
      'UPDATE queue_meta SET capacity = ?, overflow = ?, max_item_bytes = ? WHERE name = ?',
    );
    this.insert = db.prepare<[string, number, number, StoreValue | Buffer, number]>(
      'INSERT INTO queue_items (name, seq, is_text, value, enqueued_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.dropOldest = db.prepare<[string, string, number]>(
      'DELETE FROM queue_items WHERE name = ? AND seq IN (SELECT seq FROM queue_items WHERE name = ? ORDER BY seq LIMIT ?)',
    );
    this.afterPush = db.prepare<[number, number, string]>(
      'UPDATE queue_meta SET next_seq = next_seq + 1, size = size + 1 - ?, pushed = pushed + 1, dropped = dropped + ? WHERE name = ?',
    );
    this.bumpRejected = db.prepare<[string]>('UPDATE queue_meta SET rejected = rejected + 1 WHERE name = ?');
    this.peek = db.prepare<[string, number], Row>('SELECT seq, is_text, value, enqueued_at FROM queue_items WHERE name = ? ORDER BY seq LIMIT ?');
    this.get = db.prepare<[string, number], Row>('SELECT seq, is_text, value, enqueued_at FROM queue_items WHERE name = ? AND seq = ?');
    this.remove = db.prepare<[string, number]>('DELETE FROM queue_items WHERE name = ? AND seq = ?');
    this.removeThrough = db.prepare<[string, number]>('DELETE FROM queue_items WHERE name = ? AND seq <= ?');
    this.afterRemove = db.prepare<[number, number, string]>('UPDATE queue_meta SET size = size - ?, removed = removed + ? WHERE name = ?');
    this.all = db.prepare<[], QueueMeta & { name: string }>('SELECT * FROM queue_meta ORDER BY name');
    // The seqs as one JSON array: one statement for a batch of removals, whatever its size.
    this.removeListed = db.prepare<[string, string]>('DELETE FROM queue_items WHERE name = ? AND seq IN (SELECT value FROM json_each(?))');
    this.afterPushMany = db.prepare<[number, number, number, string]>(
      'UPDATE queue_meta SET next_seq = next_seq + ?, size = size + ?, pushed = pushed + ? WHERE name = ?',
    );
  }

  insertRows(n: number): SqliteStatement {
    let stmt = this.inserts.get(n);
    if (stmt === undefined) {
      const rows = new Array<string>(n).fill('(?, ?, ?, ?, ?)').join(', ');
      stmt = this.db.prepare(`INSERT INTO queue_items (name, seq, is_text, value, enqueued_at) VALUES ${rows}`);
      this.inserts.set(n, stmt);
    }
    return stmt;
  }
}

/** Rows per multi-row insert: 5 parameters each stays far under sqlite's parameter limit. */
const ROWS_PER_INSERT = 64;

/** A value as its row stores it; text with a NUL goes in as its UTF-8 bytes (node:sqlite on Node 22 cuts text at the first NUL). */
function storedValue(value: StoreValue): StoreValue | Buffer {
  return typeof value !== 'string' ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value.includes('\0') ? Buffer.from(value, 'utf8') : value;
}

function toItem(row: Row): QueueItem {
  const raw = row.value;
  let value: StoreValue;
  if (row.is_text === 1) value = typeof raw === 'string' ? raw : Buffer.from(raw as Uint8Array).toString('utf8');
  else {
    const buf = raw as Buffer;
    value = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  return { seq: row.seq as number, value, enqueuedAt: row.enqueued_at as number };
}

class SqliteQueue implements Queue {
  /** The metadata row as last read or written through this object (see `Connection`: dropped on rollback). */
  private cached: QueueMeta | undefined;
  private cachedGeneration = -1;

  constructor(
    private readonly c: Connection,
    private readonly s: QueueStatements,
    readonly name: string,
  ) {}

  private meta(): QueueMeta {
    if (this.cached !== undefined && this.cachedGeneration === this.c.generation) return this.cached;
    const meta = this.s.meta.get(this.name);
    if (!meta) throw new StoreError('STORE_IO', `queue '${this.name}' has no metadata row in ${this.c.location}`);
    this.cached = meta;
    this.cachedGeneration = this.c.generation;
    return meta;
  }

  /** The row was changed by someone else (reconfiguration): read it again. */
  forget(): void {
    this.cached = undefined;
  }

  get capacity(): number {
    return this.c.read(() => this.meta().capacity);
  }

  get overflow(): QueueOverflow {
    return this.c.read(() => this.meta().overflow);
  }

  push(value: StoreValue, at?: number): number {
    const bytes = valueBytes(value);
    const outcome = this.c.op((): number | 'full' | 'too-large' => {
      const meta = this.meta();
      if (bytes > meta.max_item_bytes) return 'too-large';
      let dropped = 0;
      if (meta.size >= meta.capacity) {
        if (meta.overflow === 'reject') return 'full';
        dropped = this.s.dropOldest.run(this.name, this.name, meta.size - meta.capacity + 1).changes;
      }
      const seq = meta.next_seq;
      this.s.insert.run(this.name, seq, typeof value === 'string' ? 1 : 0, storedValue(value), at ?? this.c.now());
      this.s.afterPush.run(dropped, dropped, this.name);
      meta.next_seq += 1;
      meta.size += 1 - dropped;
      meta.pushed += 1;
      meta.dropped += dropped;
      return seq;
    });
    if (typeof outcome === 'number') return outcome;
    // Counted outside the refused step so that the count survives the throw.
    const meta = this.c.op(() => {
      const m = this.meta();
      this.s.bumpRejected.run(this.name);
      m.rejected += 1;
      return m;
    });
    if (outcome === 'too-large') {
      throw new StoreError('ITEM_TOO_LARGE', `queue '${this.name}' refuses an item of ${bytes} bytes (limit ${meta.max_item_bytes})`, {
        queue: this.name,
        bytes,
        limit: meta.max_item_bytes,
      });
    }
    throw new StoreError('QUEUE_FULL', `queue '${this.name}' is full (${meta.capacity} items)`, { queue: this.name, capacity: meta.capacity });
  }

  pushMany(values: readonly StoreValue[], at?: number): number[] {
    if (values.length === 0) return [];
    // Anything the overflow rule or the size limit would touch goes one by one, exactly as `push` does it.
    const fits = this.c.read(() => {
      const meta = this.meta();
      if (meta.size + values.length > meta.capacity) return false;
      for (let i = 0; i < values.length; i++) if (overBytes(values[i]!, meta.max_item_bytes)) return false;
      return true;
    });
    if (!fits) return values.map((v) => this.push(v, at));
    return this.c.op(() => {
      const meta = this.meta();
      const when = at ?? this.c.now();
      const seqs = new Array<number>(values.length);
      for (let i = 0; i < values.length; ) {
        const n = Math.min(ROWS_PER_INSERT, values.length - i);
        const params: unknown[] = new Array(n * 5);
        for (let k = 0; k < n; k++) {
          const value = values[i + k]!;
          const seq = meta.next_seq + i + k;
          seqs[i + k] = seq;
          params[k * 5] = this.name;
          params[k * 5 + 1] = seq;
          params[k * 5 + 2] = typeof value === 'string' ? 1 : 0;
          params[k * 5 + 3] = storedValue(value);
          params[k * 5 + 4] = when;
        }
        this.s.insertRows(n).run(...params);
        i += n;
      }
      this.s.afterPushMany.run(values.length, values.length, values.length, this.name);
      meta.next_seq += values.length;
      meta.size += values.length;
      meta.pushed += values.length;
      return seqs;
    });
  }

  removeMany(seqs: readonly number[]): number {
    if (seqs.length === 0) return 0;
    if (seqs.length === 1) return this.remove(seqs[0]!) ? 1 : 0;
    return this.c.op(() => {
      const meta = this.meta();
      const n = Number(this.s.removeListed.run(this.name, JSON.stringify(seqs)).changes);
      if (n > 0) this.removed(meta, n);
      return n;
    });
  }

  peek(limit = Number.MAX_SAFE_INTEGER): QueueItem[] {
    return this.c.read(() => this.s.peek.all(this.name, Math.max(0, Math.floor(limit))).map(toItem));
  }

  get(seq: number): QueueItem | undefined {
    return this.c.read(() => {
      const row = this.s.get.get(this.name, seq);
      return row ? toItem(row) : undefined;
    });
  }

  remove(seq: number): boolean {
    return this.c.op(() => {
      const meta = this.meta();
      const n = this.s.remove.run(this.name, seq).changes;
      if (n > 0) this.removed(meta, n);
      return n > 0;
    });
  }

  removeThrough(through: number): number {
    return this.c.op(() => {
      const meta = this.meta();
      const n = this.s.removeThrough.run(this.name, through).changes;
      if (n > 0) this.removed(meta, n);
      return n;
    });
  }

  private removed(meta: QueueMeta, n: number): void {
    this.s.afterRemove.run(n, n, this.name);
    meta.size -= n;
    meta.removed += n;
  }

  size(): number {
    return this.c.read(() => this.meta().size);
  }

  clear(): number {
    return this.removeThrough(Number.MAX_SAFE_INTEGER);
  }

  counters(): QueueCounters {
    return this.c.read(() => {
      const m = this.meta();
      return { pushed: m.pushed, removed: m.removed, dropped: m.dropped, rejected: m.rejected };
    });
  }
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly kv: KeyValueTable;
  readonly inbox: InboxTable;
  private readonly queues = new Map<string, SqliteQueue>();
  private readonly seenSets = new Map<string, SqliteSeenSet>();
  private readonly queueStatements: QueueStatements;

  private constructor(private readonly c: Connection, inboxCapacity: number) {
    this.kv = new SqliteKeyValue(c);
    this.inbox = new SqliteInbox(c, inboxCapacity);
    this.queueStatements = new QueueStatements(c.db);
  }

  /** Opens (creating when absent) the store file at `location`. */
  static open(location: string, options: SqliteStoreOptions = {}): SqliteStore {
    const inboxCapacity = positiveInteger(options.inboxCapacity ?? DEFAULT_INBOX_CAPACITY, 'inbox capacity');
    const lockTimeoutMs = options.lockTimeoutMs ?? 1000;
    const synchronous = options.synchronous ?? 'full';
    if (synchronous !== 'full' && synchronous !== 'normal') {
      throw new StoreError('STORE_BAD_ARGUMENT', `synchronous must be 'full' or 'normal', got ${String(synchronous)}`);
    }
    const Database = options.driver ?? loadSqliteDriver();
    const file = path.resolve(location);
    let db: SqliteDatabase | undefined;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // Received messages are private: create the file owner-only before sqlite creates it with the umask.
      fs.closeSync(fs.openSync(file, 'a', 0o600));
      db = new Database(file, { timeout: lockTimeoutMs });
      db.pragma('locking_mode = EXCLUSIVE');
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (String(mode).toLowerCase() !== 'wal') throw new StoreError('STORE_IO', `store file ${file} refused WAL mode (got ${String(mode)})`);
      db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      // A multi-row write inside a transaction keeps a statement journal, and this sqlite build puts temporary files
      // on disk: at every group commit that was a temp file written page by page (about 12 pwrites per commit of the
      // MQTT outbox, issue 26). It holds a few pages only while one statement runs, so memory is the better place.
      db.pragma('temp_store = MEMORY');
      const version = Number(db.pragma('user_version', { simple: true }));
      if (version > SCHEMA_VERSION) {
        throw new StoreError('STORE_VERSION', `store file ${file} has layout version ${version}; this release reads up to ${SCHEMA_VERSION}`, {
          location: file,
          version,
        });
      }
      // The first write takes the exclusive lock and holds it until close.
      db.exec('BEGIN IMMEDIATE');
      db.exec(SCHEMA_V1);
      db.exec(SCHEMA_V2);
      if (version < 2) db.exec(MIGRATE_V1_TO_V2);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
      db.exec('COMMIT');
      return new SqliteStore(new Connection(db, file, options.now ?? Date.now, synchronous), inboxCapacity);
    } catch (err) {
      try {
        db?.close();
      } catch {
        // The open already failed; the first error is the one worth reporting.
      }
      throw translate(err, file);
    }
  }

  get location(): string {
    return this.c.location;
  }

  get closed(): boolean {
    return this.c.closed;
  }

  queue(name: string, options?: QueueOptions): Queue {
    checkName(name, 'queue name');
    const settings: ResolvedQueueOptions | undefined = options ? resolveQueueOptions(options) : undefined;
    this.c.op(() => {
      const meta = this.queueStatements.meta.get(name);
      const s = settings ?? resolveQueueOptions(undefined);
      if (!meta) this.queueStatements.create.run(name, s.capacity, s.overflow, s.maxItemBytes);
      else if (settings) this.queueStatements.configure.run(s.capacity, s.overflow, s.maxItemBytes, name);
    });
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new SqliteQueue(this.c, this.queueStatements, name);
      this.queues.set(name, queue);
    } else queue.forget();
    return queue;
  }

  seen(name: string, options?: SeenSetOptions): SeenSet {
    this.c.check();
    checkName(name, 'seen-set name');
    const existing = this.seenSets.get(name);
    if (existing) {
      if (options) existing.capacity = resolveSeenCapacity(options);
      return existing;
    }
    const set = new SqliteSeenSet(this.c, name, resolveSeenCapacity(options));
    this.seenSets.set(name, set);
    return set;
  }

  transaction<T>(fn: () => T, options: TransactionOptions = {}): T {
    return this.c.tx(fn, options.deferSync === true);
  }

  sync(): Promise<void> {
    return this.c.sync();
  }

  stats(): StoreStats {
    return this.c.read(() => {
      const queues: StoreStats['queues'] = {};
      for (const m of this.queueStatements.all.all()) {
        queues[m.name] = { pushed: m.pushed, removed: m.removed, dropped: m.dropped, rejected: m.rejected, size: m.size, capacity: m.capacity };
      }
      return { kind: this.kind, location: this.location, inboxRows: this.inbox.size(), inboxEvicted: this.inbox.evicted(), queues };
    });
  }

  close(): void {
    if (this.c.closed) return;
    this.c.closed = true;
    try {
      this.c.close();
      this.c.db.close();
    } catch (err) {
      throw translate(err, this.c.location);
    }
  }
}
