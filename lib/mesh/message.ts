/**
 * The abstract mesh message (mesh-message-wire.md, "Every frame the protocol puts on a transport is one message").
 *
 * One shape for every encoding: the JSON floor and binary wire v1 both decode into `MeshMessage` through the same
 * validating constructor, so the identifier rules and the Lamport clamp cannot differ between the two paths.
 * 64-bit integers are `bigint` end to end; `number` would silently lose precision above 2^53.
 *
 * `createMessage` is that constructor: the JSON floor, binary v1, the plain-object form and the protocol builders
 * (acks, chunks, control) all end in it. The transport peer identity and the codec choice are deliberately not
 * fields here (mesh-message-wire.md, "Two further fields"): they travel beside a message, never inside it.
 */
import { MeshDecodeError } from './errors';
import { checkIdentifier } from './identifier';
import { isContentType, isPriority, type ContentType, type Priority } from './enums';
import { MessageId, type MessageIdLike } from './message-id';

export type { ContentType, Priority } from './enums';
export type { MessageIdLike } from './message-id';

export interface MediaMetadata {
  mime_type: string;
  file_name: string;
  file_size: bigint;
  duration_ms?: bigint;
  width?: number;
  height?: number;
  thumbnail_base64?: string;
  media_id?: string;
  download_url?: string;
  thumbnail_url?: string;
  encryption_key?: string;
  iv?: string;
  ciphertext_hash?: string;
  sticker_provider?: string;
  sticker_remote_id?: string;
  sticker_kind?: string;
}

export interface ForwardedFrom {
  original_sender: string;
  original_message_id: string;
  original_timestamp: bigint;
  forward_count: number;
}

export interface ReplyContext {
  sender: string;
  text: string;
  timestamp?: bigint;
  reply_media_label?: string;
  reply_content_type?: string;
}

export interface MeshMessage {
  id: MessageIdLike;
  sender: string;
  recipient: string;
  app_id: string;
  priority: Priority;
  ttl: number;
  hop_count: number;
  timestamp: bigint;
  lamport_clock: bigint;
  content_type: ContentType;
  content: string;
  binary_content?: Uint8Array;
  media_metadata?: MediaMetadata;
  metadata: Map<string, string>;
  requires_ack: boolean;
  reply_to_msg?: MessageIdLike;
  forwarded_from?: ForwardedFrom;
  reply_context?: ReplyContext;
}

/** The TTL a new message starts with (the reference's `TTL::DEFAULT`). */
export const DEFAULT_TTL = 8;

/** The Lamport clock ceiling, 2^63 − 1: larger claims are clamped to it, never rejected. */
export const LAMPORT_CLOCK_MAX = 9223372036854775807n;

const U64_MAX = 18446744073709551615n;
const I64_MIN = -9223372036854775808n;
const I64_MAX = 9223372036854775807n;
const U32_MAX = 4294967295;

/**
 * What `createMessage` takes: a `MeshMessage`, where the fields the reference defaults may be left out
 * (`lamport_clock` 0, `content_type` text, `metadata` empty, `requires_ack` true), ids may also be given as
 * strings in any accepted UUID spelling, metadata as a Map or a plain object, and absent optionals as `null`.
 */
export interface MessageFields {
  id: MessageIdLike | string;
  sender: string;
  recipient: string;
  app_id: string;
  priority: Priority;
  ttl: number;
  hop_count: number;
  timestamp: bigint;
  lamport_clock?: bigint;
  content_type?: ContentType;
  content: string;
  binary_content?: Uint8Array | null;
  media_metadata?: MediaMetadata | null;
  metadata?: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  requires_ack?: boolean;
  reply_to_msg?: MessageIdLike | string | null;
  forwarded_from?: ForwardedFrom | null;
  reply_context?: ReplyContext | null;
}

function fieldError(code: string, field: string, message: string): MeshDecodeError {
  return new MeshDecodeError(code, `${field} ${message}`, { field });
}

/** Strings cross into UTF-8 on every wire, so a lone surrogate (which has no UTF-8 form) is refused here. */
// `String.prototype.isWellFormed` (Node 20+, not yet in the ES2022 typings) is one native scan.
const isWellFormed = (value: string): boolean => (value as unknown as { isWellFormed(): boolean }).isWellFormed();

function text(value: unknown, field: string): string {
  if (typeof value !== 'string') {
    throw fieldError(value === undefined ? 'MISSING_FIELD' : 'BAD_FIELD_TYPE', field, value === undefined ? 'is missing' : 'must be a string');
  }
  if (!isWellFormed(value)) throw fieldError('BAD_UNICODE', field, 'contains a lone UTF-16 surrogate');
  return value;
}

