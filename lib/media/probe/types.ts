/** What a header probe can tell about a file without decoding it: pixels and milliseconds (§10.3 units). */
export interface MediaFacts {
  width?: number;
  height?: number;
  duration?: number;
}

/** A positive whole number of pixels, or nothing. */
export function pixels(value: number | undefined): number | undefined {
  return value !== undefined && Number.isInteger(value) && value > 0 && value <= 1_000_000 ? value : undefined;
}

/** A duration in whole milliseconds from a count of units at a rate, or nothing when either is unusable. */
export function millis(units: number | undefined, perSecond: number | undefined): number | undefined {
  if (units === undefined || perSecond === undefined || !Number.isFinite(units) || !Number.isFinite(perSecond)) return undefined;
  if (units < 0 || perSecond <= 0) return undefined;
  const ms = Math.round((units * 1000) / perSecond);
  // Anything past a year is a corrupt header, not a recording.
  return ms > 0 && ms < 366 * 24 * 3600 * 1000 ? ms : undefined;
}
