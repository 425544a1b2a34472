/**
 * The store interface: one durable place per owner (a hub-config node, a gateway) for the hub outbox, the inbox
 * dedup/upsert table, cursors, and named bounded FIFO queues. Two implementations satisfy it (memory and sqlite) and
 * one shared test suite checks both, so code written against this interface behaves the same on either.
 *
 * Durability contract (sqlite): a call that returned has been committed to the file with `synchronous=FULL`, so
 * neither a process kill nor a power cut loses it. Calls made inside `transaction()` are committed together when the
 * outermost transaction returns. The one exception is asked for by name: a transaction with `deferSync` is
 * committed (a process kill loses nothing) but survives a power cut only once a later `sync()` has resolved.
 */

/** A value a queue or the key-value table can hold. Bytes come back as `Uint8Array`, text as `string`. */
export type StoreValue = string | Uint8Array;

export interface KeyValueTable {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  delete(key: string): boolean;
  /** Numeric value of a key written by `set` or `setMax`; `undefined` when absent or not a number. */
  getNumber(key: string): number | undefined;
  /**
   * Stores `max(current, value)`: a cursor that only moves forward, so a re-delivered older watermark is a no-op.
   * Returns true when the stored value advanced.
   */
  setMax(key: string, value: number): boolean;
  /** Keys starting with `prefix`, in byte order. */
  keys(prefix?: string): string[];
}

/** One row of the inbox: the last accepted version of a received message, keyed by `messageId`. */
export interface InboxRow {
  messageId: string;
  chatId: string;
  event: string;
  senderId: string;
  /** A provisional row (`stream_merged: true`) never overwrites a final one. */
  provisional: boolean;
  /** Equality of content, chosen by the caller (a digest of what matters); equal fingerprints are a duplicate. */
  fingerprint: string;
  /** The caller's serialized copy of the message. */
  body: string;
  receivedAt: number;
  updatedAt: number;
}

export type InboxWrite = Omit<InboxRow, 'receivedAt' | 'updatedAt'> & { at: number };

/**
 * What `upsert` did:
 * - `inserted`: first time this id is seen;
 * - `updated`: the id existed and the new content replaced it (persist is always upsert);
 * - `unchanged`: same fingerprint, a duplicate (nothing written);
 * - `kept`: the incoming row was provisional and the stored one final, so the stored one stays.
 */
export type UpsertOutcome = 'inserted' | 'updated' | 'unchanged' | 'kept';

export interface InboxTable {
  readonly capacity: number;
  upsert(row: InboxWrite): UpsertOutcome;
  get(messageId: string): InboxRow | undefined;
  delete(messageId: string): boolean;
  /** Removes every row; returns how many. */
  clear(): number;
  size(): number;
  /** Rows removed because the table was full (least recently written first). Survives reopening. */
  evicted(): number;
}

export type QueueOverflow = 'reject' | 'drop-oldest';

export interface QueueOptions {
  /** Most items held; must be a positive integer. Default 10 000. */
  capacity?: number;
  /** What a push into a full queue does: throw `QUEUE_FULL` (default) or drop the oldest item and count it. */
  overflow?: QueueOverflow;
  /** Largest single value in bytes (UTF-8 for text). Default 8 MiB. */
  maxItemBytes?: number;
}

export interface QueueItem {
  /** Position in the queue, increasing, never reused within one file. */
  seq: number;
  value: StoreValue;
  enqueuedAt: number;
}

export interface QueueCounters {
  pushed: number;
  removed: number;
  /** Items dropped by `drop-oldest` to make room. */
  dropped: number;
  /** Pushes refused by `reject` (or because the value was too large). */
  rejected: number;
}

