/**
 * The reconnect delay, as a pure function of the attempt number, why the last connection ended, the policy and one
 * random draw (guide §3.5, §3.6, §14.1):
 *
 * - exponential from `initialMs` by `multiplier`, capped at `maxMs` (30 s);
 * - jittered down by up to `jitter` of itself, so a fleet that lost the hub together does not return together;
 * - after a takeover (close 4001) or an unexplained close of a session that had reached `hello-ok`, at least
 *   `takeoverFloorMs` (5 s) plus its own jitter, so two instances of one device cannot evict each other in a tight loop;
 * - never zero: even the first retry waits, whatever the server does.
 *
 * `"authentication failed"` is not a delay: the client stops (see client.ts); every other hello-fail reason lands here.
 */
import { jitteredDelay } from '../backoff';
import { HubError } from './errors';

/** Why the previous connection ended. */
export type CloseCause =
  /** The socket never opened (refused, DNS, TLS). */
  | 'unreachable'
  /** Closed before `hello-ok`/`hello-fail`: a duplicate-session collision or the handshake timeout (§3.3). */
  | 'no-hello'
  /** A `hello-fail` with a transient reason (anything but exactly "authentication failed"). */
  | 'hello-fail'
  /** Close code 4001: a newer session of this device took over (§3.6). */
  | 'takeover'
  /** A session that had reached `hello-ok` closed without explanation (kick, backpressure, network). */
  | 'lost-session'
  /** This client closed the session on purpose: density violation, dead-socket probe, `device.cursor.reset`. */
  | 'client-closed';

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  multiplier: number;
  /** Fraction in [0, 1] of each delay that is randomized. */
  jitter: number;
  /** The raised floor after `takeover` and `lost-session`. */
  takeoverFloorMs: number;
}

export const DEFAULT_BACKOFF: Readonly<BackoffPolicy> = Object.freeze({
  initialMs: 1000,
  maxMs: 30_000,
  multiplier: 2,
  jitter: 0.5,
  takeoverFloorMs: 5000,
});

export function resolveBackoffPolicy(partial: Partial<BackoffPolicy> = {}): BackoffPolicy {
  const policy: BackoffPolicy = { ...DEFAULT_BACKOFF, ...stripUndefined(partial) };
  const bad = (what: string): never => {
    throw new HubError('BAD_OPTIONS', `backoff.${what}`, { backoff: policy });
  };
  if (!(Number.isFinite(policy.initialMs) && policy.initialMs >= 1)) bad('initialMs must be at least 1 ms');
  if (!(Number.isFinite(policy.maxMs) && policy.maxMs >= policy.initialMs)) bad('maxMs must be at least initialMs');
  if (!(Number.isFinite(policy.multiplier) && policy.multiplier >= 1)) bad('multiplier must be at least 1');
  if (!(Number.isFinite(policy.jitter) && policy.jitter >= 0 && policy.jitter <= 1)) bad('jitter must be between 0 and 1');
  if (!(Number.isFinite(policy.takeoverFloorMs) && policy.takeoverFloorMs >= 0 && policy.takeoverFloorMs <= policy.maxMs)) {
    bad('takeoverFloorMs must be between 0 and maxMs');
  }
  return policy;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** True for the causes that raise the floor (§3.6). */
export function raisesFloor(cause: CloseCause): boolean {
  return cause === 'takeover' || cause === 'lost-session';
}

/**
 * Milliseconds to wait before the next connection attempt.
 * @param attempt consecutive failed attempts since the last `hello-ok` (0 for the first retry)
 * @param random a draw in [0, 1)
 */
export function backoffDelay(attempt: number, cause: CloseCause, policy: BackoffPolicy, random: number): number {
  const r = Math.min(Math.max(Number.isFinite(random) ? random : 0.5, 0), 1);
  let delay = jitteredDelay(attempt, { initialMs: policy.initialMs, maxMs: policy.maxMs, factor: policy.multiplier, jitter: policy.jitter }, r);
  if (raisesFloor(cause)) delay = Math.max(delay, policy.takeoverFloorMs * (1 + policy.jitter * r));
  return Math.max(1, Math.round(Math.min(delay, policy.maxMs)));
}
