/**
 * The hub's outbox (guide §7.6, §14.5): every retransmittable uplink (`message.send`, `message.reply`,
 * `message.reaction`) is written to the store before it goes on the wire, with its `message_id` and `trace_id`
 * fixed at that moment, and leaves the store only when the hub answers (`message.ack` / `message.error`) or the
 * caller's expiry passes. A crash or a restart therefore re-sends the same bytes, and the hub's inbox dedups them.
 *
 * The storing, group commit, fsync watermark, in-flight window and batched removal are lib/store's `DurableOutbox`
 * (the one the gateway's MQTT outbox runs on too). This file is the hub's record layer over it: the record as
 * stored, the indexes by trace id and message id, the per-frame answer deadline (`ackTimeoutMs`: a frame whose
 * deadline passes on the client's clock is sent again, same ids, on the live connection), the caller's expiry, and
 * `list` (the client's `pendingSends`), which shows an entry only once the disk has it: the client reports it
 * `queued` at that moment. Rows of answered sends are removed lazily: a removal lost in a crash only makes the send
 * go out once more with the same ids, which the hub's inbox absorbs and answers again.
 */
import type { Clock } from '../../clock';
import { HubError } from '../errors';
import { isObject, type JsonObject } from '../json';
import type { SendTag } from '../send-tag';
import type { Store } from '../../store';
import { DurableOutbox, type OutboxSlot } from '../../store/durable-outbox';

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

/** An unanswered send, as `pendingSends()` lists it. */
export interface OutboxEntry extends OutboxRecord {
  localSeq: number;
  attempts: number;
  sentAt: number | undefined;
  inFlight: boolean;
}

/**
 * A send as the outbox holds it: the listed fields, the durable outbox's own, and `frame` as JSON (made once per
 * send: the same text is stored and, stamped, put on the wire at every attempt).
 */
export type SendEntry = Omit<OutboxEntry, 'frame'> &
  OutboxSlot & {
    /**
     * The frame as an object, kept only for a send read back from disk: a send made in this run keeps its JSON
     * alone (`frameJson`), so that the composed objects die young instead of living in the heap until answered.
     */
    frame: JsonObject | undefined;
    frameJson?: string;
  };

export type NewRecord = Omit<OutboxRecord, 'v'> & {
  /** `JSON.stringify(frame)`, when the caller made it already (never stored as such: it is the stored `frame`). */
  frameJson?: string;
};

/**
 * The stored record, written field by field: `frame` goes in as the JSON already made for it (no second
 * serialization of the frame per send); field order does not matter to `parseRecord`. Every field of
 * `OutboxRecord` is here (the restart tests read records back).
 */
function encodeRecord(r: NewRecord): string {
  let text = `{"v":1,"messageId":${JSON.stringify(r.messageId)},"traceId":${JSON.stringify(r.traceId)},"event":${JSON.stringify(r.event)},"chatId":${JSON.stringify(r.chatId)},"createdAt":${JSON.stringify(r.createdAt)}`;
  if (r.expiresAt !== undefined) text += `,"expiresAt":${JSON.stringify(r.expiresAt)}`;
  if (r.tag !== undefined) text += `,"tag":${JSON.stringify(r.tag)}`;
  return `${text},"frame":${r.frameJson ?? JSON.stringify(r.frame)}}`;
}

/**
 * The frame as it goes on the wire at one attempt, `emitted_at` stamped last: the very text of
 * `JSON.stringify({ ...frame, emitted_at })`, from the frame's JSON made once.
 */
export function wireText(entry: SendEntry, emittedAt: number): string {
  let json = entry.frameJson;
  if (json === undefined) {
    // Read back from disk: the stored frame has no `emitted_at` (see OutboxRecord), but an odd row must not get two.
    const { emitted_at: _stale, ...frame } = entry.frame as JsonObject;
    json = entry.frameJson = JSON.stringify(frame);
    entry.frame = undefined;
  }
  return `${json.slice(0, -1)},"emitted_at":${emittedAt}}`;
}

/** Bytes `wireText` adds to the frame's JSON: `,"emitted_at":` and the digits of a millisecond time. */
export function stampBytes(emittedAt: number): number {
  // Thirteen digits from 2001 to 2286; anything else is counted.
  return 14 + (emittedAt >= 1e12 && emittedAt < 1e13 && Number.isInteger(emittedAt) ? 13 : String(emittedAt).length);
}

/**
 * The outbox's entry for a stored record, every field written in one literal: one hidden class for all entries,
 * where assigning the record onto the slot gave the send path a dictionary object per send.
 */
