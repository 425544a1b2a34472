/**
 * Reconnect delays: exponential with jitter, capped, reset after a success.
 *
 * Jitter matters on a real site: after a power cut every radio and every phone comes back at once, and
 * synchronised retries would collide on the one adapter. The random source is injected so tests are exact.
 */
import { jitteredDelay } from '../../lib/backoff';

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Growth per attempt; default 2. */
  factor?: number;
  /** Fraction of the delay drawn at random, 0–1; default 0.2 (delay × [0.8, 1.0]). */
  jitter?: number;
  random?: () => number;
}

export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #factor: number;
  readonly #jitter: number;
  readonly #random: () => number;
  #attempt = 0;

  constructor(options: BackoffOptions) {
    this.#initialMs = Math.max(0, options.initialMs);
    this.#maxMs = Math.max(this.#initialMs, options.maxMs);
    this.#factor = options.factor ?? 2;
    this.#jitter = Math.min(1, Math.max(0, options.jitter ?? 0.2));
    this.#random = options.random ?? Math.random;
  }

  /** Attempts since the last reset. */
  get attempt(): number {
    return this.#attempt;
  }

  /** The delay before the next attempt; each call counts one attempt. */
  next(): number {
    const delay = jitteredDelay(this.#attempt, { initialMs: this.#initialMs, maxMs: this.#maxMs, factor: this.#factor, jitter: this.#jitter }, this.#random());
    this.#attempt += 1;
    return Math.round(delay);
  }

  reset(): void {
    this.#attempt = 0;
  }
}