function optionalText(value: unknown, field: string): string | undefined {
  return value == null ? undefined : text(value, field);
}

function byte(value: unknown, field: string): number {
  if (value === undefined) throw fieldError('MISSING_FIELD', field, 'is missing');
  if (typeof value !== 'number' || !Number.isInteger(value)) throw fieldError('BAD_FIELD_TYPE', field, 'must be an integer');
  if (value < 0 || value > 255) throw fieldError('NUMBER_OUT_OF_RANGE', field, 'must be within 0..255');
  return value;
}

function u32(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw fieldError('BAD_FIELD_TYPE', field, 'must be an integer');
  if (value < 0 || value > U32_MAX) throw fieldError('NUMBER_OUT_OF_RANGE', field, 'must be within 0..4294967295');
  return value;
}

function big(value: unknown, field: string, min: bigint, max: bigint): bigint {
  if (value === undefined) throw fieldError('MISSING_FIELD', field, 'is missing');
  if (typeof value !== 'bigint') throw fieldError('BAD_FIELD_TYPE', field, 'must be a bigint');
  if (value < min || value > max) throw fieldError('NUMBER_OUT_OF_RANGE', field, `must be within ${min}..${max}`);
  return value;
}

function messageId(value: unknown, field: string): MessageId {
  if (value instanceof MessageId) return value;
  if (typeof value === 'string') return withField(() => MessageId.parse(value), field);
  if (value !== null && typeof value === 'object' && (value as MessageIdLike).bytes instanceof Uint8Array) {
    return withField(() => MessageId.fromBytes((value as MessageIdLike).bytes), field);
  }
  throw fieldError(value === undefined ? 'MISSING_FIELD' : 'BAD_UUID', field, value === undefined ? 'is missing' : 'must be a UUID');
}

function withField<T>(fn: () => T, field: string): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof MeshDecodeError) throw new MeshDecodeError(err.code, `${field}: ${err.message}`, { ...err.details, field });
    throw err;
  }
}

function object(value: unknown, field: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fieldError('BAD_FIELD_TYPE', field, 'must be an object');
  return value as Record<string, unknown>;
}

