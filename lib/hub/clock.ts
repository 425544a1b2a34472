/**
 * Time for the client, injected: every timeout, backoff and expiry of lib/hub reads `now()` and arms timers through
 * one `Clock`, so tests (and simulations) drive time instead of waiting for it.
 */

export type TimerHandle = { readonly __timer: unique symbol } | object;

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
    if (handle !== undefined) this.timers.delete(handle);
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
    for (;;) {
      let dueHandle: object | undefined;
      let due: ManualTimer | undefined;
      for (const [handle, t] of this.timers) {
        if (t.at > end) continue;
        if (!due || t.at < due.at || (t.at === due.at && t.order < due.order)) {
          due = t;
          dueHandle = handle;
        }
      }
      if (!due || !dueHandle) break;
      this.timers.delete(dueHandle);
      this.current = Math.max(this.current, due.at);
      due.fn();
    }
    this.current = end;
  }
}
