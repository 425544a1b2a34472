/**
 * The project's one way to write a configuration schema: JSON Schema draft-07 objects written `as const satisfies
 * JsonSchema`, so that Ajv checks them at run time and `FromSchema` (json-schema-to-ts, types only) derives the
 * TypeScript type from the same object: a setting is declared once, with its type, default, bounds and description.
 */
export type JsonSchema = Record<string, unknown>;

/** A string setting that may be null, null by default; `extra` adds bounds. Literal types stay for `FromSchema`. */
export const nullableString = <const E extends object = object>(description: string, extra?: E) =>
  ({ type: ['string', 'null'], default: null, description, ...(extra as E) }) as const;

/** A setting's path as a person reads it in YAML: `mqtt.tls.ca`, `radios[1].peers[0].mtu`; the root is `(root)`. */
export function formatPath(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return out || '(root)';
}
