/**
 * A durable, group-committed outbox over one `Queue` of a `Store`: the one implementation behind the hub client's
 * sends (lib/hub/send/outbox.ts) and the gateway's MQTT publishes (gateway/mqtt/outbox.ts). Its owner says what an entry
 * holds (a codec), when one goes on the wire (`take`), and when the peer answered it (`answer`); the outbox does the
 * rest, the same way for both:
 *
 * - Staging and group commit: values staged during one turn of the event loop are written in ONE transaction on
 *   the next turn (under load, at least `minCommitGapMs` after the previous commit), with `deferSync`: committed,
 *   so a process kill loses nothing, and on disk once the store's next `sync()` (an fsync off the event loop, shared
 *   by every commit meanwhile) resolved. Entries are sendable as soon as their commit returned: the fsync and the
 *   peer's round trip overlap.
 * - The fsync watermark: seqs only grow, so "the disk has every entry up to seq S" is one number (`durableThrough`).
 *   Each commit's entries are reported `durable` (or not, when the fsync failed) in seq order once its fsync ended.
 * - The in-flight window: at most `maxInFlight` entries taken and not answered; `requeueAll` (the connection
 *   ended) and `requeueOverdue` (no answer in time) put them back ahead of everything newer, in seq order.
 * - Settling: an entry is `settled` only when it was answered AND is durable, whichever came last, so what its
 *   owner acknowledges upstream is on disk or at the peer whatever happens.
 * - Batched removal: the row of an answered entry leaves with the next commit, or on its own after
 *   `removalDelayMs`, or at once when `removalBatch` are pending (a removal lost in a crash only sends the entry
 *   once more, with the same content: the peer's dedup absorbs it). With `removeWhenQuiet`, when nothing else is
 *   in flight or staged and commits have come further apart than `removalDelayMs` (so no commit would come to take
 *   it along), it goes on the turn of its answer instead, which spares a quiet outbox a wake-up per entry. A memory
 *   store removes at once (with `commitInMicrotask`, at the end of the task: all of its answers in one transaction).
 * - A bounded mirror: at most `mirrorLimit` entries are held in memory ahead of the sender; the rest wait on disk
 *   and are read back in order as the window drains (a long outage must not fill RAM).
 *
 * Every delay reads the injected `Clock`; the "next turn" of the group commit is `setImmediate` on purpose (it
 * waits for I/O, not for time).
 */
import { systemClock, type Clock, type TimerHandle } from '../clock';
import { StoreError } from './errors';
import type { Queue, QueueOverflow, Store, StoreValue } from './types';

/**
 * What an owner's entries are: how a value is stored (`decode` answers `undefined` for a row that is not one of
 * ours: it is removed) and the entry object made for it, which the outbox hands back in every call and hook.
 */
export interface OutboxCodec<T, E extends OutboxSlot> {
  encode(value: T): StoreValue;
  decode(stored: StoreValue): T | undefined;
  /** A fresh entry: `slot` (the outbox's own fields) merged with whatever the owner keeps of `value`. */
  entry(slot: OutboxSlot, value: T): E;
}

/** The outbox's part of an entry. */
export interface OutboxSlot {
  /** The row's seq in the queue: commit order, never reused. */
  readonly seq: number;
  /** Times taken for the wire in this run (a second one is a retransmit). */
  attempts: number;
  /** When it was last taken, on the outbox's clock. */
  sentAt: number | undefined;
  inFlight: boolean;
  /** The peer answered: it settles once durable, and its row leaves with a later commit. */
  answered: boolean;
}

export interface CommitOutcome<E> {
  /** One per staged value, in staging order: its entry, or the `QUEUE_FULL` refusal of a full `reject` queue. */
  results: Array<E | StoreError>;
  /**
   * Entries a full `drop-oldest` queue pushed out (those of this very commit included), with what they held
   * (`undefined` when unreadable). Not reported: dropped rows whose entry is in flight or answered, which still
   * settle when answered (the peer has them after all).
   */
  dropped: E[];
}

