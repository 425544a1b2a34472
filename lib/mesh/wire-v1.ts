/**
 * Binary wire v1 (mesh-message-wire.md, "Binary wire v1"; layout and golden vectors in mesh-reference-facts.md §2).
 *
 * The frame is the magic byte 0xF5 and then a positional structure whose field order is frozen:
 *
 *   id [16 raw] · sender str · recipient str · app_id str · priority u8 · ttl u8 · hop_count u8 ·
 *   timestamp i64 · lamport_clock u64 · content_type u8 · content str · binary_content option<bytes> ·
 *   media_metadata_json option<bytes> · metadata list<(str, str)> sorted by UTF-8 key bytes · requires_ack bool ·
 *   reply_to_msg option<16 raw> · forwarded_from_json option<bytes> · ext list<(u16 tag, bytes)>
 *
 * Evolution rule: these fields never change in order or type. Additive data goes into `ext`, and only when a
 * decoder that ignores it loses efficiency or optional context, never correctness; anything else is a new magic
 * byte (0xF6 = v2). If a golden vector test fails, the format changed: bump the version, don't edit the bytes.
 *
 * Decoding reads this flat layout and then builds the message through `createMessage`, the JSON path's validating
 * constructor, so the identifier rules and the Lamport clamp are the same on both paths. Like the reference it
 * accepts unsorted and repeated metadata keys (last wins), overlong varints within the type's width, unknown
 * enum numbers (content type → file, priority → medium), unknown ext tags (skipped), repeated tag 1/2 entries
 * (only the first counts) and trailing bytes after `ext` (ignored).
 */
import { sortUtf8 } from '../bytes';
import { joinBase64Tail, splitBase64Tail } from './base64-tail';
import { contentTypeCode, contentTypeFromCode, priorityCode, priorityFromCode } from './enums';
import { MeshDecodeError } from './errors';
import { parseJson } from './json-parse';
import { readForwardedFrom, readMediaMetadata, readReplyContext, writeForwardedFromJson, writeMediaMetadataJson, writeReplyContextJson } from './json-structs';
import { createMessage, type MeshMessage, type MessageFields } from './message';
import { MessageId } from './message-id';
import { PostcardReader } from './postcard-reader';
import { PostcardWriter } from './postcard-writer';

export const WIRE_V1_MAGIC = 0xf5;

/** Ext registry (mesh-message-wire.md, "ext registry"). */
export const EXT_BASE64_TAIL = 1;
export const EXT_REPLY_CONTEXT = 2;

/** An embedded JSON blob, parsed strictly; its failure rejects the frame. */
function blob<T>(bytes: Uint8Array, field: string, read: (value: ReturnType<typeof parseJson>, field: string) => T): T {
  return read(parseJson(bytes, 0, bytes.length, field), field);
}

/**
 * The flat, fixed-order intermediate structure of the encoder (the reference's `WireMessageV1`): exactly what the
 * frame will hold, metadata in frame order and ext entries in tag order. Exported for the golden-vector tests
 * (which build frames the encoder would never emit), not from the package.
 */
export interface WireV1Dto {
  id: Uint8Array;
  sender: string;
  recipient: string;
  app_id: string;
  priority: number;
  ttl: number;
  hop_count: number;
  timestamp: bigint;
  lamport_clock: bigint;
  content_type: number;
  content: string;
  binary_content: Uint8Array | undefined;
  media_metadata_json: Uint8Array | undefined;
  /** In frame order. */
  metadata: Array<[string, string]>;
  requires_ack: boolean;
  reply_to_msg: Uint8Array | undefined;
  forwarded_from_json: Uint8Array | undefined;
  ext: Array<[number, Uint8Array]>;
}

/** Writes the layout, magic byte first, exactly as given (no sorting, no ext logic). */
export function writeWireV1Dto(d: WireV1Dto, sizeHint = 256): Uint8Array {
  const w = new PostcardWriter(sizeHint);
  w.u8(WIRE_V1_MAGIC);
  w.raw(d.id);
  w.str(d.sender);
  w.str(d.recipient);
  w.str(d.app_id);
  w.u8(d.priority);
  w.u8(d.ttl);
  w.u8(d.hop_count);
  w.i64(d.timestamp);
  w.u64(d.lamport_clock);
  w.u8(d.content_type);
  w.str(d.content);
  optionalBytes(w, d.binary_content);
  optionalBytes(w, d.media_metadata_json);
  w.varint(d.metadata.length);
  for (const [key, value] of d.metadata) {
    w.str(key);
    w.str(value);
  }
  w.bool(d.requires_ack);
  if (d.reply_to_msg === undefined) w.u8(0);
  else {
    w.u8(1);
    w.raw(d.reply_to_msg);
  }
  optionalBytes(w, d.forwarded_from_json);
  w.varint(d.ext.length);
  for (const [tag, data] of d.ext) {
    w.varint(tag);
    w.bytes(data);
  }
  return w.finish();
}

function optionalBytes(w: PostcardWriter, bytes: Uint8Array | undefined): void {
  if (bytes === undefined) w.u8(0);
  else {
    w.u8(1);
    w.bytes(bytes);
  }
}

/**
 * Decodes a frame whose first byte is the v1 magic: one pass over the layout, then `createMessage`. Byte fields
 * are views into `bytes` (as a Buffer), never copies.
 */
