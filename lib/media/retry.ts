/**
 * When to try an upload again, and how long to wait. Only the classes §15.6 marks as passing — a network failure,
 * a 5xx, `503 storage not configured` ("retry after operator fix") — are retried; a 4xx is an answer about this
 * request and repeating it cannot change it. Delays grow exponentially with jitter, so that many gateways cut off
 * together do not come back in step, and a `Retry-After` from the server is honoured up to the cap.
 */
import { jitteredDelay } from '../backoff';
import { systemClock, type Clock } from '../clock';
import { MediaError } from './errors';

export interface RetryOptions {
  /** Attempts after the first; 0 disables retrying. Default 2. */
  retries?: number;
  /** Delay before the first retry, before jitter. Default 500 ms. */
  baseDelayMs?: number;
  /** Upper bound of any one delay. Default 10 s. */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY: Readonly<Required<RetryOptions>> = Object.freeze({ retries: 2, baseDelayMs: 500, maxDelayMs: 10_000 });

export function resolveRetry(options: RetryOptions | false | undefined): Required<RetryOptions> {
  if (options === false) return { ...DEFAULT_RETRY, retries: 0 };
  const merged = { ...DEFAULT_RETRY, ...(options ?? {}) };
  for (const [key, value] of Object.entries(merged)) {
    if (!Number.isInteger(value) || value < 0) throw new MediaError('BAD_OPTIONS', `retry.${key} must be a whole number ≥ 0, got ${String(value)}`);
  }
  return merged;
}

/**
 * Delay before retry number `retry` (1 for the first): `base · 2^(retry-1)`, capped, then drawn uniformly from its
 * upper half. `retryAfterMs` (from the server) raises it, within the same cap.
 */
export function backoffDelay(retry: number, options: Required<RetryOptions>, retryAfterMs?: number, random: () => number = Math.random): number {
  // "Its upper half": the full delay less up to half of it, drawn the other way round.
  const jittered = jitteredDelay(retry - 1, { initialMs: options.baseDelayMs, maxMs: options.maxDelayMs, factor: 2, jitter: 0.5 }, 1 - random());
  const floor = retryAfterMs === undefined ? 0 : Math.min(retryAfterMs, options.maxDelayMs);
  return Math.round(Math.max(jittered, floor));
}

/** `Retry-After` as delay-seconds or an HTTP date, in milliseconds from `now`. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function abortError(signal: AbortSignal | undefined): MediaError {
  const reason: unknown = signal?.reason;
  // Our own deadline aborts with the error to report.
  if (reason instanceof MediaError) return reason;
  const why = reason instanceof Error && reason.name !== 'AbortError' ? `: ${reason.message}` : '';
  return new MediaError('ABORTED', `upload cancelled${why}`, {}, { cause: reason });
}

/** Waits `ms`, or rejects with `ABORTED` as soon as the signal fires. */
export function sleep(ms: number, signal?: AbortSignal, clock: Clock = systemClock): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const onAbort = (): void => {
      clock.clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
