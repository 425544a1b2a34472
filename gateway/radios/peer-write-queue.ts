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
  #inFlight: Job | undefined;
  #bytes = 0;
  #failure: RadioError | undefined;

  constructor(options: PeerWriteQueueOptions) {
    this.#options = options;
  }

  /** Frames waiting or being written. */
  get depth(): number {
    return this.#waiting.length + (this.#inFlight === undefined ? 0 : 1);
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
      return Promise.reject(
        new RadioError('QUEUE_FULL', `write queue of peer ${peerId} is full (${depth} frames, ${this.#bytes} bytes)`, {
          peerId,
          depth,
          bytes: this.#bytes,
          limit,
          byteLimit,
        }),
      );
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
    const pending = this.#inFlight === undefined ? [...this.#waiting] : [this.#inFlight, ...this.#waiting];
    this.#waiting.length = 0;
    this.#inFlight = undefined;
    this.#bytes = 0;
    for (const job of pending) this.#settle(job, err);
  }

  #pump(): void {
    if (this.#inFlight !== undefined || this.#failure !== undefined) return;
    const job = this.#waiting.shift();
    if (job === undefined) return;
    this.#inFlight = job;
    let attempt: Promise<void>;
    try {
      attempt = this.#options.write(job.frame);
    } catch (err) {
      attempt = Promise.reject(err);
    }
    attempt.then(
      () => this.#finish(job),
      (err: unknown) => this.#finish(job, err),
    );
  }

  #finish(job: Job, err?: unknown): void {
    // A job failed by `fail()` was already settled and removed; its late outcome changes nothing.
    if (this.#inFlight !== job) return;
    this.#inFlight = undefined;
    this.#bytes -= job.frame.length;
    this.#settle(job, err);
    this.#pump();
  }

  #settle(job: Job, err?: unknown): void {
    if (job.settled) return;
    job.settled = true;
    if (err === undefined) job.resolve();
    else job.reject(err);
  }
}