function sendEntry(slot: OutboxSlot, r: NewRecord): SendEntry {
  const entry: SendEntry = {
    seq: slot.seq,
    attempts: slot.attempts,
    sentAt: slot.sentAt,
    inFlight: slot.inFlight,
    answered: slot.answered,
    v: 1,
    messageId: r.messageId,
    traceId: r.traceId,
    event: r.event,
    chatId: r.chatId,
    frame: r.frameJson === undefined ? r.frame : undefined,
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
    localSeq: slot.seq,
    frameJson: r.frameJson,
  };
  if (r.tag !== undefined) entry.tag = r.tag;
  return entry;
}

export interface OutboxOptions {
  capacity: number;
  ackTimeoutMs: number;
  maxInFlight: number;
}

/** What the client hears from the outbox (see `DurableOutboxHooks`). */
export interface OutboxEvents {
  /** A staged send was written (`entry`) or refused (`error`: OUTBOX_FULL, STORE_FAILED). */
  committed?(results: Array<{ record: NewRecord; entry?: SendEntry; error?: HubError }>): void;
  /** The fsync of the entry's commit ended, or failed (`err`). */
  durable?(entry: SendEntry, err: unknown): void;
  /** Answered and on disk. */
  settled?(entry: SendEntry): void;
  syncFailed?(err: unknown): void;
  synced?(): void;
  warn?(err: HubError): void;
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
  private readonly box: DurableOutbox<NewRecord, SendEntry>;
  private readonly byTraceId = new Map<string, SendEntry>();
  private readonly byMsgId = new Map<string, SendEntry>();
  private withExpiry = 0;
  /** What the last commit did (for `add`). */
  private lastCommit: Array<{ entry?: SendEntry; error?: HubError }> = [];
  /** Records found unreadable when loading (removed, reported once). */
  readonly unreadable: number;

  constructor(
    store: Store,
    private readonly clock: Clock,
    private readonly options: OutboxOptions,
    private readonly events: OutboxEvents = {},
  ) {
    const full = (): HubError =>
      new HubError('OUTBOX_FULL', `the outbox is full (${options.capacity} unanswered sends); nothing was queued`, { capacity: options.capacity });
    this.box = new DurableOutbox<NewRecord, SendEntry>(
      store,
      {
        encode: encodeRecord,
        decode: parseRecord,
        entry: sendEntry,
      },
      // Removals wait for the next send's fsync: nothing depends on them reaching the disk sooner. In memory, the
      // sends of a task are committed at its end: there is no fsync to gather them for.
      { queue: OUTBOX_QUEUE, capacity: options.capacity, overflow: 'reject', maxInFlight: options.maxInFlight, clock, syncRemovals: false, commitInMicrotask: true },
      {
        committed: (outcome, staged) => {
          const results = outcome.results.map((r, i) => {
            if (r instanceof Error) return { record: staged[i]!, error: full() };
            this.index(r);
            return { record: staged[i]!, entry: r };
          });
          this.lastCommit = results;
          this.events.committed?.(results);
        },
        commitFailed: (staged, err) => {
          const error = new HubError('STORE_FAILED', `the outbox could not store the sends: ${(err as Error)?.message ?? String(err)}`, {}, { cause: err });
          this.events.warn?.(error);
          this.lastCommit = staged.map((record) => ({ record, error }));
          this.events.committed?.(this.lastCommit as Array<{ record: NewRecord; error: HubError }>);
        },
        durable: (entry, ok, err) => this.events.durable?.(entry, ok ? undefined : err),
        settled: (entry) => this.events.settled?.(entry),
        syncFailed: (err, commits) => {
          if (commits > 0) this.events.syncFailed?.(err);
        },
        synced: () => this.events.synced?.(),
        removalFailed: (err) =>
          this.events.warn?.(new HubError('STORE_FAILED', `the outbox could not remove answered sends: ${(err as Error)?.message ?? String(err)}`, {}, { cause: err })),
      },
    );
    this.unreadable = this.box.open();
    for (const entry of this.box.entries()) this.index(entry);
  }

  /** Unanswered sends held. */
  get size(): number {
    return this.box.size;
  }

  /** Sends staged for the next group commit. */
  get staged(): number {
    return this.box.stagedCount;
  }

  get inFlight(): number {
    return this.box.inFlight;
  }

  /** Rows of answered sends not yet removed from the store. */
  get pendingRemovals(): number {
    return this.box.pendingRemovals;
  }

  /** True while a commit of sends waits for its fsync. */
  get syncPending(): boolean {
    return this.box.syncPending;
  }

  /** True once the entry's row survives a power cut. */
  isDurable(entry: SendEntry): boolean {
    return this.box.isDurable(entry);
  }