export interface DurableOutboxHooks<T, E> {
  /** Runs inside the commit's transaction for each value written (a mark that must commit with it). */
  writing?(value: T): void;
  /**
   * Runs inside the commit's transaction once, with every value written by it in staging order (marks for the whole
   * batch in one write, where `writing` makes one per value).
   */
  wrote?(values: T[]): void;
  /** A commit returned (not yet on disk). */
  committed?(outcome: CommitOutcome<E>, staged: T[]): void;
  /** The commit threw: nothing of `staged` was written (pending removals stay pending). */
  commitFailed?(staged: T[], err: unknown): void;
  /**
   * The fsync of the entry's commit ended (`ok`), or failed: called once per committed entry still held, in seq
   * order, before `settled` for an entry already answered.
   */
  durable?(entry: E, ok: boolean, err: unknown): void;
  /** Answered and durable (`ok` false: answered, but the fsync that should have made it durable failed). */
  settled(entry: E, ok: boolean): void;
  /** An fsync failed, before its entries are reported; `commits` is how many commits of entries it covered. */
  syncFailed?(err: unknown, commits: number): void;
  /** After an fsync's entries were reported (when it covered any). */
  synced?(err: unknown): void;
  /** A removal-only commit failed (the rows stay and are removed with a later commit). */
  removalFailed?(err: unknown): void;
}

export interface DurableOutboxOptions {
  /** The queue's name in the store. */
  queue: string;
  capacity: number;
  overflow: QueueOverflow;
  maxInFlight: number;
  clock?: Clock;
  /** Under load, commits are at least this far apart so each fsync carries many entries. Default 0. */
  minCommitGapMs?: number;
  /** Default 20. */
  removalDelayMs?: number;
  /** Default 4096. */
  removalBatch?: number;
  /** Entries held in memory ahead of the sender. Default: all. */
  mirrorLimit?: number;
  /**
   * Whether a commit of removals alone asks the store to sync (default true): it keeps the repeats a power cut
   * would cause few; without it, the next commit's fsync takes the removals along.
   */
  syncRemovals?: boolean;
  /**
   * Remove on the turn of the answer, not after `removalDelayMs`, when nothing else is in flight or staged and
   * commits have come further apart than that delay (default false: the row then outlives its answer by the delay,
   * which a crash right after an answer may depend on to present it again).
   */
  removeWhenQuiet?: boolean;
  /**
   * Commit what a task staged, and the removals of what it answered, at the end of that task (a microtask) rather
   * than on the next turn of the event loop and at each answer (default false). For a memory store only, which has
   * no fsync to share: the next turn buys nothing there and costs a send one loop turn of latency, and a batch of
   * answers then costs one transaction, not one each. Ignored for a store on disk.
   */
  commitInMicrotask?: boolean;
}

/** Entries read back from disk per refill of the mirror. */
const LOAD_BATCH = 512;
/** The options of every commit: written, not waited for on disk (`store.sync()` follows). */
const DEFER_SYNC = { deferSync: true } as const;
export const REMOVAL_DELAY_MS = 20;
export const REMOVAL_BATCH = 4096;

interface SyncGroup<E> {
  /** The highest seq this commit wrote. */
  through: number;
  entries: Array<E>;
}

export class DurableOutbox<T, E extends OutboxSlot> {
  readonly queue: Queue;
  private readonly clock: Clock;
  private readonly memory: boolean;
  private readonly minCommitGapMs: number;
  private readonly removalDelayMs: number;
  private readonly removalBatch: number;
  private readonly mirrorLimit: number;
  /** Every entry held in memory, in seq order (answered ones until they settle). */
  private readonly live = new Map<number, E>();
  private answeredLive = 0;
  /** Committed, not in flight, oldest first; forgotten entries are skipped lazily. */
  private ready: Array<E> = [];
  /** Where `ready` starts: entries before it were taken. */
  private readyHead = 0;
  /** Taken and not answered, in the order taken (so `sentAt` grows along it). */
  private readonly flying = new Map<number, E>();
  /** True while every stored entry above `loadedThrough` is in memory (a new commit may be appended to it). */
  private mirrorComplete = true;
  private loadedThrough = 0;
  private staged: T[] = [];
  private commitScheduled = false;
  private lastCommitAt = Number.NEGATIVE_INFINITY;
  /** Between the last two commits of staged values: how soon another may come to take removals along. */
  private commitGapMs = Number.POSITIVE_INFINITY;
  private removals: number[] = [];
  private removalTimer: TimerHandle | undefined;
  /** Committed entries whose fsync has not ended, one group per commit, oldest first. */
  private syncing: Array<SyncGroup<E>> = [];
  private maxSeq = 0;
  private durableSeq = 0;
  private storedCount = 0;
  private storedDirty = false;
  /** A memory store with `commitInMicrotask`. */
  private readonly inMicrotask: boolean;
  private removalQueued = false;

