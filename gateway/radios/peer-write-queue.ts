/**
 * One peer's bounded write queue, shared by every radio so that backpressure behaves the same on BLE, serial and
 * the simulation.
 *
 * - Writes run one at a time in arrival order (BLE allows one outstanding write per peer; a serial port must not
 *   interleave two frames).
 * - The queue is bounded by frame count and by bytes. A full queue refuses at once with `QUEUE_FULL` rather than
 *   growing: a slow radio link must push back on the router, not eat the Pi's memory. A single frame larger than
 *   the byte bound is still accepted when the queue is empty, or it could never be sent.
 * - `fail(err)` rejects the frame in flight and everything waiting with `err` and refuses further frames; the
 *   outcome of a write still running underneath is ignored. So every accepted frame settles exactly once.
 * - With `writeMany`, a link that takes several frames in one write (a serial line: one port write and one drain
 *   for the lot) is handed everything waiting when the previous write finishes, still in arrival order and still
 *   one write at a time; each of those frames settles with that write. Under a burst of ACKs this is one system
 *   call round for dozens of frames instead of one per frame.
 * - The `QUEUE_FULL` refusal is a flow-control answer the router retries, built at the rate frames arrive: it
 *   carries its code, message and details but no stack (which would only ever show this function).
 */
import { RadioError } from './radio';

export interface PeerWriteQueueOptions {
  peerId: string;
  /** Frames (waiting + in flight) before `push` refuses. */
  limit: number;
  /** Bytes (waiting + in flight) before `push` refuses. */
  byteLimit: number;
  /** Writes one whole frame to the link; rejects on failure. */
  write: (frame: Uint8Array) => Promise<void>;
  /**
   * Writes several whole frames, in order, as one write. Rejects when the write failed (every frame of it fails);
   * may resolve with one entry per frame, the error of a frame it refused by itself (undefined: written).
   */
  writeMany?: (frames: Uint8Array[]) => Promise<ReadonlyArray<unknown> | void>;
  /** Bytes one `writeMany` takes at most (it always takes one frame); default 64 KiB. */
  writeManyBytes?: number;
  /**
   * After a refusal, at each finished write until the queue has run empty: `free` frames would be taken now. Lets the
   * caller retry what it parked when the queue drains rather than on a timer.
   */
  onSpace?: (free: number) => void;
}

interface Job {
  frame: Uint8Array;
  resolve: () => void;
  reject: (err: unknown) => void;
  settled: boolean;
}

export class PeerWriteQueue {
  readonly #options: PeerWriteQueueOptions;
  readonly #waiting: Job[] = [];
  /** The jobs of the write running now (one, or with `writeMany` all that were waiting when it started). */
  #inFlight: Job[] = [];
  #bytes = 0;
  #failure: RadioError | undefined;
  /** A push was refused since the last `onSpace`. */
  #refused = false;

  constructor(options: PeerWriteQueueOptions) {
    this.#options = options;
  }

  /** Frames waiting or being written. */
  get depth(): number {
    return this.#waiting.length + this.#inFlight.length;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** Resolves once the frame is written; rejects with `QUEUE_FULL` at once when the queue is full. */
  push(frame: Uint8Array): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const { limit, byteLimit, peerId } = this.#options;
    const depth = this.depth;
    if (depth >= limit || (depth > 0 && this.#bytes + frame.length > byteLimit)) {
      this.#refused = true;
      return Promise.reject(queueFull(peerId, depth, this.#bytes, limit, byteLimit));
    }
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ frame, resolve, reject, settled: false });
      this.#bytes += frame.length;
      this.#pump();
    });
  }

  /** Settles everything still pending with `err` and refuses all later frames. */
  fail(err: RadioError): void {
    if (this.#failure !== undefined) return;
    this.#failure = err;
    const pending = [...this.#inFlight, ...this.#waiting];
    this.#waiting.length = 0;
    this.#inFlight = [];
    this.#bytes = 0;
    for (const job of pending) this.#settle(job, err);
  }

  #pump(): void {
    if (this.#inFlight.length > 0 || this.#failure !== undefined || this.#waiting.length === 0) return;
    const { write, writeMany } = this.#options;
    let take = 1;
    if (writeMany !== undefined) {
      const cap = this.#options.writeManyBytes ?? 65_536;
      let bytes = this.#waiting[0]!.frame.length;
      while (take < this.#waiting.length && bytes + this.#waiting[take]!.frame.length <= cap) bytes += this.#waiting[take++]!.frame.length;
    }
    const jobs = this.#waiting.splice(0, take);
    this.#inFlight = jobs;
    let attempt: Promise<ReadonlyArray<unknown> | void>;
    try {
      attempt = jobs.length === 1 ? write(jobs[0]!.frame) : writeMany!(jobs.map((job) => job.frame));
    } catch (err) {
      attempt = Promise.reject(err);
    }
    attempt.then(
      (outcomes) => this.#finish(jobs, undefined, outcomes),
      (err: unknown) => this.#finish(jobs, err),
    );
  }

  #finish(jobs: Job[], err?: unknown, outcomes?: ReadonlyArray<unknown> | void): void {
    // Jobs failed by `fail()` were already settled and removed; their write's late outcome changes nothing.
    if (this.#inFlight !== jobs) return;
    this.#inFlight = [];
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i]!;
      this.#bytes -= job.frame.length;
      this.#settle(job, err ?? (outcomes ? outcomes[i] : undefined));
    }
    this.#pump();
    // After a refusal, every finished write says how much room there is, until the queue has run empty: a caller
    // that parked more than there was room for hears again at the next write, and one that parked its frames just
    // after this call still hears once more while anything is in flight.
    if (this.#refused && this.#failure === undefined) {
      const free = this.#options.limit - this.depth;
      if (free > 0) this.#options.onSpace?.(free);
      if (this.depth === 0) this.#refused = false;
    }
  }

  #settle(job: Job, err?: unknown): void {
    if (job.settled) return;
    job.settled = true;
    if (err === undefined) job.resolve();
    else job.reject(err);
  }
}

/** The refusal of a full queue, without a stack (see the header). */
function queueFull(peerId: string, depth: number, bytes: number, limit: number, byteLimit: number): RadioError {
  const stackLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new RadioError('QUEUE_FULL', `write queue of peer ${peerId} is full (${depth} frames, ${bytes} bytes)`, {
      peerId,
      depth,
      bytes,
      limit,
      byteLimit,
    });
  } finally {
    Error.stackTraceLimit = stackLimit;
  }
}
