/**
 * The durable outbox (guide §7.6, §14.5): every retransmittable uplink (`message.send`, `message.reply`,
 * `message.reaction`) is written to the store before it goes on the wire, with its `message_id` and `trace_id`
 * fixed at that moment, and leaves the store only when the hub answers (`message.ack` / `message.error`) or the
 * caller's expiry passes. A crash or a restart therefore re-sends the same bytes, and the hub's inbox dedups them.
 *
 * In memory it tracks what is on the wire: at most `maxInFlight` frames unanswered, each with its own deadline on
 * the client's clock; a frame whose deadline passes is sent again (same ids) on the live connection.
 *
 * Group commit (the client drives it): a batch may be committed with `deferSync` (written, so a process kill
 * loses nothing, and on disk once the store's next `sync()` resolves). Such entries are indexed and sendable at
 * once, but listed (`list`, the client's `pendingSends`) only after `markDurable` says the disk has them: the
 * client reports them `queued` at that moment. Rows of answered sends are removed lazily (`retire`): the removal
 * rides along with the next commit, because a removal lost in a crash only makes the send go out once more with
 * the same ids, which the hub's inbox absorbs and answers again.
 */
import type { Clock } from './clock';
import { HubError } from './errors';
import { isObject, type JsonObject } from './json';
import type { SendTag } from './send-tag';
import type { Queue, Store } from '../store';
import { StoreError } from '../store';

export const OUTBOX_QUEUE = 'hub.outbox';

export interface OutboxRecord {
  v: 1;
  messageId: string;
  traceId: string;
  event: string;
  chatId: string;
  /** The uplink without `emitted_at`, which is stamped per attempt. */
  frame: JsonObject;
  createdAt: number;
  expiresAt: number | undefined;
  /** The caller's tag (optional; records written before tags existed have none). */
  tag?: SendTag;
}

export interface OutboxEntry extends OutboxRecord {
  localSeq: number;
  attempts: number;
  sentAt: number | undefined;
  inFlight: boolean;
}

export interface OutboxOptions {
  capacity: number;
  ackTimeoutMs: number;
  maxInFlight: number;
}