  /** Is this very entry still indexed (not answered, expired or failed meanwhile)? */
  holds(entry: SendEntry): boolean {
    return this.box.holds(entry);
  }

  /** Stages a send for the next group commit (the `committed` event says how it went). */
  stage(record: NewRecord): void {
    this.box.stage(record);
  }

  /** Commits the staged sends now (normally done on the next turn of the event loop). */
  commit(): void {
    this.box.commit();
  }

  /** One send, committed now; throws OUTBOX_FULL / STORE_FAILED and then nothing was queued. */
  add(record: NewRecord): SendEntry {
    this.lastCommit = [];
    this.box.stage(record);
    this.box.commit();
    const result = this.lastCommit[this.lastCommit.length - 1];
    if (result?.entry) return result.entry;
    throw result?.error ?? new HubError('STORE_FAILED', 'the outbox could not store the send');
  }

  /** Commits the pending removals of answered sends on their own. */
  commitRemovals(): void {
    this.box.commitRemovals();
  }

  byTrace(traceId: string): SendEntry | undefined {
    return this.byTraceId.get(traceId);
  }

  byMessageId(messageId: string): SendEntry | undefined {
    return this.byMsgId.get(messageId);
  }

  /** Entries to put on the wire now (oldest first), marked in flight. */
  takeSendable(): SendEntry[] {
    return this.box.take();
  }

  /** Removes the durable row (call inside the store transaction of the frame that answered it). */
  removeDurable(entry: SendEntry): void {
    this.box.removeRow(entry);
  }

  /**
   * The send was answered: it is no longer indexed, its row goes with the next commit, and `settled` reports it
   * once it is on disk (at once when it is). False when it was answered already.
   */
  retire(entry: SendEntry): boolean {
    if (!this.box.holds(entry)) return false;
    this.unindex(entry);
    return this.box.answer(entry);
  }

  /** Forgets the entry in memory (after its removal committed, or when it failed). */
  forget(entry: SendEntry): void {
    if (!this.box.holds(entry)) return;
    this.unindex(entry);
    this.box.forget(entry);
  }

  /** The connection ended: nothing is on the wire any more. */
  requeueAll(): void {
    this.box.requeueAll();
  }

  /** In-flight entries whose answer is overdue go back to sendable; returns them. */
  requeueOverdue(): SendEntry[] {
    return this.box.requeueOverdue(this.options.ackTimeoutMs);
  }

  /**
   * Entries whose expiry has passed (still indexed; remove them with `removeDurable` + `forget`). Expiry is checked
   * in send order, which is expiry order as long as `sendExpiryMs` does not change between runs.
   */
  expired(): SendEntry[] {
    const now = this.clock.now();
    const out: SendEntry[] = [];
    if (this.withExpiry === 0) return out;
    for (const entry of this.box.entries()) {
      if (entry.answered || entry.expiresAt === undefined) continue;
      if (entry.expiresAt > now) break;
      out.push(entry);
    }
    return out;
  }

  /** The next moment something may need doing: an answer deadline or an expiry. */
  nextDeadline(): number | undefined {
    let next = Infinity;
    const oldest = this.box.oldestInFlight();
    if (oldest?.sentAt !== undefined) next = oldest.sentAt + this.options.ackTimeoutMs;
    if (this.withExpiry > 0) {
      for (const entry of this.box.entries()) {
        if (entry.answered || entry.expiresAt === undefined) continue;
        next = Math.min(next, entry.expiresAt);
        break;
      }
    }
    return next === Infinity ? undefined : next;
  }

  /** Durable unanswered entries, oldest first (copies). */
  list(): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    for (const e of this.box.entries()) {
      // Seq order is commit order: after the first entry not yet on disk, none is.
      if (!this.box.isDurable(e)) break;
      if (e.answered) continue;
      const { seq: _seq, answered: _answered, frameJson: json, frame, ...copy } = e;
      out.push({ ...copy, frame: frame ?? (JSON.parse(json as string) as JsonObject) });
    }
    return out;
  }

  private index(entry: SendEntry): void {
    this.byTraceId.set(entry.traceId, entry);
    this.byMsgId.set(entry.messageId, entry);
    if (entry.expiresAt !== undefined) this.withExpiry++;
  }

  private unindex(entry: SendEntry): void {
    if (this.byTraceId.get(entry.traceId) === entry) this.byTraceId.delete(entry.traceId);
    if (this.byMsgId.get(entry.messageId) === entry) this.byMsgId.delete(entry.messageId);
    if (entry.expiresAt !== undefined) this.withExpiry--;
  }
}
