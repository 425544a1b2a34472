/**
 * The one delay curve behind every retry of the project (hub reconnects, radio reconnects, media uploads):
 * exponential from `initialMs` by `factor`, capped at `maxMs`, then lowered by up to `jitter` of itself with one
 * random draw, so that a site that lost its hub, broker or adapter all at once does not come back all at once.
 * Pure, and safe for any attempt count: a growth that overflows lands on the cap, never on NaN or a loop.
 */
export interface DelayCurve {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** Fraction in [0, 1] of each delay that is randomized. */
  jitter: number;
}

/**
 * Milliseconds (not rounded) before retry `attempt` (0 for the first).
 * @param random a draw in [0, 1]: 0 gives the full delay, 1 the most jitter takes off
 */
export function jitteredDelay(attempt: number, curve: DelayCurve, random: number): number {
  const n = Math.max(0, Math.floor(Number.isFinite(attempt) ? attempt : 0));
  const r = Math.min(Math.max(Number.isFinite(random) ? random : 0.5, 0), 1);
  const exponential = Math.min(curve.maxMs, curve.initialMs * Math.pow(curve.factor, Math.min(n, 1024)));
  return exponential * (1 - curve.jitter * r);
}
