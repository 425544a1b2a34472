/**
 * JSON readers and writers shared by both codecs (mesh-reference-facts.md §1 table; §2 "Rich structures ride as
 * opaque JSON blobs"). The JSON floor embeds media metadata, forward attribution and reply context as nested
 * objects; binary v1 carries the very same JSON text as byte blobs. One reader and one writer per structure keeps
 * the two paths identical, down to the error codes.
 *
 * Readers only map JSON types onto the model's types (integers to `bigint` or `number`, `null` to absent where the
 * reference's field is an `Option`); ranges, identifiers and UUIDs are checked once, in `createMessage`.
 * Writers render serde_json's compact output: declaration order, absent optionals left out.
 */
import { MeshDecodeError } from './errors';
import { JsonFloat, JsonObject, type JsonValue } from './json-parse';
import { MEDIA_TEXT_KEYS, type ForwardedFrom, type MediaMetadata, type ReplyContext } from './message';

function typeName(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof JsonObject) return 'an object';
  if (value instanceof JsonFloat) return 'a non-integer number';
  if (typeof value === 'bigint') return 'a number';
  return `a ${typeof value}`;
}

export function typeError(field: string, expected: string, value: JsonValue): MeshDecodeError {
  return new MeshDecodeError('BAD_FIELD_TYPE', `${field} must be ${expected}, got ${typeName(value)}`, { field });
}

export function missingField(field: string): MeshDecodeError {
  return new MeshDecodeError('MISSING_FIELD', `${field} is missing`, { field });
}

/**
 * The known keys of a JSON object, as serde's derived struct reader sees them: a known key given twice rejects
 * the object (`JSON_DUPLICATE_KEY`), unknown keys are ignored, repeats included.
 */
export function readStruct(value: JsonValue, field: string, known: ReadonlySet<string>): Map<string, JsonValue> {
  if (!(value instanceof JsonObject)) throw typeError(field, 'an object', value);
  const out = new Map<string, JsonValue>();
  const { keys, values } = value;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (!known.has(key)) continue;
    if (out.has(key)) {
      const path = field === '' ? key : `${field}.${key}`;
      throw new MeshDecodeError('JSON_DUPLICATE_KEY', `${path} appears twice`, { field: path });
    }
    out.set(key, values[i]);
  }
  return out;
}

export function jsonString(value: JsonValue, field: string): string {
  if (typeof value !== 'string') throw typeError(field, 'a string', value);
  return value;
}

/** Any integer token, as a bigint; the caller's type decides the range. */
export function jsonInteger(value: JsonValue, field: string): bigint {
  if (typeof value === 'number') return BigInt(value);
  if (typeof value === 'bigint') return value;
  throw typeError(field, 'an integer', value);
}

/** An integer for a u8/u32 field; more than 15 digits is out of range for either. */
export function jsonSmallInteger(value: JsonValue, field: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') throw new MeshDecodeError('NUMBER_OUT_OF_RANGE', `${field} is out of range`, { field });
  throw typeError(field, 'an integer', value);
}

function required(map: Map<string, JsonValue>, key: string, field: string): JsonValue {
  const value = map.get(key);
  if (value === undefined) throw missingField(`${field}.${key}`);
  return value;
}

/** `undefined` when absent or null (an `Option` field of the reference). */
function optional(map: Map<string, JsonValue>, key: string): JsonValue | undefined {
  const value = map.get(key);
  return value === null ? undefined : value;
}

const MEDIA_KEYS: ReadonlySet<string> = new Set(['mime_type', 'file_name', 'file_size', 'duration_ms', 'width', 'height', ...MEDIA_TEXT_KEYS]);

