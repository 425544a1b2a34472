/**
 * A value from a message, as an error message may quote it: `String(x)` makes every object `[object Object]`, which
 * tells the user nothing about what they sent. Strings come back as they are, other primitives as `String` writes
 * them, objects and arrays as JSON, cut to `max` characters.
 */
export function quoteValue(value: unknown, max = 80): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return typeof value === 'symbol' ? value.toString() : `${value as number | boolean | bigint | undefined}`;
  let json: string;
  try {
    json = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? '';
  } catch {
    return Object.prototype.toString.call(value);
  }
  return json.length > max ? `${json.slice(0, max - 1)}…` : json;
}