export function decodeWireV1(bytes: Uint8Array): MeshMessage {
  if (bytes.length === 0 || bytes[0] !== WIRE_V1_MAGIC) {
    throw new MeshDecodeError('NOT_WIRE_V1', 'a binary v1 frame starts with 0xF5');
  }
  const r = new PostcardReader(bytes, 1);
  const id = MessageId.adopt(r.copy16('id'));
  const sender = r.str('sender');
  const recipient = r.str('recipient');
  const appId = r.str('app_id');
  const priority = priorityFromCode(r.u8('priority'));
  const ttl = r.u8('ttl');
  const hopCount = r.u8('hop_count');
  const timestamp = r.i64('timestamp');
  const lamport = r.u64('lamport_clock');
  const contentType = contentTypeFromCode(r.u8('content_type'));
  let content = r.str('content');
  const binary = r.option('binary_content') ? r.bytesView('binary_content') : undefined;
  const mediaJson = r.option('media_metadata_json') ? r.bytesView('media_metadata_json') : undefined;
  // Each pair takes at least two bytes (two empty strings). Unsorted and repeated keys are accepted; last wins.
  const pairs = r.count('metadata', 2);
  const metadata = new Map<string, string>();
  for (let i = 0; i < pairs; i++) {
    const key = r.str('metadata key');
    metadata.set(key, r.str('metadata value'));
  }
  const requiresAck = r.bool('requires_ack');
  const replyTo = r.option('reply_to_msg') ? MessageId.adopt(r.copy16('reply_to_msg')) : undefined;
  const forwardedJson = r.option('forwarded_from_json') ? r.bytesView('forwarded_from_json') : undefined;
  // Each entry takes at least two bytes (a one-byte tag and an empty payload). Only the first of a tag counts.
  const entries = r.count('ext', 2);
  let tail: Uint8Array | undefined;
  let replyJson: Uint8Array | undefined;
  for (let i = 0; i < entries; i++) {
    const tag = r.u16('ext tag');
    const data = r.bytesView('ext payload');
    if (tag === EXT_BASE64_TAIL) tail ??= data;
    else if (tag === EXT_REPLY_CONTEXT) replyJson ??= data;
  }
  // Anything after ext is ignored, as the reference ignores it.
  if (tail !== undefined) content = joinBase64Tail(content, tail);

  const fields: MessageFields = {
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
    metadata,
    requires_ack: requiresAck,
  };
  // A Buffer view over the frame: zero-copy, and what Node code expects to hold.
  if (binary !== undefined) fields.binary_content = asBuffer(binary);
  if (mediaJson !== undefined) fields.media_metadata = blob(mediaJson, 'media_metadata', readMediaMetadata);
  if (replyTo !== undefined) fields.reply_to_msg = replyTo;
  if (forwardedJson !== undefined) fields.forwarded_from = blob(forwardedJson, 'forwarded_from', readForwardedFrom);
  if (replyJson !== undefined) fields.reply_context = blob(replyJson, 'reply_context', readReplyContext);
  return createMessage(fields);
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function utf8(text: string): Uint8Array {
  return Buffer.from(text, 'utf8');
}

/** The flat structure of an already validated message: metadata sorted, content split, ext tags in order. */
export function wireV1DtoOf(m: MeshMessage): WireV1Dto {
  const split = splitBase64Tail(m.content);
  const keys = [...m.metadata.keys()];
  // Byte order of the UTF-8 keys, never JavaScript's UTF-16 `<` (mesh-message-wire.md, "sorted by key").
  if (keys.length > 1) sortUtf8(keys);
  const metadata: Array<[string, string]> = keys.map((key) => [key, m.metadata.get(key) as string]);
  // Tag 1 before tag 2, as the reference writes them.
  const ext: Array<[number, Uint8Array]> = [];
  if (split !== undefined) ext.push([EXT_BASE64_TAIL, split.tail]);
  if (m.reply_context !== undefined) ext.push([EXT_REPLY_CONTEXT, utf8(writeReplyContextJson(m.reply_context))]);
  return {
    id: m.id.bytes,
    sender: m.sender,
    recipient: m.recipient,
    app_id: m.app_id,
    priority: priorityCode(m.priority),
    ttl: m.ttl,
    hop_count: m.hop_count,
    timestamp: m.timestamp,
    lamport_clock: m.lamport_clock,
    content_type: contentTypeCode(m.content_type),
    content: split === undefined ? m.content : split.head,
    binary_content: m.binary_content,
    media_metadata_json: m.media_metadata === undefined ? undefined : utf8(writeMediaMetadataJson(m.media_metadata)),
    metadata,
    requires_ack: m.requires_ack,
    reply_to_msg: m.reply_to_msg?.bytes,
    forwarded_from_json: m.forwarded_from === undefined ? undefined : utf8(writeForwardedFromJson(m.forwarded_from)),
    ext,
  };
}

/** Encodes an already validated message (see `encodeFrame`). */
export function encodeWireV1(m: MeshMessage): Uint8Array {
  const d = wireV1DtoOf(m);
  let hint = 96 + d.content.length * 3 + (d.binary_content?.length ?? 0) + (d.media_metadata_json?.length ?? 0);
  for (const [, data] of d.ext) hint += data.length;
  return writeWireV1Dto(d, hint);
}
