/**
 * The in-memory store: the same contract as the sqlite store minus durability. Used for `:memory:` (tests, the CLI,
 * a Node-RED flow that opts out of persistence) and as the reference the shared suite holds sqlite to.
 *
 * Transactions keep an undo log; a throw replays it backwards, so rollback behaves as in sqlite.
 */
import { compareUtf8 } from '../bytes';
import { StoreError } from './errors';
import {
  checkFiniteNumber,
  checkInboxWrite,
  checkKey,
  checkName,
  decideUpsert,
  DEFAULT_INBOX_CAPACITY,
  DEFAULT_MEMORY_INBOX_MAX_CHARS,
  overBytes,
  positiveInteger,
  resolveQueueOptions,
  resolveSeenCapacity,
  type ResolvedQueueOptions,
  valueBytes,
} from './rules';
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

type Undo = () => void;

/** Shared by the tables of one memory store: the undo log and the closed flag. */
class Journal {
  closed = false;
  /** Undos of the open transaction (nested ones included); one array for the store's life. */
  private readonly log: Undo[] = [];
  private depth = 0;

  check(): void {
    if (this.closed) throw new StoreError('STORE_CLOSED', 'the store is closed');
  }

  record(undo: Undo): void {
    if (this.depth > 0) this.log.push(undo);
  }

  run<T>(fn: () => T): T {
    this.check();
    const mark = this.log.length;
    this.depth++;
    let result: T;
    try {
      result = fn();
      if (result !== null && typeof (result as { then?: unknown })?.then === 'function') {
        throw new StoreError('STORE_BAD_ARGUMENT', 'a transaction function must be synchronous (it returned a promise)');
      }
    } catch (err) {
      this.rollback(mark);
      throw err;
    } finally {
      // The outermost transaction ended: its undos are no longer needed.
      if (--this.depth === 0) this.log.length = 0;
    }
    return result;
  }

  private rollback(mark: number): void {
    const log = this.log;
    while (log.length > mark) (log.pop() as Undo)();
  }
}

function copyValue(value: StoreValue): StoreValue {
  return typeof value === 'string' ? value : new Uint8Array(value);
}

class MemoryKeyValue implements KeyValueTable {
  private readonly map = new Map<string, string>();

  constructor(private readonly journal: Journal) {}

  get(key: string): string | undefined {
    this.journal.check();
    return this.map.get(checkKey(key));
  }

  set(key: string, value: string): void {
    this.journal.check();
    checkKey(key);
    if (typeof value !== 'string') throw new StoreError('STORE_BAD_ARGUMENT', 'a key-value value must be a string');
    this.write(key, value);
  }

  delete(key: string): boolean {
    this.journal.check();
    checkKey(key);
    if (!this.map.has(key)) return false;
    this.write(key, undefined);
    return true;
  }

  getNumber(key: string): number | undefined {
    const text = this.get(key);
    if (text === undefined) return undefined;
    const n = Number(text);
    return text.trim() !== '' && Number.isFinite(n) ? n : undefined;
  }

  setMax(key: string, value: number): boolean {
    this.journal.check();
    checkKey(key);
    checkFiniteNumber(value, 'setMax value');
    const current = this.getNumber(key);
    if (current !== undefined && current >= value) return false;
    this.write(key, String(value));
    return true;
  }

  keys(prefix = ''): string[] {
    this.journal.check();
    return [...this.map.keys()].filter((k) => k.startsWith(prefix)).sort(compareUtf8);
  }

  private write(key: string, value: string | undefined): void {
    const before = this.map.get(key);
    const had = this.map.has(key);
    if (value === undefined) this.map.delete(key);
    else this.map.set(key, value);
    this.journal.record(() => {
      if (had) this.map.set(key, before as string);
      else this.map.delete(key);
    });
  }
}

interface StoredRow extends InboxRow {
  ord: number;
}

/** What a row costs for `inboxMaxChars`: its strings, and a fixed share for the object and the map entry. */
const ROW_OVERHEAD = 128;

function rowChars(row: InboxRow): number {
  return row.messageId.length + row.chatId.length + row.event.length + row.senderId.length + row.fingerprint.length + row.body.length + ROW_OVERHEAD;
}

class MemoryInbox implements InboxTable {
  private rows = new Map<string, StoredRow>();
  private ord = 0;
  private evictedCount = 0;
  private chars = 0;

  constructor(
    private readonly journal: Journal,
    readonly capacity: number,
    private readonly maxChars: number,
  ) {}

  upsert(row: InboxWrite): UpsertOutcome {
    this.journal.check();
    checkInboxWrite(row);
    const existing = this.rows.get(row.messageId);
    const outcome = decideUpsert(existing, row);
    if (outcome === 'unchanged' || outcome === 'kept') return outcome;
    const stored: StoredRow = {
      messageId: row.messageId,
      chatId: row.chatId,
      event: row.event,
      senderId: row.senderId,
      provisional: row.provisional,
      fingerprint: row.fingerprint,
      body: row.body,
      receivedAt: existing ? existing.receivedAt : row.at,
      updatedAt: row.at,
      ord: ++this.ord,
    };
    this.put(row.messageId, stored);
    // The row just written stays even if it alone is over the budget: a dedup table that forgets at once is none.
    while (this.rows.size > this.capacity || (this.chars > this.maxChars && this.rows.size > 1)) {
      const oldest = this.rows.keys().next().value as string;
      this.put(oldest, undefined);
      this.bumpEvicted();
    }
    return outcome;
  }

