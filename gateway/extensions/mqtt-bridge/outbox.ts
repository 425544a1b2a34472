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
 * The storing, group commit, fsync watermark, window and settling are lib/store's `DurableOutbox`: entries accepted
 * during one turn of the event loop are committed in one transaction that does not wait for the disk (a crash of
 * the process loses nothing; an fsync in the thread pool makes it survive a power cut), publishing starts as soon as
 * the commit returns, and a claim settles (the mesh ACK goes) only when the broker's PUBACK has come *and* the fsync
 * has finished, so an ACKed message is on disk or at the broker whatever happens, while the broker does not wait for
 * the disk. This file adds what is MQTT's own: the ids and their claims, the seen-set, the publish itself.
 *
 * An entry is one buffer, `id \n topic \n payload` in UTF-8, stored as is and published as a view of it: one copy
 * of the text per message, flat, off the JavaScript heap (a payload built by concatenation is a rope of small
 * strings several times its size, and thousands wait here while the broker is away).
 */
import type { Logger } from 'pino';
import { backgroundClock, type Clock } from '../../../lib/clock';
import type { SeenSet, Store } from '../../../lib/store';
import { DurableOutbox, type CommitOutcome, type OutboxCodec, type OutboxSlot } from '../../../lib/store/durable-outbox';
import { coalesced } from '../../../lib/coalesce';
import type { MqttConnection, PublishOptions } from '../../mqtt/connection';

export type Settle = (published: boolean) => void;

export interface OutboxOptions {
  /** The drain's wait (default: the background clock). */
  clock?: Clock;
  capacity: number;
  dedupCapacity: number;
  inflight: number;
  /**
   * Group commit: under load, commits are at least this far apart, so each write to the store and each fsync
   * carries many entries; a lone message still goes to disk in the next turn of the event loop
   * (`mqtt.commit_interval_ms`, whose default is this one's).
   */
  commitIntervalMs?: number;
  /** MQTT 5 properties for a message publish, from its id (the idempotency key). */
  properties?: (id: string) => PublishOptions['properties'];
  queueName?: string;
}

export type AcceptOutcome = 'queued' | 'pending' | 'published';

interface Message {
  id: string;
  topic: string;
  /** `id \n topic \n payload`, as stored. */
  item: Buffer;
  /** Where the payload starts in `item`. */
  payloadAt: number;
}

type Entry = OutboxSlot & Message;

/** A message not yet published (or published and not yet on disk): who waits for it. */
interface Claim {
  /** Its row, once committed. */
  seq: number | undefined;
  settles: Settle[];
}

/** Entries kept in memory ahead of the publisher; the rest wait on disk (a long broker outage must not fill RAM). */
const MAX_MIRROR = 4096;

const NEWLINE = 0x0a;

function encodeItem(id: string, topic: string, payload: string | Uint8Array): Message {
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
  return { id, topic, item, payloadAt };
}

const CODEC: OutboxCodec<Message, Entry> = {
  encode: (m) => m.item,
  entry: (slot, m) => Object.assign(slot, m),
  /** An entry as stored: bytes (this release) or text (entries written by earlier releases). */
  decode(value) {
    const item = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    const a = item.indexOf(NEWLINE);
    const b = a < 0 ? -1 : item.indexOf(NEWLINE, a + 1);
    if (a < 0 || b < 0) return undefined;
    return { id: item.toString('utf8', 0, a), topic: item.toString('utf8', a + 1, b), item, payloadAt: b + 1 };
  },
};

export interface OutboxCounters {
  accepted: number;
  duplicates: number;
  published: number;
  republished: number;
  writeErrors: number;
}

export class MqttOutbox {
  private readonly box: DurableOutbox<Message, Entry>;
  private readonly seen: SeenSet;
  /** id → claim of every message accepted and not settled (the "pending" answer for resends). */
  private readonly claims = new Map<string, Claim>();
  /**
   * PUBACKs come in bursts (many in one read from the socket, handled one by one); refilling the window once after
   * the burst sends the new publishes in one write instead of one write per PUBACK.
   */
  private readonly schedulePump = coalesced(() => this.pump(), setImmediate);
  private connection: MqttConnection | undefined;
  private readonly emptyWaiters: Array<() => void> = [];
  readonly counters: OutboxCounters = { accepted: 0, duplicates: 0, published: 0, republished: 0, writeErrors: 0 };

  constructor(
    store: Store,
    private readonly options: OutboxOptions,
    private readonly logger: Logger,
  ) {
    const name = options.queueName ?? 'mqtt-outbox';
    this.seen = store.seen(`${name}-ids`, { capacity: options.dedupCapacity });
    this.box = new DurableOutbox(
      store,
      CODEC,
      { queue: name, capacity: options.capacity, overflow: 'drop-oldest', maxInFlight: options.inflight, minCommitGapMs: options.commitIntervalMs ?? 10, mirrorLimit: MAX_MIRROR, removeWhenQuiet: true },
      {
        // One multi-row write of the batch's ids, in the transaction of its entries.
        wrote: (staged) => void this.seen.addMany(staged.map((m) => m.id)),
        committed: (outcome) => this.committed(outcome),
        commitFailed: (staged, err) => this.commitFailed(staged, err),
        settled: (e, ok) => this.finish(e.id, e.seq, ok),
        syncFailed: (err) => {
          this.counters.writeErrors += 1;
          this.logger.error({ err }, 'the outbox could not be synced to disk; the messages waiting for it are not acknowledged to the mesh');
        },
        removalFailed: (err) => this.logger.error({ err }, 'outbox removal failed'),
      },
    );
  }