function mediaMetadata(value: unknown): MediaMetadata {
  const m = object(value, 'media_metadata');
  const out: MediaMetadata = {
    mime_type: text(m.mime_type, 'media_metadata.mime_type'),
    file_name: text(m.file_name, 'media_metadata.file_name'),
    file_size: big(m.file_size, 'media_metadata.file_size', 0n, U64_MAX),
  };
  if (m.duration_ms != null) out.duration_ms = big(m.duration_ms, 'media_metadata.duration_ms', 0n, U64_MAX);
  if (m.width != null) out.width = u32(m.width, 'media_metadata.width');
  if (m.height != null) out.height = u32(m.height, 'media_metadata.height');
  for (const key of MEDIA_TEXT_KEYS) {
    const v = optionalText(m[key], `media_metadata.${key}`);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** The optional string fields of MediaMetadata, in the reference's declaration order (= JSON key order). */
export const MEDIA_TEXT_KEYS = [
  'thumbnail_base64',
  'media_id',
  'download_url',
  'thumbnail_url',
  'encryption_key',
  'iv',
  'ciphertext_hash',
  'sticker_provider',
  'sticker_remote_id',
  'sticker_kind',
] as const;

function forwardedFrom(value: unknown): ForwardedFrom {
  const f = object(value, 'forwarded_from');
  return {
    original_sender: checkIdentifier(f.original_sender === undefined ? missing('forwarded_from.original_sender') : f.original_sender, 'forwarded_from.original_sender'),
    original_message_id: messageId(f.original_message_id, 'forwarded_from.original_message_id').toString(),
    original_timestamp: big(f.original_timestamp, 'forwarded_from.original_timestamp', I64_MIN, I64_MAX),
    forward_count: u32(f.forward_count === undefined ? missing('forwarded_from.forward_count') : f.forward_count, 'forwarded_from.forward_count'),
  };
}

function replyContext(value: unknown): ReplyContext {
  const r = object(value, 'reply_context');
  const out: ReplyContext = {
    sender: checkIdentifier(r.sender === undefined ? missing('reply_context.sender') : r.sender, 'reply_context.sender'),
    text: text(r.text, 'reply_context.text'),
  };
  if (r.timestamp != null) out.timestamp = big(r.timestamp, 'reply_context.timestamp', I64_MIN, I64_MAX);
  const label = optionalText(r.reply_media_label, 'reply_context.reply_media_label');
  if (label !== undefined) out.reply_media_label = label;
  const type = optionalText(r.reply_content_type, 'reply_context.reply_content_type');
  if (type !== undefined) out.reply_content_type = type;
  return out;
}

function missing(field: string): never {
  throw fieldError('MISSING_FIELD', field, 'is missing');
}

function metadataEntry(key: unknown, value: unknown): void {
  if (typeof key !== 'string') throw fieldError('BAD_FIELD_TYPE', 'metadata key', 'must be a string');
  if (typeof value !== 'string') throw fieldError('BAD_FIELD_TYPE', `metadata[${JSON.stringify(key)}]`, 'must be a string');
  if (!isWellFormed(key)) text(key, 'metadata key');
  if (!isWellFormed(value)) text(value, `metadata[${JSON.stringify(key)}]`);
}

function metadataMap(value: unknown): Map<string, string> {
  if (value === undefined) return new Map();
  if (value instanceof Map) {
    for (const [k, v] of value as Map<unknown, unknown>) metadataEntry(k, v);
    return value as Map<string, string>;
  }
  const record = object(value, 'metadata');
  const out = new Map<string, string>();
  for (const key of Object.keys(record)) {
    const v = record[key];
    metadataEntry(key, v);
    out.set(key, v as string);
  }
  return out;
}

/**
 * The one validating constructor. Checks every field (identifiers by the shared rule, integer ranges, UUIDs,
 * well-formed Unicode, the nested structures), applies the reference's defaults and clamps `lamport_clock` to
 * `LAMPORT_CLOCK_MAX`. A Map given as `metadata` is taken over, not copied. Throws `MeshDecodeError` with a
 * stable `code` and `details.field`.
 */
export function createMessage(fields: MessageFields): MeshMessage {
  if (fields === null || typeof fields !== 'object') throw new MeshDecodeError('BAD_FIELD_TYPE', 'a message must be an object');
  const f = fields as unknown as Record<string, unknown>;
  const id = messageId(f.id, 'id');
  const sender = checkIdentifier(f.sender === undefined ? missing('sender') : f.sender, 'sender');
  const recipient = checkIdentifier(f.recipient === undefined ? missing('recipient') : f.recipient, 'recipient');
  const appId = checkIdentifier(f.app_id === undefined ? missing('app_id') : f.app_id, 'app_id');
  const priority = f.priority;
  if (!isPriority(priority)) {
    throw fieldError(priority === undefined ? 'MISSING_FIELD' : 'UNKNOWN_PRIORITY', 'priority', priority === undefined ? 'is missing' : 'must be low, medium, high or critical');
  }
  const ttl = byte(f.ttl, 'ttl');
  const hopCount = byte(f.hop_count, 'hop_count');
  const timestamp = big(f.timestamp, 'timestamp', I64_MIN, I64_MAX);
  let lamport = f.lamport_clock === undefined ? 0n : big(f.lamport_clock, 'lamport_clock', 0n, U64_MAX);
  if (lamport > LAMPORT_CLOCK_MAX) lamport = LAMPORT_CLOCK_MAX;
  const contentType = f.content_type === undefined ? 'text' : f.content_type;
  if (!isContentType(contentType)) throw fieldError('BAD_FIELD_TYPE', 'content_type', 'must be a known content type');
  const content = text(f.content, 'content');
  const requiresAck = f.requires_ack === undefined ? true : f.requires_ack;
  if (typeof requiresAck !== 'boolean') throw fieldError('BAD_FIELD_TYPE', 'requires_ack', 'must be a boolean');

  const message: MeshMessage = {
    id,
    sender,
    recipient,
    app_id: appId,
    priority,
    ttl,
    hop_count: hopCount,
    timestamp,
    lamport_clock: lamport,
    content_type: contentType,
    content,
    metadata: metadataMap(f.metadata),
    requires_ack: requiresAck,
  };
  if (f.binary_content != null) {
    if (!(f.binary_content instanceof Uint8Array)) throw fieldError('BAD_FIELD_TYPE', 'binary_content', 'must be a Uint8Array');
    message.binary_content = f.binary_content;
  }
  if (f.media_metadata != null) message.media_metadata = mediaMetadata(f.media_metadata);
  if (f.reply_to_msg != null) message.reply_to_msg = messageId(f.reply_to_msg, 'reply_to_msg');
  if (f.forwarded_from != null) message.forwarded_from = forwardedFrom(f.forwarded_from);
  if (f.reply_context != null) message.reply_context = replyContext(f.reply_context);
  return message;
}