  constructor(
    private readonly store: Store,
    private readonly codec: OutboxCodec<T, E>,
    private readonly options: DurableOutboxOptions,
    private readonly hooks: DurableOutboxHooks<T, E>,
  ) {
    this.queue = store.queue(options.queue, { capacity: options.capacity, overflow: options.overflow });
    this.clock = options.clock ?? systemClock;
    this.memory = store.kind === 'memory';
    this.minCommitGapMs = options.minCommitGapMs ?? 0;
    this.removalDelayMs = options.removalDelayMs ?? REMOVAL_DELAY_MS;
    this.removalBatch = options.removalBatch ?? REMOVAL_BATCH;
    this.mirrorLimit = options.mirrorLimit ?? Number.POSITIVE_INFINITY;
    this.inMicrotask = this.memory && options.commitInMicrotask === true;
  }

  /**
   * Reads what a previous run left (call once, before the first `stage`): `visit` sees every readable row in seq
   * order, the first `mirrorLimit` become entries ready to send; unreadable rows are removed. Returns their count.
   */
  open(visit?: (seq: number, value: T) => void): number {
    let unreadable = 0;
    const depth = this.queue.size();
    // Walk seqs upwards from the head: entries are dense there (drops and removals take the oldest first), and `get`
    // reads one row at a time, so a full outbox never sits in memory at once.
    const head = this.queue.peek(1)[0];
    if (head) {
      // Seqs never exceed the number of pushes ever made, so this bound ends the walk even across a wide gap.
      const last = head.seq + this.queue.counters().pushed;
      let found = 0;
      for (let seq = head.seq; found < depth && seq <= last; seq += 1) {
        const item = this.queue.get(seq);
        if (!item) continue;
        found += 1;
        this.maxSeq = seq;
        const value = this.codec.decode(item.value);
        if (value === undefined) {
          this.queue.remove(seq);
          unreadable += 1;
          continue;
        }
        visit?.(seq, value);
        if (this.mirrorComplete && this.live.size < this.mirrorLimit) {
          const entry = this.codec.entry(slot(seq), value);
          this.live.set(seq, entry);
          this.ready.push(entry);
          this.loadedThrough = seq;
        } else this.mirrorComplete = false;
      }
    }
    // Read back from the file: on disk already.
    this.durableSeq = this.maxSeq;
    this.storedCount = this.queue.size();
    return unreadable;
  }

  /** Entries held in memory and not answered. */
  get size(): number {
    return this.live.size - this.answeredLive;
  }

  /** Rows stored and not answered, plus what is staged: everything still to deliver. */
  get depth(): number {
    if (this.storedDirty) {
      this.storedDirty = false;
      this.storedCount = this.queue.size();
    }
    return this.storedCount - this.removals.length + this.staged.length;
  }

  get stagedCount(): number {
    return this.staged.length;
  }

  get inFlight(): number {
    return this.flying.size;
  }

  /** Rows of answered entries not yet removed from the store. */
  get pendingRemovals(): number {
    return this.removals.length;
  }

  /** Every entry with a seq up to this one is on disk. */
  get durableThrough(): number {
    return this.durableSeq;
  }

  isDurable(entry: E): boolean {
    return entry.seq <= this.durableSeq;
  }

  /** Is this very entry held and unanswered (not answered, dropped or forgotten meanwhile)? */
  holds(entry: E): boolean {
    return this.live.get(entry.seq) === entry && !entry.answered;
  }

  /** Held entries in seq order (answered ones too, until they settle); do not forget entries while iterating. */
  entries(): IterableIterator<E> {
    return this.live.values();
  }

  /** The entry taken longest ago and not answered (the first deadline of the window). */
  oldestInFlight(): E | undefined {
    return this.flying.values().next().value;
  }

  /** Takes `value` over; it is written with the others of this turn. */
  stage(value: T): void {
    this.staged.push(value);
    if (this.commitScheduled) return;
    this.commitScheduled = true;
    const wait = this.lastCommitAt + this.minCommitGapMs - this.clock.now();
    if (wait > 0) this.clock.setTimeout(() => this.commit(), wait);
    else if (this.inMicrotask) queueMicrotask(() => this.commit());
    else setImmediate(() => this.commit());
  }