export interface Queue {
  readonly name: string;
  readonly capacity: number;
  readonly overflow: QueueOverflow;
  /** Appends and returns the new item's seq. Throws `QUEUE_FULL` or `ITEM_TOO_LARGE`. */
  push(value: StoreValue, at?: number): number;
  /** Oldest items first, at most `limit`. */
  peek(limit?: number): QueueItem[];
  get(seq: number): QueueItem | undefined;
  remove(seq: number): boolean;
  /** Removes the items with these seqs (absent ones are skipped), in one statement where the store can; returns how many. */
  removeMany(seqs: readonly number[]): number;
  /**
   * Appends the values in order, as `push` one by one would (same seqs, same refusals), in one multi-row write
   * where the store can: when they all fit without the overflow rule.
   */
  pushMany(values: readonly StoreValue[], at?: number): number[];
  /** Removes every item with `seq <= through`; returns how many. */
  removeThrough(through: number): number;
  size(): number;
  clear(): number;
  /** Lifetime counters of this queue; they survive reopening. */
  counters(): QueueCounters;
}

export interface SeenSetOptions {
  /** Most keys remembered; the oldest are forgotten first. Default 10 000. */
  capacity?: number;
}

/** A bounded set of keys already handled (for example `notify.signal` event ids). */
export interface SeenSet {
  readonly name: string;
  readonly capacity: number;
  /** Adds the key; true when it was not there yet. */
  add(key: string, at?: number): boolean;
  /** Adds every key, as `add` one by one would, in one multi-row write where the store can; returns how many were new. */
  addMany(keys: readonly string[], at?: number): number;
  has(key: string): boolean;
  size(): number;
  /** Keys forgotten because the set was full. Survives reopening. */
  evicted(): number;
}

export interface StoreStats {
  kind: 'memory' | 'sqlite';
  location: string;
  inboxRows: number;
  inboxEvicted: number;
  queues: Record<string, QueueCounters & { size: number; capacity: number }>;
}

export interface Store {
  readonly kind: 'memory' | 'sqlite';
  /** The file path, or `:memory:`. */
  readonly location: string;
  readonly closed: boolean;
  readonly kv: KeyValueTable;
  readonly inbox: InboxTable;
  /**
   * The named queue, created on first use. Options given on a later call (or a later open) replace the stored
   * capacity and overflow policy; a smaller capacity takes effect at the next push.
   */
  queue(name: string, options?: QueueOptions): Queue;
  seen(name: string, options?: SeenSetOptions): SeenSet;
  /**
   * Runs `fn` as one atomic unit: everything it wrote is committed together, or nothing is if it throws.
   * Nested calls are savepoints: an inner throw undoes only the inner writes.
   */
  transaction<T>(fn: () => T, options?: TransactionOptions): T;
  /**
   * Resolves once every commit made so far survives a power cut: at once when none was deferred (or for a store
   * opened with `synchronous: 'normal'`, whose commits never wait for the disk, and for the memory store); otherwise
   * after an fsync that runs off the event loop and is shared by every caller meanwhile. Rejects with `STORE_IO`
   * when the disk reports an error.
   */
  sync(): Promise<void>;
  stats(): StoreStats;
  /** Releases the file. Idempotent. */
  close(): void;
}

export interface TransactionOptions {
  /**
   * sqlite with `synchronous: 'full'`: commit without waiting for the disk (as `normal` does), leaving the fsync to
   * the next `sync()`. For writers that hold back their acknowledgements until `sync()` resolves and want the
   * event loop free meanwhile (the gateway's MQTT outbox). Ignored when nested in another transaction, and by the
   * memory store.
   */
  deferSync?: boolean;
}

export interface OpenStoreOptions {
  /** Inbox rows kept (least recently written evicted first). Default 100 000. */
  inboxCapacity?: number;
  /**
   * Memory store only: characters the inbox rows may hold in all (their strings plus a fixed 128 per row), default
   * 8 Mi; beyond, the least recently written rows are evicted as for `inboxCapacity`. The rows live on the heap
   * there (100 000 rows with their bodies are far more than a small heap holds); sqlite keeps them on disk and
   * ignores this.
   */
  inboxMaxChars?: number;
  /**
   * sqlite only. `full` (default) syncs the write-ahead log on every commit: a returned write survives a power cut.
   * `normal` survives a process crash but may lose the last commits on power loss; it spares SD cards.
   */
  synchronous?: 'full' | 'normal';
  /** Clock for the timestamps the store records; defaults to `Date.now`. */
  now?: () => number;
}
