/**
 * The durable MQTT outbox: every message bound for the broker is first written to a bounded queue in `lib/store`
 * (oldest dropped and counted when full), then published in order with QoS 1, and removed once the broker's PUBACK
 * arrives. While the broker is away the queue simply grows on disk; when it returns, publishing resumes from the
 * oldest entry.
 *
 * Exactly-once accounting (docs/mqtt.md, "Delivery guarantee"): the id of every message accepted here is recorded
 * in a persisted seen-set in the same transaction as the queue entry, so a mesh resend (after a lost ACK or a
 * gateway restart) is never queued twice. What stays at-least-once is the broker hop: an entry that was in flight
 * when the connection or the process died is published again, with the same mesh id in the payload (and as the
 * MQTT 5 user property `message_id`), the idempotency key for subscribers.
 *
 * Writes are grouped: entries accepted during one turn of the event loop are committed in one transaction, which
 * is what lets a Pi's SD card keep up with thousands of messages a second. With `synchronous: full` the commit does
 * not wait for the disk on the event loop: it is written to the log (a crash of the process loses nothing) and an
 * fsync in the thread pool (`store.sync()`, shared by every commit meanwhile) makes it survive a power cut. Publishing
 * starts as soon as the commit returns; a claim settles (the mesh ACK goes) only when the broker's PUBACK has come
 * *and* the fsync has finished, so an ACKed message is on disk or at the broker whatever happens, as before, while the
 * broker no longer waits for the disk.
 *
 * An entry is one buffer, `id \n topic \n payload` in UTF-8, stored as is and published as a view of it: one copy
 * of the text per message, flat, off the JavaScript heap (a payload built by concatenation is a rope of small
 * strings several times its size, and thousands wait here while the broker is away).
 */
import type { Logger } from 'pino';
import type { Queue, SeenSet, Store } from '../../lib/store';
import { coalesced } from '../../lib/coalesce';
import type { MqttConnection, PublishOptions } from './connection';

export type Settle = (published: boolean) => void;

export interface OutboxOptions {
  capacity: number;
  dedupCapacity: number;
  inflight: number;
  /** MQTT 5 properties for a message publish, from its id (the idempotency key). */
  properties?: (id: string) => PublishOptions['properties'];
  queueName?: string;
}

export type AcceptOutcome = 'queued' | 'pending' | 'published';

interface Entry {
  seq: number;
  id: string;
  topic: string;
  /** `id \n topic \n payload`, as stored. */
  item: Buffer;
  /** Where the payload starts in `item`. */
  payloadAt: number;
  /** The commit that wrote it (compared with `durableThrough`); 0 for entries read back from disk. */
  commit: number;
}

interface Waiting {
  id: string;
  topic: string;
  item: Buffer;
  payloadAt: number;
  settle: Settle[];
}

const LOAD_BATCH = 512;
/**
 * Group commit: under load, commits are at least this far apart, so each fsync carries many entries; a lone
 * message still goes to disk in the next turn of the event loop.
 */
const MIN_COMMIT_GAP_MS = 2;
/**
 * Removals of acknowledged entries need not be durable at once (one lost in a crash only repeats a publish), so
 * they ride along with the next commit of new entries, or go on their own after this long.
 */
const REMOVAL_DELAY_MS = 20;
const REMOVAL_BATCH = 4096;
/** Entries kept in memory ahead of the publisher; the rest wait on disk (a long broker outage must not fill RAM). */
const MAX_MIRROR = 4096;

const NEWLINE = 0x0a;

function encodeItem(id: string, topic: string, payload: string | Uint8Array): { item: Buffer; payloadAt: number } {
  const payloadAt = Buffer.byteLength(id) + Buffer.byteLength(topic) + 2;
  const payloadBytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  // Not from Node's shared 8 KiB pool: an entry lives until its PUBACK, and one live slice keeps a whole pool
  // block, so a queue of small entries would hold many times its size.
  const item = Buffer.allocUnsafeSlow(payloadAt + payloadBytes);
  const at = item.write(id, 0, 'utf8');
  item[at] = NEWLINE;
  item.write(topic, at + 1, 'utf8');
  item[payloadAt - 1] = NEWLINE;
  if (typeof payload === 'string') item.write(payload, payloadAt, 'utf8');
  else item.set(payload, payloadAt);
  return { item, payloadAt };
}

