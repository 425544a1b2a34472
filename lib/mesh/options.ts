/**
 * Checks for the numeric options of the stateful helpers (reassemblers, deduplicators). A bad option is a
 * configuration mistake, reported with code `BAD_OPTION` and the option's name, never silently replaced by a default.
 */
import { MeshError } from './errors';

export function positiveIntegerOption(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new MeshError('BAD_OPTION', `${name} must be a positive integer`, { option: name, value });
  }
  return value;
}

export function nonNegativeOption(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new MeshError('BAD_OPTION', `${name} must be a non-negative number`, { option: name, value });
  }
  return value;
}

/** Milliseconds from a fixed origin that never jumps with the wall clock. */
export function monotonicNow(): number {
  return performance.now();
}
