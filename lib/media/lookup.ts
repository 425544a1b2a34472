/**
 * Table lookups keyed by outside text (a file extension, a MIME type, a hub's `kind`). A plain `table[key]` answers
 * `constructor` or `__proto__` with something from Object.prototype, so a file called `x.constructor` would crash
 * the caller; this answers only the table's own entries.
 */
export function own<V>(table: Readonly<Record<string, V>>, key: string | number): V | undefined {
  return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
}