  /** Reads what a previous run left on disk; call once before the first `accept`. */
  open(): void {
    this.box.open((seq, m) => this.claims.set(m.id, { seq, settles: [] }));
    const depth = this.box.depth;
    if (depth) this.logger.info({ depth }, 'outbox holds messages from a previous run; they go out first');
  }

  /** Entries waiting for a PUBACK (in flight included). */
  get depth(): number {
    return this.box.depth;
  }

  get inflight(): number {
    return this.box.inFlight;
  }

  /** Entries dropped because the outbox was full, over the life of the state folder. */
  get dropped(): number {
    return this.box.queue.counters().dropped;
  }

  /**
   * Takes a message over. `settle(true)` runs once the broker has it (PUBACK), `settle(false)` if it is lost before
   * (dropped from a full outbox, or the write to disk failed). A message already handled is not queued again:
   * `pending` (its entry is still waiting; `settle` joins it) or `published` (`settle(true)` runs at once).
   */
  accept(id: string, topic: string, payload: string | Uint8Array, settle?: Settle): AcceptOutcome {
    const claim = this.claims.get(id);
    if (claim !== undefined) {
      this.counters.duplicates += 1;
      if (settle) claim.settles.push(settle);
      return 'pending';
    }
    if (this.seen.has(id)) {
      this.counters.duplicates += 1;
      settle?.(true);
      return 'published';
    }
    this.claims.set(id, { seq: undefined, settles: settle ? [settle] : [] });
    this.counters.accepted += 1;
    this.box.stage(encodeItem(id, topic, payload));
    return 'queued';
  }

  /**
   * For a resend the router already knows: `settle(true)` once the earlier copy is published (at once when it is
   * already out, or was so long ago that the seen-set forgot it). Queues nothing.
   */
  whenPublished(id: string, settle: Settle): void {
    const claim = this.claims.get(id);
    if (claim === undefined) {
      settle(true);
      return;
    }
    this.counters.duplicates += 1;
    claim.settles.push(settle);
  }

  /** Starts publishing on `connection` (call on every `up`). */
  attach(connection: MqttConnection): void {
    this.connection = connection;
    // Whatever was in flight on the previous connection is sent again, in order, before anything newer.
    this.box.requeueAll();
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
      this.box.commitRemovals();
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const clock = this.options.clock ?? backgroundClock;
      const timer = clock.setTimeout(() => {
        this.box.commitRemovals();
        resolve(this.depth === 0);
      }, timeoutMs);
      this.emptyWaiters.push(() => {
        clock.clearTimeout(timer);
        this.box.commitRemovals();
        resolve(true);
      });
    });
  }

  /** Commits everything pending (new entries and removals) and stops the timers; the store stays open. */
  close(): void {
    this.box.close();
    this.connection = undefined;
  }

  /** Commits the current batch now (normally done once per event-loop turn). */
  flush(): void {
    this.box.commit();
  }

  private committed(outcome: CommitOutcome<Entry>): void {
    for (const r of outcome.results) {
      // A drop-oldest queue refuses nothing; a result is always an entry.
      if (!(r instanceof Error)) {
        const claim = this.claims.get(r.id);
        if (claim) claim.seq = r.seq;
      }
    }
    for (const d of outcome.dropped) {
      const claim = this.claims.get(d.id);
      if (!claim || (claim.seq !== undefined && claim.seq !== d.seq)) continue;
      this.claims.delete(d.id);
      for (const f of claim.settles) f(false);
    }
    if (outcome.dropped.length) this.logger.warn({ dropped: outcome.dropped.length, depth: this.depth }, 'outbox full: dropped its oldest messages');
    this.pump();
  }

  private commitFailed(staged: Message[], err: unknown): void {
    this.counters.writeErrors += staged.length;
    this.logger.error({ err, count: staged.length }, 'outbox write failed; those messages were not taken (the mesh will resend what needs an ACK)');
    for (const m of staged) {
      const claim = this.claims.get(m.id);
      this.claims.delete(m.id);
      if (claim) for (const s of claim.settles) s(false);
    }
  }

  /** The entry is at the broker and (for a claim to succeed) on disk: release its claims and its id. */
  private finish(id: string, seq: number, ok: boolean): void {
    const claim = this.claims.get(id);
    if (!claim || claim.seq !== seq) return;
    this.claims.delete(id);
    for (const f of claim.settles) f(ok);
  }

  private pump(): void {
    const conn = this.connection;
    if (!conn || !conn.connected || this.box.inFlight >= this.options.inflight) return;
    conn.corked(() => this.publishWindow(conn));
  }

  private publishWindow(conn: MqttConnection): void {
    for (const e of this.box.take()) {
      if (e.attempts > 1) this.counters.republished += 1;
      const props = this.options.properties?.(e.id);
      conn.publish(e.topic, e.item.subarray(e.payloadAt), props ? { qos: 1, properties: props } : { qos: 1 }, (err) => this.onPuback(e, err));
    }
  }

  private onPuback(e: Entry, err: Error | undefined): void {
    // Not published (the connection went away mid-flight): `attach` sends it again. An answer from a connection we
    // already gave up on (no longer in flight) is not one either.
    if (err || !e.inFlight) return;
    this.counters.published += 1;
    // Claims wait for the disk as well (entries read back from disk were on it already); the id stays "pending"
    // meanwhile, so that a resend joins the wait instead of being told "published".
    this.box.answer(e);
    if (this.depth === 0) for (const w of this.emptyWaiters.splice(0)) w();
    this.schedulePump();
  }
}