  /**
   * Commits the staged values now, with the pending removals, in one transaction that does not wait for the disk,
   * and asks the store to sync. A value the full queue refuses fails alone; a commit that throws writes nothing.
   */
  commit(): void {
    this.commitScheduled = false;
    if (this.staged.length === 0) {
      if (this.removals.length >= this.removalBatch) this.commitRemovals();
      return;
    }
    const now = this.clock.now();
    this.commitGapMs = now - this.lastCommitAt;
    this.lastCommitAt = now;
    this.clearRemovalTimer();
    const staged = this.staged;
    this.staged = [];
    const removals = this.removals;
    this.removals = [];
    const results: Array<E | StoreError> = [];
    const pushedOut: Array<{ seq: number; stored: StoreValue }> = [];
    const dropOldest = this.options.overflow === 'drop-oldest';
    try {
      this.store.transaction(() => {
        // Removals first: the rows they free are what lets a full queue take the new values.
        let size = this.storedCount - this.queue.removeMany(removals);
        const capacity = this.queue.capacity;
        const wrote: T[] | undefined = this.hooks.wrote ? [] : undefined;
        if (size + staged.length <= capacity) {
          // The whole batch fits, so no overflow rule applies: one multi-row write for it.
          const encoded = new Array<StoreValue>(staged.length);
          for (let i = 0; i < staged.length; i++) encoded[i] = this.codec.encode(staged[i]!);
          const seqs = this.queue.pushMany(encoded);
          for (let i = 0; i < staged.length; i++) {
            this.hooks.writing?.(staged[i]!);
            results.push(this.codec.entry(slot(seqs[i]!), staged[i]!));
          }
          if (wrote) this.hooks.wrote!(staged);
          return;
        }
        for (const value of staged) {
          if (dropOldest && size >= capacity) {
            // The store drops the oldest row to make room; find out which, to report it.
            const oldest = this.queue.peek(1)[0];
            if (oldest) pushedOut.push({ seq: oldest.seq, stored: oldest.value });
          }
          let seq: number;
          try {
            seq = this.queue.push(this.codec.encode(value));
          } catch (err) {
            if (!(err instanceof StoreError && err.code === 'QUEUE_FULL')) throw err;
            results.push(err);
            continue;
          }
          this.hooks.writing?.(value);
          wrote?.push(value);
          if (size < capacity || !dropOldest) size += 1;
          results.push(this.codec.entry(slot(seq), value));
        }
        if (wrote && wrote.length > 0) this.hooks.wrote!(wrote);
      }, DEFER_SYNC);
    } catch (err) {
      this.removals = removals.concat(this.removals);
      this.hooks.commitFailed?.(staged, err);
      return;
    }
    this.storedCount = this.queue.size();
    // Only a full queue pushes rows out; the sets are made for that case alone.
    const droppedSeqs = pushedOut.length > 0 ? new Set<number>() : undefined;
    const dropped: E[] = [];
    const pushedNow = pushedOut.length > 0 ? new Set(results.map((r) => (r instanceof StoreError ? -1 : r.seq))) : undefined;
    for (const d of pushedOut) {
      droppedSeqs!.add(d.seq);
      const held = this.live.get(d.seq);
      if (held) {
        if (held.inFlight || held.answered) continue; // its answer is on the way; the peer will have it after all
        this.forget(held);
        dropped.push(held);
      } else if (!pushedNow!.has(d.seq)) {
        const value = this.codec.decode(d.stored);
        if (value !== undefined) dropped.push(this.codec.entry(slot(d.seq), value));
      }
    }
    const group: SyncGroup<E> = { through: this.maxSeq, entries: [] };
    for (const r of results) {
      if (r instanceof StoreError) continue;
      this.maxSeq = r.seq;
      // Pushed and pushed out again in the same commit: a full queue under a burst.
      if (droppedSeqs?.has(r.seq)) {
        dropped.push(r);
        continue;
      }
      group.entries.push(r);
      if (this.mirrorComplete && this.live.size < this.mirrorLimit) {
        this.live.set(r.seq, r);
        this.ready.push(r);
        this.loadedThrough = r.seq;
      } else this.mirrorComplete = false;
    }
    group.through = this.maxSeq;
    if (group.entries.length > 0) this.syncing.push(group);
    this.hooks.committed?.({ results, dropped }, staged);
    this.afterCommit();
  }

