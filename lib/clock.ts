/**
 * Time, injected: every timeout, backoff, expiry and batching delay in lib/ (and the gateway parts built on it) reads
 * `now()` and arms timers through one `Clock`, so tests (and simulations) drive time instead of waiting for it.
 */

/** Whatever `setTimeout` gave back; only its own clock's `clearTimeout` understands it. */
export type TimerHandle = unknown;

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
  clearTimeout: (handle) => {
    if (handle !== undefined) clearTimeout(handle as NodeJS.Timeout);
  },
};

/**
 * The system's time for a service (the gateway, its radios and router) whose pending timers (a reconnect, pacing,
 * an ACK timeout) must not keep a stopping process alive: its timers are unref'd. A library user's client keeps
 * `systemClock`, whose pending reconnect is what keeps a lone CLI process waiting for the hub.
 */
export const backgroundClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, Math.max(0, ms));
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => {
    if (handle !== undefined) clearTimeout(handle as NodeJS.Timeout);
  },
};

interface ManualTimer {
  at: number;
  order: number;
  fn: () => void;
}

/**
 * A clock that moves only when told. `advance(ms)` fires the due timers in time order (timers armed by a firing
 * timer fire too if they fall inside the window), then sets `now` to the end of the window.
 */
export class ManualClock implements Clock {
  private current: number;
  private order = 0;
  private readonly timers = new Map<object, ManualTimer>();

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = {};
    this.timers.set(handle, { at: this.current + Math.max(0, ms), order: this.order++, fn });
    return handle;
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (typeof handle === 'object' && handle !== null) this.timers.delete(handle);
  }

  /** How many timers are armed. */
  pending(): number {
    return this.timers.size;
  }

  /** When the next timer fires, or undefined. */
  nextAt(): number | undefined {
    let next: number | undefined;
    for (const t of this.timers.values()) if (next === undefined || t.at < next) next = t.at;
    return next;
  }

  advance(ms: number): void {
    const end = this.current + Math.max(0, ms);
    while (this.fireNext(end));
    this.current = end;
  }

  /**
   * `advance` for code that awaits between its timers (a radio's reconnect, a queue's pacing): between two timers,
   * pending I/O callbacks and promise continuations run, so a timer armed by an async step inside the window fires
   * in it too.
   */
  async tick(ms: number): Promise<void> {
    const end = this.current + Math.max(0, ms);
    do await settle();
    while (this.fireNext(end));
    this.current = end;
    await settle();
  }

  /** Fires the earliest timer due by `end` (the first armed among equals); false when none is. */
  private fireNext(end: number): boolean {
    let dueHandle: object | undefined;
    let due: ManualTimer | undefined;
    for (const [handle, t] of this.timers) {
      if (t.at > end) continue;
      if (!due || t.at < due.at || (t.at === due.at && t.order < due.order)) {
        due = t;
        dueHandle = handle;
      }
    }
    if (!due || !dueHandle) return false;
    this.timers.delete(dueHandle);
    this.current = Math.max(this.current, due.at);
    due.fn();
    return true;
  }
}

/** Lets already-queued I/O callbacks, immediates and promise continuations run (a few rounds of the event loop). */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}
