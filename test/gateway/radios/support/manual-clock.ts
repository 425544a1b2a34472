/**
 * An injected clock for radio tests: time moves only when the test says so, so backoff, pacing and timeouts are
 * asserted exactly instead of slept through.
 */
import type { Clock } from '../../../../lib/clock';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #timers = new Map<number, Timer>();

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const seq = ++this.#seq;
    this.#timers.set(seq, { at: this.#now + Math.max(0, ms), seq, fn });
    return seq;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Delay until the next timer, or undefined. */
  nextIn(): number | undefined {
    let next: number | undefined;
    for (const t of this.#timers.values()) if (next === undefined || t.at < next) next = t.at;
    return next === undefined ? undefined : next - this.#now;
  }

  /**
   * Move time forward by `ms`, firing due timers in order; between timers, pending I/O callbacks and promise
   * continuations run, so a timer set by an async step inside the window fires too.
   */
  async tick(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      await settle();
      let due: Timer | undefined;
      for (const t of this.#timers.values()) {
        if (t.at <= end && (due === undefined || t.at < due.at || (t.at === due.at && t.seq < due.seq))) due = t;
      }
      if (due === undefined) break;
      this.#timers.delete(due.seq);
      this.#now = Math.max(this.#now, due.at);
      due.fn();
    }
    this.#now = end;
    await settle();
  }
}

/** Let already-queued I/O callbacks, immediates and promise continuations run. */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}
