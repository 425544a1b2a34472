/**
 * The plain-object form of a message: what Node-RED flows see in `msg.payload` and what the CLI reads and writes.
 *
 * Field names are the JSON floor's. What changes is only what JavaScript needs: ids are strings (lowercase
 * hyphenated on output, any accepted UUID spelling on input); 64-bit integers come out as a `number` when they are
 * safe integers and as a `bigint` otherwise, and go in as a number, a bigint or a decimal string; `binary_content`
 * is a Buffer (also accepted: any Uint8Array, an array of byte values, or Node-RED's `{type:'Buffer',data:[…]}`);
 * `metadata` is a plain object (a Map is accepted too). Input follows the JSON floor's rules otherwise: `null`
 * means absent only for the optional fields, unknown content types become `file`, priority is the closed set,
 * unknown keys are ignored.
 */
import { contentTypeFromName, priorityFromName } from './enums';
import { MeshDecodeError } from './errors';
import {
  createMessage,
  MEDIA_TEXT_KEYS,
  type ContentType,
  type ForwardedFrom,
  type MediaMetadata,
  type MeshMessage,
  type MessageFields,
  type MessageIdLike,
  type Priority,
  type ReplyContext,
} from './message';
import { MessageId } from './message-id';

export type PlainInteger = number | bigint;

/** `T` with every 64-bit field (a `bigint` in the message) as a `PlainInteger`; optional fields stay optional. */
export type WithPlainIntegers<T> = { [K in keyof T]: Exclude<T[K], undefined> extends bigint ? PlainInteger : T[K] };

export type PlainMediaMetadata = WithPlainIntegers<MediaMetadata>;
export type PlainForwardedFrom = WithPlainIntegers<ForwardedFrom>;
export type PlainReplyContext = WithPlainIntegers<ReplyContext>;

