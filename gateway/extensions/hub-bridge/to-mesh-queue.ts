/**
 * Hub messages on their way into the mesh: a durable queue, because the hub is told a message arrived as soon as the
 * client has stored it, long before the mesh recipient ACKs it. A job leaves the queue when its recipient ACKed
 * everything (or it is given up after `max_attempts` sends without an ACK); a crash in between replays it from the
 * store, with the same mesh ids, so the recipient's dedup absorbs what it already had.
 *
 * The bridge writes its jobs with `persist`, from a hub client inbound persister: inside the very transaction that
 * records the hub message in the client's inbox, so that "seen by the client" and "queued for the mesh" are one
 * commit (a kill between two commits would lose the message: its replayed copy is a duplicate for the client).
 * Everything in memory follows only once that transaction committed.
 *
 * At most `concurrency` jobs run at once, oldest first; a job waiting for its retry does not hold a slot, so one
 * unreachable recipient cannot stall the others. "No route" (no neighbour at all) does not use up attempts: those
 * jobs wait for `wake()`, which the bridge calls when a neighbour comes up, or for their backoff.
 */
import type { Queue, Store } from '../../../lib/store';
import { jitteredDelay } from '../../../lib/backoff';
import { coalesced } from '../../../lib/coalesce';
import type { Clock } from '../../../lib/clock';
import { parseJob, type ToMeshJob } from './hub-to-mesh';

export const TO_MESH_QUEUE = 'hub-bridge.to-mesh';

export type DeliveryOutcome =
  | { status: 'done' }
  /** `attempt`: this try counts against `max_attempts` (an ACK that never came), unlike a missing route. */
  | { status: 'retry'; attempt: boolean; reason: string }
  | { status: 'failed'; reason: string };

export interface ToMeshQueueOptions {
  capacity: number;
  concurrency: number;
  maxAttempts: number;
  retryMinMs: number;
  retryMaxMs: number;
}

interface Item {
  seq: number;
  job: ToMeshJob;
  attempts: number;
  tries: number;
  notBefore: number;
  running: boolean;
  /** What the deliverer already achieved for this job (kept across its retries in this process). */
  progress: Record<string, unknown>;
}

export interface ToMeshHooks {
  deliver(job: ToMeshJob, progress: Record<string, unknown>, signal: AbortSignal): Promise<DeliveryOutcome>;
  onDone?(job: ToMeshJob): void;
  onFailed?(job: ToMeshJob, reason: string): void;
  onDropped?(job: ToMeshJob): void;
}

export class ToMeshQueue {
  private readonly queue: Queue;
  private readonly items: Item[] = [];
  private running = 0;
  private timer: unknown;
  private timerAt: number | undefined;
  private stopped = false;
  private readonly abort = new AbortController();
  private droppedCount = 0;
  /**
   * One pump after every adoption of a batch: the effects of several frames run back to back, and a job adopted by
   * one must not start before the next has had its chance to drop it.
   */
  private readonly schedulePump = coalesced(() => this.pump());
  private readonly idleWaiters: Array<() => void> = [];

  constructor(
    private readonly store: Store,
    private readonly options: ToMeshQueueOptions,
    private readonly hooks: ToMeshHooks,
    private readonly clock: Clock,
  ) {
    this.queue = store.queue(TO_MESH_QUEUE, { capacity: options.capacity, overflow: 'reject' });
  }

  get depth(): number {
    return this.items.length;
  }

  get inflight(): number {
    return this.running;
  }

  get dropped(): number {
    return this.droppedCount;
  }

  /** Loads what an earlier run left; unreadable rows are removed. */
  open(): void {
    const now = this.clock.now();
    for (const row of this.queue.peek()) {
      const job = parseJob(row.value);
      if (job === undefined) {
        this.queue.remove(row.seq);
        continue;
      }
      this.items.push({ seq: row.seq, job, attempts: 0, tries: 0, notBefore: now, running: false, progress: {} });
    }
    this.pump();
  }

  /** Makes the jobs durable (one commit of their own), dropping the oldest waiting ones when full, then starts them. */
  add(jobs: readonly ToMeshJob[]): void {
    if (jobs.length === 0 || this.stopped) return;
    const after: Array<() => void> = [];
    this.store.transaction(() => this.persist(jobs, (fn) => after.push(fn)));
    for (const fn of after) fn();
  }