/** An entry as stored: bytes (this release) or text (entries written by earlier releases). */
function decodeItem(seq: number, value: string | Uint8Array): Entry | undefined {
  const item = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const a = item.indexOf(NEWLINE);
  const b = a < 0 ? -1 : item.indexOf(NEWLINE, a + 1);
  if (a < 0 || b < 0) return undefined;
  return { seq, id: item.toString('utf8', 0, a), topic: item.toString('utf8', a + 1, b), item, payloadAt: b + 1, commit: 0 };
}

export interface OutboxCounters {
  accepted: number;
  duplicates: number;
  published: number;
  republished: number;
  writeErrors: number;
}

export class MqttOutbox {
  private readonly queue: Queue;
  private readonly seen: SeenSet;
  /** Accepted this turn, not yet committed. */
  private batch: Waiting[] = [];
  private flushScheduled = false;
  /**
   * PUBACKs come in bursts (many in one read from the socket, handled one by one); refilling the window once after
   * the burst sends the new publishes in one write instead of one write per PUBACK.
   */
  private readonly schedulePump = coalesced(() => this.pump(), setImmediate);
  private lastCommitAt = 0;
  private removalTimer: ReturnType<typeof setTimeout> | undefined;
  /** Committed and not yet sent on the current connection, oldest first. */
  private ready: Entry[] = [];
  /** True while every stored entry newer than `loadedThrough` is in `ready` (new entries can be appended). */
  private mirrorComplete = false;
  private loadedThrough = 0;
  private readonly inFlight = new Map<number, Entry>();
  /** id → seq of every stored entry (the "pending" answer for resends and the claims to settle). */
  private readonly pendingById = new Map<string, number>();
  private readonly settles = new Map<number, Settle[]>();
  private acked: number[] = [];
  private depthValue = 0;
  /** Entries published at least once on some connection (a second publish is counted as a republish). */
  private readonly sentOnce = new Set<number>();
  private connection: MqttConnection | undefined;
  private readonly emptyWaiters: Array<() => void> = [];
  /** Commits made by this outbox so far, and how many of them the disk has (see `store.sync()`). */
  private commits = 0;
  private durableThrough = 0;
  /** PUBACKed entries whose commit is not on disk yet, oldest commit first: their claims settle with the fsync. */
  private ackedNotDurable: Entry[] = [];
  readonly counters: OutboxCounters = { accepted: 0, duplicates: 0, published: 0, republished: 0, writeErrors: 0 };

  constructor(
    private readonly store: Store,
    private readonly options: OutboxOptions,
    private readonly logger: Logger,
  ) {
    const name = options.queueName ?? 'mqtt-outbox';
    this.queue = store.queue(name, { capacity: options.capacity, overflow: 'drop-oldest' });
    this.seen = store.seen(`${name}-ids`, { capacity: options.dedupCapacity });
  }

  /** Reads what a previous run left on disk; call once before the first `accept`. */
  open(): void {
    this.depthValue = this.queue.size();
    // Walk seqs upwards from the head: entries are dense there (drops and removals take the oldest first), and
    // `get` reads one row at a time, so a full outbox never sits in memory at once.
    const head = this.queue.peek(1)[0];
    if (head) {
      // Seqs never exceed the number of pushes ever made, so this bound ends the walk even across a wide gap.
      const last = head.seq + this.queue.counters().pushed;
      let found = 0;
      for (let seq = head.seq; found < this.depthValue && seq <= last; seq += 1) {
        const item = this.queue.get(seq);
        if (!item) continue;
        found += 1;
        const e = decodeItem(item.seq, item.value);
        if (e) this.pendingById.set(e.id, e.seq);
      }
    }
    this.mirrorComplete = this.depthValue === 0;
    if (this.depthValue) this.logger.info({ depth: this.depthValue }, 'outbox holds messages from a previous run; they go out first');
  }

  /** Entries waiting for a PUBACK (in flight included). */
  get depth(): number {
    return this.depthValue - this.acked.length + this.batch.length;
  }

  get inflight(): number {
    return this.inFlight.size;
  }