/** What `toPlain` returns; keys in JSON floor order. */
export interface PlainMessage {
  id: string;
  sender: string;
  recipient: string;
  app_id: string;
  priority: Priority;
  ttl: number;
  hop_count: number;
  timestamp: PlainInteger;
  lamport_clock: PlainInteger;
  content_type: ContentType;
  content: string;
  binary_content?: Buffer;
  media_metadata?: PlainMediaMetadata;
  metadata: Record<string, string>;
  requires_ack: boolean;
  reply_to_msg: string | null;
  forwarded_from?: PlainForwardedFrom;
  reply_context?: PlainReplyContext;
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A bigint as a number when that loses nothing. */
export function plainInteger(value: bigint): PlainInteger {
  return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Sets an own property even for `__proto__`, which plain assignment would turn into a prototype change. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function plainMedia(m: MediaMetadata): PlainMediaMetadata {
  const out: PlainMediaMetadata = { mime_type: m.mime_type, file_name: m.file_name, file_size: plainInteger(m.file_size) };
  if (m.duration_ms !== undefined) out.duration_ms = plainInteger(m.duration_ms);
  if (m.width !== undefined) out.width = m.width;
  if (m.height !== undefined) out.height = m.height;
  for (const key of MEDIA_TEXT_KEYS) {
    const v = m[key];
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/**
 * The plain form of a message. `binary_content` is a Buffer sharing memory with the message's bytes (which, after
 * a binary decode, share memory with the frame).
 */
export function toPlain(m: MeshMessage): PlainMessage {
  const metadata: Record<string, string> = {};
  for (const [key, value] of m.metadata) setOwn(metadata, key, value);
  // Keys in JSON floor order, so that a debug view or JSON.stringify reads like the wire.
  const ordered: PlainMessage = {
    id: m.id.toString(),
    sender: m.sender,
    recipient: m.recipient,
    app_id: m.app_id,
    priority: m.priority,
    ttl: m.ttl,
    hop_count: m.hop_count,
    timestamp: plainInteger(m.timestamp),
    lamport_clock: plainInteger(m.lamport_clock),
    content_type: m.content_type,
    content: m.content,
    ...(m.binary_content === undefined ? {} : { binary_content: asBuffer(m.binary_content) }),
    ...(m.media_metadata === undefined ? {} : { media_metadata: plainMedia(m.media_metadata) }),
    metadata,
    requires_ack: m.requires_ack,
    reply_to_msg: m.reply_to_msg === undefined ? null : m.reply_to_msg.toString(),
  };
  if (m.forwarded_from !== undefined) {
    const f = m.forwarded_from;
    ordered.forwarded_from = {
      original_sender: f.original_sender,
      original_message_id: f.original_message_id,
      original_timestamp: plainInteger(f.original_timestamp),
      forward_count: f.forward_count,
    };
  }
  if (m.reply_context !== undefined) {
    const r = m.reply_context;
    const rc: PlainReplyContext = { sender: r.sender, text: r.text };
    if (r.timestamp !== undefined) rc.timestamp = plainInteger(r.timestamp);
    if (r.reply_media_label !== undefined) rc.reply_media_label = r.reply_media_label;
    if (r.reply_content_type !== undefined) rc.reply_content_type = r.reply_content_type;
    ordered.reply_context = rc;
  }
  return ordered;
}

function fieldError(code: string, field: string, message: string): MeshDecodeError {
  return new MeshDecodeError(code, `${field} ${message}`, { field });
}

const DECIMAL = /^-?(?:0|[1-9][0-9]*)$/;

/** A number (safe integers only), a bigint, or a decimal string, as a bigint. */
export function integerInput(value: unknown, field: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return BigInt(value);
    if (Number.isInteger(value)) throw fieldError('BAD_FIELD_TYPE', field, 'is beyond 2^53 as a number; pass a bigint or a decimal string');
    throw fieldError('BAD_FIELD_TYPE', field, 'must be an integer');
  }
  if (typeof value === 'string' && DECIMAL.test(value)) return BigInt(value);
  if (value === undefined) throw fieldError('MISSING_FIELD', field, 'is missing');
  throw fieldError('BAD_FIELD_TYPE', field, 'must be an integer (number, bigint or decimal string)');
}

function smallInteger(value: unknown, field: string): number {
  const n = integerInput(value, field);
  if (n < MIN_SAFE || n > MAX_SAFE) throw fieldError('NUMBER_OUT_OF_RANGE', field, 'is out of range');
  return Number(n);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function record(value: unknown, field: string): Record<string, unknown> {
  if (!isRecord(value)) throw fieldError('BAD_FIELD_TYPE', field, 'must be an object');
  return value;
}

function byteArray(values: unknown[], field: string): Uint8Array {
  const out = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== 'number' || !Number.isInteger(v)) throw fieldError('BAD_FIELD_TYPE', `${field}[${i}]`, 'must be an integer 0..255');
    if (v < 0 || v > 255) throw fieldError('NUMBER_OUT_OF_RANGE', `${field}[${i}]`, 'is not a byte');
    out[i] = v;
  }
  return out;
}

/** Buffer / Uint8Array / number[] / `{type:'Buffer',data:[…]}`; a string is refused (no implicit base64). */
export function bytesInput(value: unknown, field: string): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return byteArray(value, field);
  if (isRecord(value) && value.type === 'Buffer' && Array.isArray(value.data)) return byteArray(value.data, field);
  throw fieldError('BAD_FIELD_TYPE', field, 'must be a Buffer, a Uint8Array or an array of byte values');
}

function idInput(value: unknown, field: string): MessageIdLike {
  if (typeof value === 'string') {
    try {
      return MessageId.parse(value);
    } catch (err) {
      if (err instanceof MeshDecodeError) throw new MeshDecodeError(err.code, `${field}: ${err.message}`, { field });
      throw err;
    }
  }
  if (isRecord(value) && (value as { bytes?: unknown }).bytes instanceof Uint8Array) return value as unknown as MessageIdLike;
  if (value === undefined) throw fieldError('MISSING_FIELD', field, 'is missing');
  throw fieldError('BAD_FIELD_TYPE', field, 'must be a UUID string');
}

function mediaInput(value: unknown): MediaMetadata {
  const m = record(value, 'media_metadata');
  const out = {
    mime_type: m.mime_type,
    file_name: m.file_name,
    file_size: integerInput(m.file_size, 'media_metadata.file_size'),
  } as MediaMetadata;
  if (m.duration_ms != null) out.duration_ms = integerInput(m.duration_ms, 'media_metadata.duration_ms');
  if (m.width != null) out.width = smallInteger(m.width, 'media_metadata.width');
  if (m.height != null) out.height = smallInteger(m.height, 'media_metadata.height');
  for (const key of MEDIA_TEXT_KEYS) if (m[key] != null) out[key] = m[key] as string;
  return out;
}

function forwardedInput(value: unknown): ForwardedFrom {
  const f = record(value, 'forwarded_from');
  const id = f.original_message_id;
  return {
    original_sender: f.original_sender as string,
    original_message_id: (typeof id === 'string' || id === undefined ? id : idInput(id, 'forwarded_from.original_message_id').toString()) as string,
    original_timestamp: integerInput(f.original_timestamp, 'forwarded_from.original_timestamp'),
    forward_count: smallInteger(f.forward_count, 'forwarded_from.forward_count'),
  };
}

function replyInput(value: unknown): ReplyContext {
  const r = record(value, 'reply_context');
  const out = { sender: r.sender, text: r.text } as ReplyContext;
  if (r.timestamp != null) out.timestamp = integerInput(r.timestamp, 'reply_context.timestamp');
  if (r.reply_media_label != null) out.reply_media_label = r.reply_media_label as string;
  if (r.reply_content_type != null) out.reply_content_type = r.reply_content_type as string;
  return out;
}

function metadataInput(value: unknown): Map<string, string> | Record<string, string> {
  if (value instanceof Map) return new Map(value as Map<string, string>);
  return record(value, 'metadata') as Record<string, string>;
}

/** Values used where plain input leaves a field out; without them such a field is `MISSING_FIELD`. */
export interface PlainDefaults {
  id: () => MessageIdLike;
  priority: Priority;
  ttl: number;
  hop_count: number;
  timestamp: () => bigint;
}

/** The message fields of a plain object, before `createMessage`'s checks. */
export function plainFields(value: unknown, defaults?: PlainDefaults): MessageFields {
  const p = record(value, 'message');
  const priorityName = p.priority;
  let priority: Priority;
  if (priorityName === undefined && defaults) priority = defaults.priority;
  else if (typeof priorityName === 'string') {
    const known = priorityFromName(priorityName);
    if (known === undefined) throw fieldError('UNKNOWN_PRIORITY', 'priority', `${JSON.stringify(priorityName)} is not low, medium, high or critical`);
    priority = known;
  } else if (priorityName === undefined) throw fieldError('MISSING_FIELD', 'priority', 'is missing');
  else throw fieldError('BAD_FIELD_TYPE', 'priority', 'must be a string');

  const timestamp = p.timestamp instanceof Date ? BigInt(p.timestamp.getTime()) : p.timestamp;
  const fields: MessageFields = {
    id: p.id === undefined && defaults ? defaults.id() : idInput(p.id, 'id'),
    sender: p.sender as string,
    recipient: p.recipient as string,
    app_id: p.app_id as string,
    priority,
    ttl: p.ttl === undefined && defaults ? defaults.ttl : smallInteger(p.ttl, 'ttl'),
    hop_count: p.hop_count === undefined && defaults ? defaults.hop_count : smallInteger(p.hop_count, 'hop_count'),
    timestamp: timestamp === undefined && defaults ? defaults.timestamp() : integerInput(timestamp, 'timestamp'),
    content: p.content as string,
  };
  if (p.lamport_clock !== undefined) fields.lamport_clock = integerInput(p.lamport_clock, 'lamport_clock');
  if (p.content_type !== undefined) {
    if (typeof p.content_type !== 'string') throw fieldError('BAD_FIELD_TYPE', 'content_type', 'must be a string');
    fields.content_type = contentTypeFromName(p.content_type);
  }
  if (p.binary_content != null) fields.binary_content = bytesInput(p.binary_content, 'binary_content');
  if (p.media_metadata != null) fields.media_metadata = mediaInput(p.media_metadata);
  if (p.metadata !== undefined) fields.metadata = metadataInput(p.metadata);
  if (p.requires_ack !== undefined) fields.requires_ack = p.requires_ack as boolean;
  if (p.reply_to_msg != null) fields.reply_to_msg = idInput(p.reply_to_msg, 'reply_to_msg');
  if (p.forwarded_from != null) fields.forwarded_from = forwardedInput(p.forwarded_from);
  if (p.reply_context != null) fields.reply_context = replyInput(p.reply_context);
  return fields;
}

/**
 * A message from its plain form, every field given (as on the wire). Reserved metadata keys pass: this is the
 * protocol-level reader; applications go through `composeMessage`. Throws `MeshDecodeError`.
 */
export function fromPlain(value: unknown): MeshMessage {
  return createMessage(plainFields(value));
}
