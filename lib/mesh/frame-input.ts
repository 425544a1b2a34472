/**
 * The bytes of a frame (or fragment) as flows and scripts hand them over: a Buffer or any Uint8Array as is; a
 * string either as JSON floor text (it starts with `{` after optional whitespace, which base64 never does) or
 * as canonical standard base64 (MQTT and HTTP bodies often carry binary that way). Anything else is refused with
 * `NOT_BYTES`, a non-canonical base64 string with `BAD_BASE64`.
 */
import { fromBase64Canonical } from '../bytes';
import { MeshDecodeError } from './errors';

const JSON_START = /^[ \t\r\n]*\{/;

export function frameBytesFromInput(value: unknown, what = 'payload'): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') {
    if (JSON_START.test(value)) return Buffer.from(value, 'utf8');
    const bytes = fromBase64Canonical(value.trim());
    if (bytes === undefined) {
      throw new MeshDecodeError('BAD_BASE64', `${what} is a string but neither JSON floor text nor canonical base64`, { field: what });
    }
    return bytes;
  }
  throw new MeshDecodeError('NOT_BYTES', `${what} must be a Buffer, a Uint8Array or a base64 string, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`, {
    field: what,
  });
}