  /** Entries dropped because the outbox was full, over the life of the state folder. */
  get dropped(): number {
    return this.queue.counters().dropped;
  }

  /**
   * Takes a message over. `settle(true)` runs once the broker has it (PUBACK), `settle(false)` if it is lost before
   * (dropped from a full outbox, or the write to disk failed). A message already handled is not queued again:
   * `pending` (its entry is still waiting; `settle` joins it) or `published` (`settle(true)` runs at once).
   */
  accept(id: string, topic: string, payload: string | Uint8Array, settle?: Settle): AcceptOutcome {
    const seq = this.pendingById.get(id);
    if (seq !== undefined) {
      this.counters.duplicates += 1;
      if (settle) {
        if (seq < 0) this.batch[-seq - 1]?.settle.push(settle);
        else {
          const list = this.settles.get(seq) ?? [];
          list.push(settle);
          this.settles.set(seq, list);
        }
      }
      return 'pending';
    }
    if (this.seen.has(id)) {
      this.counters.duplicates += 1;
      settle?.(true);
      return 'published';
    }
    const { item, payloadAt } = encodeItem(id, topic, payload);
    this.batch.push({ id, topic, item, payloadAt, settle: settle ? [settle] : [] });
    // A negative seq marks "accepted this turn", pointing into the batch.
    this.pendingById.set(id, -this.batch.length);
    this.counters.accepted += 1;
    this.scheduleFlush();
    return 'queued';
  }

  /**
   * For a resend the router already knows: `settle(true)` once the earlier copy is published (at once when it is
   * already out, or was so long ago that the seen-set forgot it). Queues nothing.
   */
  whenPublished(id: string, settle: Settle): void {
    const seq = this.pendingById.get(id);
    if (seq === undefined) {
      settle(true);
      return;
    }
    this.counters.duplicates += 1;
    if (seq < 0) this.batch[-seq - 1]?.settle.push(settle);
    else {
      const list = this.settles.get(seq) ?? [];
      list.push(settle);
      this.settles.set(seq, list);
    }
  }

  /** Starts publishing on `connection` (call on every `up`). */
  attach(connection: MqttConnection): void {
    this.connection = connection;
    // Whatever was in flight on the previous connection is sent again, in order, before anything newer.
    if (this.inFlight.size) {
      const back = [...this.inFlight.values()].sort((a, b) => a.seq - b.seq);
      this.inFlight.clear();
      this.ready = back.concat(this.ready);
    }
    this.pump();
  }

  /** Stops publishing (call on `down`); in-flight entries stay on disk and go again on the next `attach`. */
  detach(): void {
    this.connection = undefined;
  }