function parseRecord(value: unknown): OutboxRecord | undefined {
  if (typeof value !== 'string') return undefined;
  let r: unknown;
  try {
    r = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (!isObject(r) || r.v !== 1 || !isObject(r.frame)) return undefined;
  for (const key of ['messageId', 'traceId', 'event', 'chatId'] as const) if (typeof r[key] !== 'string') return undefined;
  if (typeof r.createdAt !== 'number') return undefined;
  return r as unknown as OutboxRecord;
}

export class Outbox {
  private readonly queue: Queue;
  /** Insertion order is local seq order: the oldest entries (the ones in flight first) come first. */
  private readonly entries = new Map<number, OutboxEntry>();
  private readonly byTraceId = new Map<string, OutboxEntry>();
  private readonly byMsgId = new Map<string, OutboxEntry>();
  private inFlightCount = 0;
  private withExpiry = 0;
  /** Every entry with `localSeq <= durableSeq` is on disk; those above wait for `markDurable`. */
  private durableSeq = 0;
  private maxSeq = 0;
  /** Seqs of answered sends whose rows are still in the store (removed with the next commit). */
  private retired: number[] = [];
  /** Records found unreadable when loading (removed, reported once). */
  readonly unreadable: number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly options: OutboxOptions,
  ) {
    this.queue = store.queue(OUTBOX_QUEUE, { capacity: options.capacity, overflow: 'reject' });
    let unreadable = 0;
    for (const item of this.queue.peek()) {
      const record = parseRecord(item.value);
      if (!record) {
        this.queue.remove(item.seq);
        unreadable++;
        continue;
      }
      this.index({ ...record, localSeq: item.seq, attempts: 0, sentAt: undefined, inFlight: false });
    }
    this.unreadable = unreadable;
    this.durableSeq = this.maxSeq;
  }

  get size(): number {
    return this.entries.size;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  /** Rows of answered sends not yet removed from the store. */
  get pendingRemovals(): number {
    return this.retired.length;
  }

  /** The highest seq the disk is known to hold (see `markDurable`). */
  get durableThrough(): number {
    return this.durableSeq;
  }

  /** True once the entry's row survives a power cut. */
  isDurable(entry: OutboxEntry): boolean {
    return entry.localSeq <= this.durableSeq;
  }

  /** Is this very entry still indexed (not answered, expired or failed meanwhile)? */
  holds(entry: OutboxEntry): boolean {
    return this.entries.get(entry.localSeq) === entry;
  }

  /** The store has synced every commit so far up to `seq`: those entries may go on the wire. */
  markDurable(seq: number): void {
    if (seq > this.durableSeq) this.durableSeq = Math.min(seq, this.maxSeq);
  }

  /**
   * Writes uplinks to the store in ONE transaction (one fsync for a burst of sends), together with the removals of
   * retired rows, and indexes those that were written. A record the queue refuses (full) fails alone; if the commit
   * itself fails, none is indexed, the removals stay pending and the error is thrown (STORE_FAILED).
   *
   * With `deferSync` the new entries become sendable only at `markDurable`; otherwise they are durable on return.
   */
  addBatch(records: Array<Omit<OutboxRecord, 'v'>>, options: { deferSync?: boolean } = {}): Array<{ entry: OutboxEntry } | { error: HubError }> {
    const results: Array<{ entry: OutboxEntry } | { error: HubError }> = [];
    const retired = this.retired;
    this.retired = [];
    try {
      this.store.transaction(() => {
        // Removals first: the rows they free are what lets a full outbox take the new records.
        for (const seq of retired) this.queue.remove(seq);
        for (const record of records) {
          const full: OutboxRecord = { v: 1, ...record };
          try {
            const seq = this.queue.push(JSON.stringify(full), record.createdAt);
            results.push({ entry: { ...full, localSeq: seq, attempts: 0, sentAt: undefined, inFlight: false } });
          } catch (err) {
            if (!(err instanceof StoreError && err.code === 'QUEUE_FULL')) throw err;
            results.push({
              error: new HubError('OUTBOX_FULL', `the outbox is full (${this.options.capacity} unanswered sends); nothing was queued`, { capacity: this.options.capacity }),
            });
          }
        }
      }, { deferSync: options.deferSync === true });
    } catch (err) {
      this.retired = retired.concat(this.retired);
      throw new HubError('STORE_FAILED', `the outbox could not store the sends: ${(err as Error).message}`, {}, { cause: err });
    }
    for (const r of results) if ('entry' in r) this.index(r.entry);
    if (options.deferSync !== true) this.durableSeq = this.maxSeq;
    return results;
  }

  /** Commits the pending removals of retired rows on their own (nothing to wait for: see the module comment). */
  commitRemovals(options: { deferSync?: boolean } = {}): void {
    if (this.retired.length === 0) return;
    const retired = this.retired;
    this.retired = [];
    try {
      this.store.transaction(() => {
        for (const seq of retired) this.queue.remove(seq);
      }, { deferSync: options.deferSync === true });
    } catch (err) {
      this.retired = retired.concat(this.retired);
      throw new HubError('STORE_FAILED', `the outbox could not remove answered sends: ${(err as Error).message}`, {}, { cause: err });
    }
  }

  /** One uplink (see `addBatch`); throws OUTBOX_FULL / STORE_FAILED and then nothing was queued. */
  add(record: Omit<OutboxRecord, 'v'>): OutboxEntry {
    const [result] = this.addBatch([record]);
    if ('error' in result) throw result.error;
    return result.entry;
  }

  byTrace(traceId: string): OutboxEntry | undefined {
    return this.byTraceId.get(traceId);
  }

  byMessageId(messageId: string): OutboxEntry | undefined {
    return this.byMsgId.get(messageId);
  }

  /** Entries to put on the wire now (oldest first), marked in flight. */
  takeSendable(): OutboxEntry[] {
    const room = this.options.maxInFlight - this.inFlightCount;
    const out: OutboxEntry[] = [];
    if (room <= 0) return out;
    const now = this.clock.now();
    for (const entry of this.entries.values()) {
      if (out.length >= room) break;
      if (entry.inFlight) continue;
      entry.inFlight = true;
      entry.attempts++;
      entry.sentAt = now;
      this.inFlightCount++;
      out.push(entry);
    }
    return out;
  }

  /** Removes the durable row (call inside the store transaction of the frame that answered it). */
  removeDurable(entry: OutboxEntry): void {
    this.queue.remove(entry.localSeq);
  }

  /**
   * The send was answered: forgets it now and removes its row with the next commit (`addBatch`, `commitRemovals`).
   * Returns how many removals are pending.
   */
  retire(entry: OutboxEntry): number {
    if (this.entries.get(entry.localSeq) !== entry) return this.retired.length;
    this.forget(entry);
    this.retired.push(entry.localSeq);
    return this.retired.length;
  }

  /** Forgets the entry in memory (after the removal committed). */
  forget(entry: OutboxEntry): void {
    if (this.entries.get(entry.localSeq) !== entry) return;
    this.entries.delete(entry.localSeq);
    this.byTraceId.delete(entry.traceId);
    if (this.byMsgId.get(entry.messageId) === entry) this.byMsgId.delete(entry.messageId);
    if (entry.inFlight) this.inFlightCount--;
    if (entry.expiresAt !== undefined) this.withExpiry--;
    entry.inFlight = false;
  }

  /** The connection ended: nothing is on the wire any more. */
  requeueAll(): void {
    for (const entry of this.entries.values()) entry.inFlight = false;
    this.inFlightCount = 0;
  }

  /** In-flight entries whose answer is overdue go back to sendable; returns them. */
  requeueOverdue(): OutboxEntry[] {
    const now = this.clock.now();
    const overdue: OutboxEntry[] = [];
    let seen = 0;
    for (const entry of this.entries.values()) {
      if (seen >= this.inFlightCount + overdue.length) break;
      if (!entry.inFlight) continue;
      seen++;
      if ((entry.sentAt ?? now) + this.options.ackTimeoutMs <= now) {
        entry.inFlight = false;
        this.inFlightCount--;
        overdue.push(entry);
      }
    }
    return overdue;
  }

  /**
   * Entries whose expiry has passed (still indexed; remove them with `removeDurable` + `forget`). Expiry is checked
   * in send order, which is expiry order as long as `sendExpiryMs` does not change between runs.
   */
  expired(): OutboxEntry[] {
    const now = this.clock.now();
    const out: OutboxEntry[] = [];
    if (this.withExpiry === 0) return out;
    for (const entry of this.entries.values()) {
      if (entry.expiresAt === undefined) continue;
      if (entry.expiresAt > now) break;
      out.push(entry);
    }
    return out;
  }

  /** The next moment something may need doing: an answer deadline or an expiry. */
  nextDeadline(): number | undefined {
    let next = Infinity;
    let seen = 0;
    let expirySeen = false;
    for (const entry of this.entries.values()) {
      if (seen >= this.inFlightCount && (expirySeen || this.withExpiry === 0)) break;
      if (entry.inFlight && entry.sentAt !== undefined) {
        seen++;
        next = Math.min(next, entry.sentAt + this.options.ackTimeoutMs);
      }
      if (!expirySeen && entry.expiresAt !== undefined) {
        expirySeen = true;
        next = Math.min(next, entry.expiresAt);
      }
    }
    return next === Infinity ? undefined : next;
  }

  /** Durable entries, oldest first (copies). */
  list(): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    for (const e of this.entries.values()) {
      // Seq order is commit order: after the first entry not yet on disk, none is.
      if (e.localSeq > this.durableSeq) break;
      out.push({ ...e });
    }
    return out;
  }

  private index(entry: OutboxEntry): void {
    if (entry.localSeq > this.maxSeq) this.maxSeq = entry.localSeq;
    this.entries.set(entry.localSeq, entry);
    this.byTraceId.set(entry.traceId, entry);
    this.byMsgId.set(entry.messageId, entry);
    if (entry.expiresAt !== undefined) this.withExpiry++;
  }
}