  get(messageId: string): InboxRow | undefined {
    this.journal.check();
    const row = this.rows.get(messageId);
    if (!row) return undefined;
    const { ord: _ord, ...plain } = row;
    return plain;
  }

  delete(messageId: string): boolean {
    this.journal.check();
    if (!this.rows.has(messageId)) return false;
    this.put(messageId, undefined);
    return true;
  }

  clear(): number {
    this.journal.check();
    const n = this.rows.size;
    for (const id of [...this.rows.keys()]) this.put(id, undefined);
    return n;
  }

  size(): number {
    this.journal.check();
    return this.rows.size;
  }

  evicted(): number {
    this.journal.check();
    return this.evictedCount;
  }

  private bumpEvicted(): void {
    this.evictedCount++;
    this.journal.record(() => {
      this.evictedCount--;
    });
  }

  // Map order is write order (delete + set moves a row to the end), which is the eviction order.
  private put(id: string, row: StoredRow | undefined): void {
    const before = this.rows.get(id);
    this.rows.delete(id);
    if (before) this.chars -= rowChars(before);
    if (row) {
      this.rows.set(id, row);
      this.chars += rowChars(row);
    }
    this.journal.record(() => {
      if (this.rows.has(id)) this.chars -= rowChars(this.rows.get(id)!);
      this.rows.delete(id);
      if (before) {
        this.rows.set(id, before);
        this.chars += rowChars(before);
        this.resort();
      }
    });
  }

  private resort(): void {
    this.rows = new Map([...this.rows.entries()].sort((a, b) => a[1].ord - b[1].ord));
  }
}

class MemoryQueue implements Queue {
  private items = new Map<number, QueueItem>();
  private nextSeq = 1;
  private readonly count: QueueCounters = { pushed: 0, removed: 0, dropped: 0, rejected: 0 };

  constructor(
    private readonly journal: Journal,
    readonly name: string,
    private settings: ResolvedQueueOptions,
    private readonly now: () => number,
  ) {}

  get capacity(): number {
    return this.settings.capacity;
  }

  get overflow(): QueueOverflow {
    return this.settings.overflow;
  }

  reconfigure(settings: ResolvedQueueOptions): void {
    this.settings = settings;
  }

  push(value: StoreValue, at?: number): number {
    this.journal.check();
    if (overBytes(value, this.settings.maxItemBytes)) {
      const bytes = valueBytes(value);
      this.bump('rejected');
      throw new StoreError('ITEM_TOO_LARGE', `queue '${this.name}' refuses an item of ${bytes} bytes (limit ${this.settings.maxItemBytes})`, {
        queue: this.name,
        bytes,
        limit: this.settings.maxItemBytes,
      });
    }
    if (this.items.size >= this.settings.capacity) {
      if (this.settings.overflow === 'reject') {
        this.bump('rejected');
        throw new StoreError('QUEUE_FULL', `queue '${this.name}' is full (${this.settings.capacity} items)`, {
          queue: this.name,
          capacity: this.settings.capacity,
        });
      }
      while (this.items.size >= this.settings.capacity) {
        this.take(this.items.keys().next().value as number);
        this.bump('dropped');
      }
    }
    const seq = this.nextSeq++;
    const item: QueueItem = { seq, value: copyValue(value), enqueuedAt: at ?? this.now() };
    this.items.set(seq, item);
    this.count.pushed++;
    // One undo for the whole push (a closure per step was most of a push's cost).
    this.journal.record(() => {
      this.count.pushed--;
      this.items.delete(seq);
      this.nextSeq = seq;
    });
    return seq;
  }

  peek(limit = Number.MAX_SAFE_INTEGER): QueueItem[] {
    this.journal.check();
    const out: QueueItem[] = [];
    for (const item of this.items.values()) {
      if (out.length >= limit) break;
      out.push({ seq: item.seq, value: copyValue(item.value), enqueuedAt: item.enqueuedAt });
    }
    return out;
  }

  get(seq: number): QueueItem | undefined {
    this.journal.check();
    const item = this.items.get(seq);
    return item ? { seq: item.seq, value: copyValue(item.value), enqueuedAt: item.enqueuedAt } : undefined;
  }

  removeMany(seqs: readonly number[]): number {
    let n = 0;
    for (let i = 0; i < seqs.length; i++) if (this.remove(seqs[i]!)) n += 1;
    return n;
  }

  pushMany(values: readonly StoreValue[], at?: number): number[] {
    const seqs: number[] = [];
    for (let i = 0; i < values.length; i++) seqs.push(this.push(values[i]!, at));
    return seqs;
  }