  /** Commits what was accepted and waits until the outbox is empty or `timeoutMs` passed; true when empty. */
  async drain(timeoutMs: number): Promise<boolean> {
    this.flush();
    if (this.depth === 0) {
      this.commitAcked();
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.commitAcked();
        resolve(this.depth === 0);
      }, timeoutMs);
      this.emptyWaiters.push(() => {
        clearTimeout(timer);
        this.commitAcked();
        resolve(true);
      });
    });
  }

  /** Commits everything pending (new entries and removals) and stops the timers; the store stays open. */
  close(): void {
    this.flush();
    this.commitAcked();
    this.connection = undefined;
  }

  /** Commits the current batch now (normally done once per event-loop turn). */
  flush(): void {
    this.flushScheduled = false;
    if (this.batch.length === 0) {
      if (this.acked.length >= REMOVAL_BATCH) this.commitAcked();
      return;
    }
    this.lastCommitAt = Date.now();
    if (this.removalTimer) clearTimeout(this.removalTimer);
    this.removalTimer = undefined;
    const batch = this.batch;
    this.batch = [];
    const acked = this.acked;
    this.acked = [];
    const committed: Entry[] = [];
    const dropped: Array<{ seq: number; id: string | undefined }> = [];
    try {
      // One transaction (and one background fsync): the removals of what the broker acknowledged and the new entries.
      this.store.transaction(() => {
        let size = this.depthValue;
        const capacity = this.queue.capacity;
        for (const seq of acked) if (this.queue.remove(seq)) size -= 1;
        for (const w of batch) {
          if (size >= capacity) {
            // The store drops the oldest entry to make room; find out which one, to fail its claims.
            const oldest = this.queue.peek(1)[0];
            if (oldest) dropped.push({ seq: oldest.seq, id: decodeItem(oldest.seq, oldest.value)?.id });
          }
          this.seen.add(w.id);
          const seq = this.queue.push(w.item);
          if (size < capacity) size += 1;
          committed.push({ seq, id: w.id, topic: w.topic, item: w.item, payloadAt: w.payloadAt, commit: 0 });
        }
      }, { deferSync: true });
    } catch (err) {
      this.counters.writeErrors += batch.length;
      this.logger.error({ err, count: batch.length }, 'outbox write failed; those messages were not taken (the mesh will resend what needs an ACK)');
      for (const w of batch) {
        this.pendingById.delete(w.id);
        for (const s of w.settle) s(false);
      }
      // The acknowledged entries stay on disk and go out again after a restart: a duplicate, never a loss.
      return;
    }
    const commit = this.afterCommit();
    for (const e of committed) e.commit = commit;
    for (const seq of acked) this.sentOnce.delete(seq);
    const droppedSeqs = new Set(dropped.map((d) => d.seq));
    const committedSeqs = new Set(committed.map((e) => e.seq));
    for (const d of dropped) if (!committedSeqs.has(d.seq)) this.forgetDropped(d.seq, d.id);
    this.depthValue = this.queue.size();
    const kept: Entry[] = [];
    for (let i = 0; i < committed.length; i += 1) {
      const e = committed[i]!;
      const s = batch[i]!.settle;
      if (droppedSeqs.has(e.seq)) {
        // Pushed and pushed out again in the same turn: a full outbox under a burst.
        this.pendingById.delete(e.id);
        for (const f of s) f(false);
        continue;
      }
      kept.push(e);
      this.pendingById.set(e.id, e.seq);
      if (s.length) this.settles.set(e.seq, s);
    }
    if (dropped.length) this.logger.warn({ dropped: dropped.length, depth: this.depthValue }, 'outbox full: dropped its oldest messages');
    if (kept.length === 0) {
      this.pump();
      return;
    }
    if (this.mirrorComplete && this.ready.length < MAX_MIRROR) {
      for (const e of kept) this.ready.push(e);
      this.loadedThrough = kept[kept.length - 1]!.seq;
    } else this.mirrorComplete = false;
    this.pump();
  }

  private forgetDropped(seq: number, id: string | undefined): void {
    if (this.inFlight.has(seq)) return; // its PUBACK is on the way; the broker will have it after all
    if (this.ackedNotDurable.some((e) => e.seq === seq)) return; // at the broker already; settles with the fsync
    const readyAt = this.ready.findIndex((e) => e.seq === seq);
    if (readyAt >= 0) this.ready.splice(readyAt, 1);
    if (id !== undefined && this.pendingById.get(id) === seq) this.pendingById.delete(id);
    this.sentOnce.delete(seq);
    const s = this.settles.get(seq);
    this.settles.delete(seq);
    if (s) for (const f of s) f(false);
  }

  /**
   * Counts a commit and asks the store to take it to disk; when that is done, the PUBACKed entries of this and
   * earlier commits settle. A failed fsync fails their claims (no mesh ACK: the sender's resend is the remedy).
   */
  private afterCommit(): number {
    this.commits += 1;
    const commit = this.commits;
    this.store.sync().then(
      () => this.durable(commit, true),
      (err: unknown) => {
        this.counters.writeErrors += 1;
        this.logger.error({ err }, 'the outbox could not be synced to disk; the messages waiting for it are not acknowledged to the mesh');
        this.durable(commit, false);
      },
    );
    return commit;
  }

  private durable(commit: number, ok: boolean): void {
    if (commit <= this.durableThrough) return;
    this.durableThrough = commit;
    let i = 0;
    while (i < this.ackedNotDurable.length && this.ackedNotDurable[i]!.commit <= commit) i += 1;
    if (i === 0) return;
    const ready = this.ackedNotDurable.splice(0, i);
    for (const e of ready) this.finish(e, ok);
  }

  /** The entry is at the broker and (for a claim to succeed) on disk: release its claims and its id. */
  private finish(e: Entry, ok: boolean): void {
    if (this.pendingById.get(e.id) === e.seq) this.pendingById.delete(e.id);
    const s = this.settles.get(e.seq);
    if (s) {
      this.settles.delete(e.seq);
      for (const f of s) f(ok);
    }
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const wait = this.lastCommitAt + MIN_COMMIT_GAP_MS - Date.now();
    if (wait > 0) setTimeout(() => this.flush(), wait);
    else setImmediate(() => this.flush());
  }

  private scheduleRemoval(): void {
    if (this.removalTimer || this.acked.length === 0) return;
    this.removalTimer = setTimeout(() => {
      this.removalTimer = undefined;
      this.commitAcked();
    }, REMOVAL_DELAY_MS);
    this.removalTimer.unref();
  }

  private loadMore(): void {
    if (this.mirrorComplete) return;
    // The head of the queue is what is in flight, acked but not yet removed, and already mirrored; then the rest.
    const items = this.queue.peek(this.inFlight.size + this.acked.length + this.ready.length + LOAD_BATCH).filter((i) => i.seq > this.loadedThrough);
    for (const item of items) {
      const e = decodeItem(item.seq, item.value);
      this.loadedThrough = item.seq;
      if (!e) {
        // Not ours (a corrupt or foreign item): drop it rather than block the queue forever.
        this.queue.remove(item.seq);
        continue;
      }
      // It may come from a commit whose fsync is still running: its claims wait for the latest one.
      e.commit = this.commits;
      this.ready.push(e);
    }
    if (items.length < LOAD_BATCH) this.mirrorComplete = true;
  }

  private pump(): void {
    const conn = this.connection;
    if (!conn || !conn.connected || this.inFlight.size >= this.options.inflight) return;
    conn.corked(() => this.publishWindow(conn));
  }

  private publishWindow(conn: MqttConnection): void {
    while (this.inFlight.size < this.options.inflight) {
      if (this.ready.length === 0) {
        this.loadMore();
        if (this.ready.length === 0) break;
      }
      const e = this.ready.shift()!;
      this.inFlight.set(e.seq, e);
      if (this.sentOnce.has(e.seq)) this.counters.republished += 1;
      else this.sentOnce.add(e.seq);
      const props = this.options.properties?.(e.id);
      conn.publish(e.topic, e.item.subarray(e.payloadAt), props ? { qos: 1, properties: props } : { qos: 1 }, (err) => this.onPuback(e, err));
    }
  }

  private onPuback(e: Entry, err: Error | undefined): void {
    if (this.inFlight.get(e.seq) !== e) return; // answered by a connection we already gave up on
    if (err) {
      // Not published (the connection went away mid-flight); `attach` sends it again.
      return;
    }
    this.inFlight.delete(e.seq);
    this.counters.published += 1;
    this.acked.push(e.seq);
    // Claims wait for the disk as well (entries read back from disk were on it already); the id stays "pending"
    // meanwhile, so that a resend joins the wait instead of being told "published".
    if (e.commit <= this.durableThrough) this.finish(e, true);
    else this.ackedNotDurable.push(e);
    if (this.acked.length >= REMOVAL_BATCH) this.commitAcked();
    else this.scheduleRemoval();
    if (this.depth === 0) for (const w of this.emptyWaiters.splice(0)) w();
    this.schedulePump();
  }

  private commitAcked(): void {
    if (this.removalTimer) clearTimeout(this.removalTimer);
    this.removalTimer = undefined;
    if (this.acked.length === 0 || this.store.closed) return;
    const acked = this.acked;
    this.acked = [];
    try {
      // A removal lost in a power cut only repeats a publish, so nothing waits for this one to reach the disk;
      // the sync still runs, off the event loop, to keep such repeats few.
      this.store.transaction(() => {
        for (const seq of acked) this.queue.remove(seq);
      }, { deferSync: true });
      this.afterCommit();
      this.depthValue = this.queue.size();
    } catch (err) {
      // The entries stay on disk and will be published again after a restart: a duplicate, never a loss.
      this.logger.error({ err }, 'outbox removal failed');
    }
    for (const seq of acked) this.sentOnce.delete(seq);
    if (this.depth === 0) for (const w of this.emptyWaiters.splice(0)) w();
  }
}