  /**
   * Writes the jobs inside the caller's store transaction (the hub client's inbox commit), dropping the oldest
   * waiting rows when full; `afterCommit` receives what adopts them in memory and starts them once it committed.
   * Written even after `stop()`: the rows are then picked up by the next `open()`. Throws `QUEUE_FULL` only when
   * every stored job is running (a capacity below the concurrency), which rolls the caller's frame back.
   */
  persist(jobs: readonly ToMeshJob[], afterCommit: (fn: () => void) => void): void {
    if (jobs.length === 0) return;
    const written: Array<{ seq: number; job: ToMeshJob }> = [];
    const dropped: number[] = [];
    for (const job of jobs) {
      // Sizes and rows as the transaction sees them, so several frames of one batch (and a rollback) count right.
      while (this.queue.size() >= this.options.capacity) {
        const victim = this.oldestIdleRow();
        if (victim === undefined) break;
        this.queue.remove(victim);
        dropped.push(victim);
      }
      written.push({ seq: this.queue.push(JSON.stringify(job)), job });
    }
    afterCommit(() => this.adopt(written, dropped));
  }

  /** The oldest stored job that is not running (running jobs are never dropped: their delivery is under way). */
  private oldestIdleRow(): number | undefined {
    const running = new Set<number>();
    for (const item of this.items) if (item.running) running.add(item.seq);
    for (const row of this.queue.peek(running.size + 1)) if (!running.has(row.seq)) return row.seq;
    return undefined;
  }

  /** After the commit: the dropped rows leave memory (counted), the written ones join it, and the queue runs. */
  private adopt(written: ReadonlyArray<{ seq: number; job: ToMeshJob }>, dropped: readonly number[]): void {
    const gone = new Set(dropped);
    for (const seq of dropped) {
      const at = this.items.findIndex((i) => i.seq === seq);
      if (at < 0) continue;
      const [item] = this.items.splice(at, 1);
      this.droppedCount += 1;
      this.hooks.onDropped?.(item!.job);
    }
    if (this.stopped) return;
    const now = this.clock.now();
    for (const { seq, job } of written) {
      if (gone.has(seq)) {
        // Written and pushed out again by a later job of the same call: a burst into a full queue.
        this.droppedCount += 1;
        this.hooks.onDropped?.(job);
        continue;
      }
      this.items.push({ seq, job, attempts: 0, tries: 0, notBefore: now, running: false, progress: {} });
    }
    this.schedulePump();
  }

  /** A neighbour came up: jobs that were waiting for a route go now. */
  wake(): void {
    const now = this.clock.now();
    for (const item of this.items) if (!item.running && item.attempts < this.options.maxAttempts) item.notBefore = Math.min(item.notBefore, now);
    this.pump();
  }

  /** Resolves once no job is queued (tests, shutdown reports). */
  whenEmpty(): Promise<void> {
    if (this.items.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private pump(): void {
    if (this.stopped) return;
    const now = this.clock.now();
    let next = Infinity;
    for (const item of this.items) {
      if (this.running >= this.options.concurrency) break;
      if (item.running) continue;
      if (item.notBefore > now) {
        next = Math.min(next, item.notBefore);
        continue;
      }
      void this.run(item);
    }
    this.arm(next);
  }

  private arm(at: number): void {
    if (at === Infinity || this.stopped) return;
    if (this.timerAt !== undefined && this.timerAt <= at) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = undefined;
      this.pump();
    }, Math.max(1, at - this.clock.now()));
  }

  private async run(item: Item): Promise<void> {
    item.running = true;
    this.running += 1;
    let outcome: DeliveryOutcome;
    try {
      outcome = await this.hooks.deliver(item.job, item.progress, this.abort.signal);
    } catch (err) {
      outcome = { status: 'retry', attempt: true, reason: (err as Error).message };
    }
    item.running = false;
    this.running -= 1;
    if (this.stopped) return;
    if (outcome.status === 'retry') {
      item.tries += 1;
      if (outcome.attempt) item.attempts += 1;
      if (item.attempts >= this.options.maxAttempts) outcome = { status: 'failed', reason: `no ACK after ${item.attempts} attempts (${outcome.reason})` };
      else {
        const delay = jitteredDelay(item.tries - 1, { initialMs: this.options.retryMinMs, maxMs: this.options.retryMaxMs, factor: 2, jitter: 0 }, 0);
        item.notBefore = this.clock.now() + delay;
      }
    }
    if (outcome.status !== 'retry') {
      this.remove(item);
      if (outcome.status === 'done') this.hooks.onDone?.(item.job);
      else this.hooks.onFailed?.(item.job, outcome.reason);
    }
    this.pump();
  }

  private remove(item: Item): void {
    const at = this.items.indexOf(item);
    if (at >= 0) this.items.splice(at, 1);
    // Not waited for on disk: a removal lost to a power cut only sends the job once more, under the same mesh ids.
    if (!this.store.closed) this.store.transaction(() => this.queue.remove(item.seq), { deferSync: true });
    if (this.items.length === 0) for (const w of this.idleWaiters.splice(0)) w();
  }
}