  remove(seq: number): boolean {
    this.journal.check();
    const item = this.items.get(seq);
    if (item === undefined) return false;
    this.items.delete(seq);
    this.count.removed++;
    this.journal.record(() => {
      this.count.removed--;
      this.restore(item);
    });
    return true;
  }

  removeThrough(through: number): number {
    this.journal.check();
    let n = 0;
    for (const seq of [...this.items.keys()]) {
      if (seq > through) break;
      this.take(seq);
      this.bump('removed');
      n++;
    }
    return n;
  }

  size(): number {
    this.journal.check();
    return this.items.size;
  }

  clear(): number {
    return this.removeThrough(Number.MAX_SAFE_INTEGER);
  }

  counters(): QueueCounters {
    this.journal.check();
    return { ...this.count };
  }

  private take(seq: number): void {
    const item = this.items.get(seq) as QueueItem;
    this.items.delete(seq);
    this.journal.record(() => this.restore(item));
  }

  /** Puts a taken item back in seq order (a rollback). */
  private restore(item: QueueItem): void {
    this.items.set(item.seq, item);
    this.items = new Map([...this.items.entries()].sort((a, b) => a[0] - b[0]));
  }

  private bump(counter: keyof QueueCounters): void {
    this.count[counter]++;
    this.journal.record(() => {
      this.count[counter]--;
    });
  }
}

class MemorySeenSet implements SeenSet {
  private readonly keys = new Map<string, number>();
  private evictedCount = 0;

  constructor(
    private readonly journal: Journal,
    readonly name: string,
    public capacity: number,
    private readonly now: () => number,
  ) {}

  addMany(keys: readonly string[], at?: number): number {
    let n = 0;
    for (let i = 0; i < keys.length; i++) if (this.add(keys[i]!, at)) n += 1;
    return n;
  }

  add(key: string, at?: number): boolean {
    this.journal.check();
    checkKey(key);
    if (this.keys.has(key)) return false;
    this.keys.set(key, at ?? this.now());
    this.journal.record(() => {
      this.keys.delete(key);
    });
    while (this.keys.size > this.capacity) {
      const oldest = this.keys.keys().next().value as string;
      const stamp = this.keys.get(oldest) as number;
      this.keys.delete(oldest);
      this.evictedCount++;
      this.journal.record(() => {
        this.evictedCount--;
        // Restoring the oldest key puts it back in front, where it came from.
        const rest = [...this.keys.entries()];
        this.keys.clear();
        this.keys.set(oldest, stamp);
        for (const [k, v] of rest) this.keys.set(k, v);
      });
    }
    return true;
  }

  has(key: string): boolean {
    this.journal.check();
    return this.keys.has(key);
  }

  size(): number {
    this.journal.check();
    return this.keys.size;
  }

  evicted(): number {
    this.journal.check();
    return this.evictedCount;
  }
}

export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  readonly location = ':memory:';
  readonly kv: KeyValueTable;
  readonly inbox: InboxTable;
  private readonly journal = new Journal();
  private readonly queues = new Map<string, MemoryQueue>();
  private readonly seenSets = new Map<string, MemorySeenSet>();
  private readonly now: () => number;

  constructor(options: OpenStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.kv = new MemoryKeyValue(this.journal);
    this.inbox = new MemoryInbox(
      this.journal,
      positiveInteger(options.inboxCapacity ?? DEFAULT_INBOX_CAPACITY, 'inbox capacity'),
      positiveInteger(options.inboxMaxChars ?? DEFAULT_MEMORY_INBOX_MAX_CHARS, 'inbox maxChars'),
    );
  }

  get closed(): boolean {
    return this.journal.closed;
  }

  queue(name: string, options?: QueueOptions): Queue {
    this.journal.check();
    checkName(name, 'queue name');
    const existing = this.queues.get(name);
    if (existing) {
      if (options) existing.reconfigure(resolveQueueOptions(options));
      return existing;
    }
    const queue = new MemoryQueue(this.journal, name, resolveQueueOptions(options), this.now);
    this.queues.set(name, queue);
    return queue;
  }

  seen(name: string, options?: SeenSetOptions): SeenSet {
    this.journal.check();
    checkName(name, 'seen-set name');
    const existing = this.seenSets.get(name);
    if (existing) {
      if (options) existing.capacity = resolveSeenCapacity(options);
      return existing;
    }
    const set = new MemorySeenSet(this.journal, name, resolveSeenCapacity(options), this.now);
    this.seenSets.set(name, set);
    return set;
  }

  transaction<T>(fn: () => T, _options?: TransactionOptions): T {
    return this.journal.run(fn);
  }

  /** Nothing here ever reaches a disk: every commit is as durable as it will be. */
  sync(): Promise<void> {
    return Promise.resolve();
  }

  stats(): StoreStats {
    this.journal.check();
    const queues: StoreStats['queues'] = {};
    for (const [name, q] of this.queues) queues[name] = { ...q.counters(), size: q.size(), capacity: q.capacity };
    return { kind: this.kind, location: this.location, inboxRows: this.inbox.size(), inboxEvicted: this.inbox.evicted(), queues };
  }

  close(): void {
    this.journal.closed = true;
  }
}