  /** Entries to put on the wire now, oldest first, within the window; marked in flight. */
  take(): Array<E> {
    const out: Array<E> = [];
    let room = this.options.maxInFlight - this.flying.size;
    if (room <= 0) return out;
    const now = this.clock.now();
    while (room > 0) {
      if (this.readyHead >= this.ready.length) {
        this.ready = [];
        this.readyHead = 0;
        if (!this.loadMore()) break;
        continue;
      }
      const entry = this.ready[this.readyHead++]!;
      if (this.live.get(entry.seq) !== entry || entry.answered || entry.inFlight) continue;
      entry.inFlight = true;
      entry.attempts += 1;
      entry.sentAt = now;
      this.flying.set(entry.seq, entry);
      out.push(entry);
      room -= 1;
    }
    // Taken entries are dropped from the front in bulk, not one shift at a time.
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
    }
    return out;
  }

  /**
   * The peer has the entry: it leaves the window, its row goes with a later commit, and it settles now if durable
   * (else when its fsync ends). False when it was not held or answered already (a second answer).
   */
  answer(entry: E): boolean {
    if (!this.holds(entry)) return false;
    entry.answered = true;
    this.answeredLive += 1;
    if (entry.inFlight) {
      entry.inFlight = false;
      this.flying.delete(entry.seq);
    }
    this.removals.push(entry.seq);
    if (entry.seq <= this.durableSeq) this.settle(entry, true);
    if (this.inMicrotask) this.removeSoon();
    else if (this.memory || this.removals.length >= this.removalBatch) this.commitRemovals();
    else if (this.options.removeWhenQuiet === true && this.quiet()) this.removeSoon();
    else this.scheduleRemoval();
    return true;
  }

  /** Removes the entry's row now (inside the caller's transaction, if any); throws what the store throws. */
  removeRow(entry: E): void {
    // Possibly inside a transaction that may still roll back: the count is read again when next asked for.
    this.queue.remove(entry.seq);
    this.storedDirty = true;
  }

  /** Lets go of an entry in memory without an answer (refused, expired, failed); its row is the caller's business. */
  forget(entry: E): void {
    if (this.live.get(entry.seq) !== entry) return;
    this.live.delete(entry.seq);
    if (entry.answered) this.answeredLive -= 1;
    if (entry.inFlight) this.flying.delete(entry.seq);
    entry.inFlight = false;
  }

  /** The connection ended: nothing is on the wire any more; everything in flight goes again first. */
  requeueAll(): void {
    if (this.flying.size === 0) return;
    const back = [...this.flying.values()].sort((a, b) => a.seq - b.seq);
    this.flying.clear();
    for (const e of back) e.inFlight = false;
    this.ready = mergeBySeq(back, this.readyList());
    this.readyHead = 0;
  }

  /** In-flight entries taken at least `timeoutMs` ago go back to sendable; returns them. */
  requeueOverdue(timeoutMs: number): Array<E> {
    const now = this.clock.now();
    const overdue: Array<E> = [];
    for (const e of this.flying.values()) {
      if ((e.sentAt ?? now) + timeoutMs > now) break; // taken in sentAt order: the rest are younger
      overdue.push(e);
    }
    if (overdue.length === 0) return overdue;
    for (const e of overdue) {
      this.flying.delete(e.seq);
      e.inFlight = false;
    }
    this.ready = mergeBySeq(overdue.slice().sort((a, b) => a.seq - b.seq), this.readyList());
    this.readyHead = 0;
    return overdue;
  }

  /** Commits the pending removals on their own (nothing waits for their fsync: see the module comment). */
  commitRemovals(): void {
    this.clearRemovalTimer();
    if (this.removals.length === 0 || this.store.closed) return;
    const removals = this.removals;
    this.removals = [];
    try {
      this.store.transaction(() => {
        this.queue.removeMany(removals);
      }, DEFER_SYNC);
    } catch (err) {
      this.removals = removals.concat(this.removals);
      this.hooks.removalFailed?.(err);
      return;
    }
    this.storedCount = this.queue.size();
    if (this.options.syncRemovals !== false) this.afterCommit();
  }

  /** Commits everything pending (staged values and removals) and stops the timers; the store stays open. */
  close(): void {
    this.commit();
    this.commitRemovals();
  }

  /** True while some commit's fsync has not ended. */
  get syncPending(): boolean {
    return this.syncing.length > 0;
  }

  private afterCommit(): void {
    const through = this.maxSeq;
    if (this.memory) {
      // Nothing to wait for in memory: a commit that returned is all the durability there is.
      this.onSync(through, undefined);
      return;
    }
    this.store.sync().then(
      () => this.onSync(through, undefined),
      (err: unknown) => this.onSync(through, err ?? new Error('sync failed')),
    );
  }

  /** The fsync of every commit up to seq `through` ended (or failed): report and settle those entries. */
  private onSync(through: number, err: unknown): void {
    if (through > this.durableSeq) this.durableSeq = through;
    const ok = err === undefined;
    let commits = 0;
    while (commits < this.syncing.length && this.syncing[commits]!.through <= through) commits += 1;
    if (!ok) this.hooks.syncFailed?.(err, commits);
    for (const group of this.syncing.splice(0, commits)) {
      for (const e of group.entries) {
        if (this.live.get(e.seq) !== e) continue; // dropped or forgotten meanwhile
        this.hooks.durable?.(e, ok, err);
        if (e.answered && this.live.get(e.seq) === e) this.settle(e, ok);
      }
    }
    if (commits > 0) this.hooks.synced?.(err);
  }

  private settle(entry: E, ok: boolean): void {
    this.live.delete(entry.seq);
    this.answeredLive -= 1;
    this.hooks.settled(entry, ok);
  }

  /** Refills the mirror from disk; false when there is nothing more to send. */
  private loadMore(): boolean {
    if (this.mirrorComplete) return false;
    // The head of the queue is what is in flight, answered and not yet removed, and already mirrored; then the rest.
    const items = this.queue.peek(this.flying.size + this.removals.length + this.live.size + LOAD_BATCH).filter((i) => i.seq > this.loadedThrough);
    let added = 0;
    for (const item of items) {
      this.loadedThrough = item.seq;
      const value = this.codec.decode(item.value);
      if (value === undefined) {
        // Not ours (a corrupt or foreign row): drop it rather than block the queue forever.
        if (this.queue.remove(item.seq)) this.storedCount -= 1;
        continue;
      }
      // A row whose fsync is still running has its entry in that commit's group: the same object, so that it
      // settles when the fsync ends.
      const entry = (item.seq > this.durableSeq ? this.pendingEntry(item.seq) : undefined) ?? this.codec.entry(slot(item.seq), value);
      this.live.set(item.seq, entry);
      this.ready.push(entry);
      added += 1;
    }
    if (items.length < LOAD_BATCH) this.mirrorComplete = true;
    return added > 0 || !this.mirrorComplete;
  }

  private readyList(): Array<E> {
    return this.readyHead === 0 ? this.ready : this.ready.slice(this.readyHead);
  }

  private pendingEntry(seq: number): E | undefined {
    for (const g of this.syncing) {
      if (g.through < seq) continue;
      return g.entries.find((e) => e.seq === seq);
    }
    return undefined;
  }

  /**
   * The removals of a task's answers at its end (`commitInMicrotask`), or of a read's answers on this turn (a quiet
   * outbox): after every answer the task or the read brought. A commit before takes them along.
   */
  private removeSoon(): void {
    if (this.removalQueued) return;
    this.removalQueued = true;
    const run = (): void => {
      this.removalQueued = false;
      this.commitRemovals();
    };
    if (this.inMicrotask) queueMicrotask(run);
    else setImmediate(run);
  }

  /** Nothing else to answer or to commit, and commits too far apart for the next one to come within the removal delay. */
  private quiet(): boolean {
    return this.flying.size === 0 && this.staged.length === 0 && this.commitGapMs > this.removalDelayMs;
  }

  private scheduleRemoval(): void {
    if (this.removalTimer !== undefined) return;
    this.removalTimer = this.clock.setTimeout(() => {
      this.removalTimer = undefined;
      this.commitRemovals();
    }, this.removalDelayMs);
  }

  private clearRemovalTimer(): void {
    if (this.removalTimer === undefined) return;
    this.clock.clearTimeout(this.removalTimer);
    this.removalTimer = undefined;
  }
}

function slot(seq: number): OutboxSlot {
  return { seq, attempts: 0, sentAt: undefined, inFlight: false, answered: false };
}

/** Two seq-sorted lists as one. */
function mergeBySeq<E extends OutboxSlot>(a: E[], b: E[]): E[] {
  if (b.length === 0 || a[a.length - 1]!.seq < b[0]!.seq) return a.concat(b);
  const out: E[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i]!.seq < b[j]!.seq ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}