export function readMediaMetadata(value: JsonValue, field = 'media_metadata'): MediaMetadata {
  const m = readStruct(value, field, MEDIA_KEYS);
  const out: MediaMetadata = {
    mime_type: jsonString(required(m, 'mime_type', field), `${field}.mime_type`),
    file_name: jsonString(required(m, 'file_name', field), `${field}.file_name`),
    file_size: jsonInteger(required(m, 'file_size', field), `${field}.file_size`),
  };
  const duration = optional(m, 'duration_ms');
  if (duration !== undefined) out.duration_ms = jsonInteger(duration, `${field}.duration_ms`);
  const width = optional(m, 'width');
  if (width !== undefined) out.width = jsonSmallInteger(width, `${field}.width`);
  const height = optional(m, 'height');
  if (height !== undefined) out.height = jsonSmallInteger(height, `${field}.height`);
  for (const key of MEDIA_TEXT_KEYS) {
    const v = optional(m, key);
    if (v !== undefined) out[key] = jsonString(v, `${field}.${key}`);
  }
  return out;
}

const FORWARD_KEYS: ReadonlySet<string> = new Set(['original_sender', 'original_message_id', 'original_timestamp', 'forward_count']);

export function readForwardedFrom(value: JsonValue, field = 'forwarded_from'): ForwardedFrom {
  const f = readStruct(value, field, FORWARD_KEYS);
  return {
    original_sender: jsonString(required(f, 'original_sender', field), `${field}.original_sender`),
    original_message_id: jsonString(required(f, 'original_message_id', field), `${field}.original_message_id`),
    original_timestamp: jsonInteger(required(f, 'original_timestamp', field), `${field}.original_timestamp`),
    forward_count: jsonSmallInteger(required(f, 'forward_count', field), `${field}.forward_count`),
  };
}

const REPLY_KEYS: ReadonlySet<string> = new Set(['sender', 'text', 'timestamp', 'reply_media_label', 'reply_content_type']);

export function readReplyContext(value: JsonValue, field = 'reply_context'): ReplyContext {
  const r = readStruct(value, field, REPLY_KEYS);
  const out: ReplyContext = {
    sender: jsonString(required(r, 'sender', field), `${field}.sender`),
    text: jsonString(required(r, 'text', field), `${field}.text`),
  };
  const timestamp = optional(r, 'timestamp');
  if (timestamp !== undefined) out.timestamp = jsonInteger(timestamp, `${field}.timestamp`);
  const label = optional(r, 'reply_media_label');
  if (label !== undefined) out.reply_media_label = jsonString(label, `${field}.reply_media_label`);
  const type = optional(r, 'reply_content_type');
  if (type !== undefined) out.reply_content_type = jsonString(type, `${field}.reply_content_type`);
  return out;
}

/** serde_json's string escaping equals JSON.stringify's for every well-formed string (lowercase `\u00xx`, 0x7F raw). */
export const jsonText = JSON.stringify as (value: string) => string;

/**
 * Media metadata as it may leave this process: `encryption_key` and `iv` are removed on every cleartext frame,
 * whichever codec carries it (mesh-reference-facts.md §1, `sanitize_for_wire`).
 */
export function writeMediaMetadataJson(m: MediaMetadata): string {
  let out = `{"mime_type":${jsonText(m.mime_type)},"file_name":${jsonText(m.file_name)},"file_size":${m.file_size}`;
  if (m.duration_ms !== undefined) out += `,"duration_ms":${m.duration_ms}`;
  if (m.width !== undefined) out += `,"width":${m.width}`;
  if (m.height !== undefined) out += `,"height":${m.height}`;
  for (const key of MEDIA_TEXT_KEYS) {
    if (key === 'encryption_key' || key === 'iv') continue;
    const v = m[key];
    if (v !== undefined) out += `,"${key}":${jsonText(v)}`;
  }
  return out + '}';
}

export function writeForwardedFromJson(f: ForwardedFrom): string {
  return (
    `{"original_sender":${jsonText(f.original_sender)},"original_message_id":${jsonText(f.original_message_id)},` +
    `"original_timestamp":${f.original_timestamp},"forward_count":${f.forward_count}}`
  );
}

export function writeReplyContextJson(r: ReplyContext): string {
  let out = `{"sender":${jsonText(r.sender)},"text":${jsonText(r.text)}`;
  if (r.timestamp !== undefined) out += `,"timestamp":${r.timestamp}`;
  if (r.reply_media_label !== undefined) out += `,"reply_media_label":${jsonText(r.reply_media_label)}`;
  if (r.reply_content_type !== undefined) out += `,"reply_content_type":${jsonText(r.reply_content_type)}`;
  return out + '}';
}
