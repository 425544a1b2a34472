/**
 * The durable outbox (guide §7.6, §14.5): every retransmittable uplink (`message.send`, `message.reply`,
 * `message.reaction`) is written to the store before it goes on the wire, with its `message_id` and `trace_id`
 * fixed at that moment, and leaves the store only when the hub answers (`message.ack` / `message.error`) or the
 * caller's expiry passes. A crash or a restart therefore re-sends the same bytes, and the hub's inbox dedups them.
 *
 * In memory it tracks what is on the wire: at most `maxInFlight` frames unanswered, each with its own deadline on
 * the client's clock; a frame whose deadline passes is sent again (same ids) on the live connection.
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
  }

  get size(): number {
    return this.entries.size;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  /**
   * Writes uplinks to the store in ONE transaction (one fsync for a burst of sends) and indexes those that were
   * written. A record the queue refuses (full) fails alone; if the commit itself fails, none is indexed and the error
   * is thrown (STORE_FAILED).
   */
  addBatch(records: Array<Omit<OutboxRecord, 'v'>>): Array<{ entry: OutboxEntry } | { error: HubError }> {
    const results: Array<{ entry: OutboxEntry } | { error: HubError }> = [];
    try {
      this.store.transaction(() => {
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
      });
    } catch (err) {
      throw new HubError('STORE_FAILED', `the outbox could not store the sends: ${(err as Error).message}`, {}, { cause: err });
    }
    for (const r of results) if ('entry' in r) this.index(r.entry);
    return results;
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

  list(): OutboxEntry[] {
    return [...this.entries.values()].map((e) => ({ ...e }));
  }

  private index(entry: OutboxEntry): void {
    this.entries.set(entry.localSeq, entry);
    this.byTraceId.set(entry.traceId, entry);
    this.byMsgId.set(entry.messageId, entry);
    if (entry.expiresAt !== undefined) this.withExpiry++;
  }
}
