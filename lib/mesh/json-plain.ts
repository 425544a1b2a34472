/**
 * JSON text → plain JavaScript values, losslessly: what the CLI and the `mesh-encode` node read when a message
 * arrives as text. `JSON.parse` would round a `lamport_clock` above 2^53 and keep only the last of two equal keys;
 * here integers beyond 15 digits stay `bigint`, a repeated key anywhere is refused (`JSON_DUPLICATE_KEY`: in
 * application input it is a mistake, never a meaning), and `__proto__` is an ordinary own property.
 */
import { MeshDecodeError } from './errors';
import { JsonFloat, JsonObject, type JsonValue, parseJson } from './json-parse';
import { setOwn } from './plain';

function toPlainValue(value: JsonValue, path: string): unknown {
  if (value instanceof JsonFloat) return value.value;
  if (Array.isArray(value)) return value.map((v, i) => toPlainValue(v, `${path}[${i}]`));
  if (value instanceof JsonObject) {
    const out: Record<string, unknown> = {};
    const seen = new Set<string>();
    for (let i = 0; i < value.keys.length; i++) {
      const key = value.keys[i];
      const where = path === '' ? key : `${path}.${key}`;
      if (seen.has(key)) throw new MeshDecodeError('JSON_DUPLICATE_KEY', `${where} appears twice`, { field: where });
      seen.add(key);
      setOwn(out, key, toPlainValue(value.values[i], where));
    }
    return out;
  }
  return value;
}

/** Parses UTF-8 JSON bytes or a string. Throws `MeshDecodeError` (JSON_SYNTAX, JSON_DUPLICATE_KEY, …). */
export function parseJsonPlain(input: Uint8Array | string): unknown {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  return toPlainValue(parseJson(bytes), '');
}
