/**
 * The JSON floor (mesh-message-wire.md, "The permanent floor"; rendering and validation from
 * mesh-reference-facts.md §1). Every conforming receiver accepts it, and it is the only encoding for persistence
 * and the internet relay, so it is rendered exactly as the reference renders it: compact, keys in declaration
 * order, absent optionals left out except `reply_to_msg` (always present, `null` when there is no reply),
 * `binary_content` as an array of numbers, content types snake_case, priority lowercase.
 *
 * Decoding follows the reference field by field: required keys, defaults (`lamport_clock` 0, `content_type` text,
 * `metadata` {}, `requires_ack` true), `null` only for the `Option` fields, an unknown content type string
 * degrading to `file`, an unknown priority rejecting, a repeated known key rejecting, unknown keys (including
 * the in-process `transport_peer_id` and `wire_codec`) ignored. Then `createMessage` runs the shared checks.
 */
import { sortUtf8 } from '../bytes';
import { contentTypeFromName, priorityFromName } from './enums';
import { MeshDecodeError } from './errors';
import { JsonObject, type JsonValue, parseJson } from './json-parse';
import {
  jsonInteger,
  jsonSmallInteger,
  jsonString,
  jsonText,
  missingField,
  readForwardedFrom,
  readMediaMetadata,
  readReplyContext,
  readStruct,
  typeError,
  writeForwardedFromJson,
  writeMediaMetadataJson,
  writeReplyContextJson,
} from './json-structs';
import { createMessage, type MeshMessage, type MessageFields, type Priority } from './message';
import { MessageId } from './message-id';

const MESSAGE_KEYS: ReadonlySet<string> = new Set([
  'id',
  'sender',
  'recipient',
  'app_id',
  'priority',
  'ttl',
  'hop_count',
  'timestamp',
  'lamport_clock',
  'content_type',
  'content',
  'binary_content',
  'media_metadata',
  'metadata',
  'requires_ack',
  'reply_to_msg',
  'forwarded_from',
  'reply_context',
]);

function required(fields: Map<string, JsonValue>, key: string): JsonValue {
  const value = fields.get(key);
  if (value === undefined) throw missingField(key);
  return value;
}

function uuid(value: JsonValue, field: string): MessageId {
  const text = jsonString(value, field);
  try {
    return MessageId.parse(text);
  } catch (err) {
    if (err instanceof MeshDecodeError) throw new MeshDecodeError(err.code, `${field}: ${err.message}`, { field });
    throw err;
  }
}

/**
 * The closed set of names, or serde's externally tagged spelling of a unit variant (`{"high":null}`), which the
 * reference's derived deserializer also takes.
 */
function priority(value: JsonValue): Priority {
  let name: string | undefined;
  if (typeof value === 'string') name = value;
  else if (value instanceof JsonObject && value.keys.length === 1 && value.values[0] === null) name = value.keys[0];
  else throw typeError('priority', 'a string', value);
  const p = priorityFromName(name);
  if (p === undefined) throw new MeshDecodeError('UNKNOWN_PRIORITY', `priority ${JSON.stringify(name)} is not low, medium, high or critical`, { field: 'priority' });
  return p;
}

function binaryContent(value: JsonValue): Uint8Array {
  if (!Array.isArray(value)) throw typeError('binary_content', 'an array of byte values', value);
  const out = Buffer.allocUnsafe(value.length);
  for (let i = 0; i < value.length; i++) {
    const v = value[i];
    if (typeof v !== 'number') {
      if (typeof v === 'bigint') throw new MeshDecodeError('NUMBER_OUT_OF_RANGE', `binary_content[${i}] is not a byte`, { field: 'binary_content' });
      throw typeError(`binary_content[${i}]`, 'an integer 0..255', v);
    }
    if (v < 0 || v > 255) throw new MeshDecodeError('NUMBER_OUT_OF_RANGE', `binary_content[${i}] is not a byte`, { field: 'binary_content' });
    out[i] = v;
  }
  return out;
}

/** A repeated metadata key is not an error: the last one wins, as in the reference's map. */
function metadata(value: JsonValue): Map<string, string> {
  if (!(value instanceof JsonObject)) throw typeError('metadata', 'an object', value);
  const out = new Map<string, string>();
  const { keys, values } = value;
  for (let i = 0; i < keys.length; i++) {
    const v = values[i];
    if (typeof v !== 'string') throw typeError(`metadata[${JSON.stringify(keys[i])}]`, 'a string', v);
    out.set(keys[i], v);
  }
  return out;
}

/** The fields of a parsed JSON floor object, before the shared checks of `createMessage`. */
export function messageFieldsFromJson(doc: JsonValue): MessageFields {
  if (!(doc instanceof JsonObject)) throw new MeshDecodeError('NOT_AN_OBJECT', 'a JSON floor message must be a JSON object');
  const f = readStruct(doc, '', MESSAGE_KEYS);
  const fields: MessageFields = {
    id: uuid(required(f, 'id'), 'id'),
    sender: jsonString(required(f, 'sender'), 'sender'),
    recipient: jsonString(required(f, 'recipient'), 'recipient'),
    app_id: jsonString(required(f, 'app_id'), 'app_id'),
    priority: priority(required(f, 'priority')),
    ttl: jsonSmallInteger(required(f, 'ttl'), 'ttl'),
    hop_count: jsonSmallInteger(required(f, 'hop_count'), 'hop_count'),
    timestamp: jsonInteger(required(f, 'timestamp'), 'timestamp'),
    content: jsonString(required(f, 'content'), 'content'),
  };
  const lamport = f.get('lamport_clock');
  if (lamport !== undefined) fields.lamport_clock = jsonInteger(lamport, 'lamport_clock');
  const contentType = f.get('content_type');
  if (contentType !== undefined) fields.content_type = contentTypeFromName(jsonString(contentType, 'content_type'));
  const binary = f.get('binary_content');
  if (binary != null) fields.binary_content = binaryContent(binary);
  const media = f.get('media_metadata');
  if (media != null) fields.media_metadata = readMediaMetadata(media);
  const meta = f.get('metadata');
  if (meta !== undefined) fields.metadata = metadata(meta);
  const ack = f.get('requires_ack');
  if (ack !== undefined) {
    if (typeof ack !== 'boolean') throw typeError('requires_ack', 'a boolean', ack);
    fields.requires_ack = ack;
  }
  const reply = f.get('reply_to_msg');
  if (reply != null) fields.reply_to_msg = uuid(reply, 'reply_to_msg');
  const forwarded = f.get('forwarded_from');
  if (forwarded != null) fields.forwarded_from = readForwardedFrom(forwarded);
  const context = f.get('reply_context');
  if (context != null) fields.reply_context = readReplyContext(context);
  return fields;
}

/** Decodes one JSON floor document (leading and trailing whitespace allowed, nothing else). */
export function decodeJsonFloor(bytes: Uint8Array): MeshMessage {
  return createMessage(messageFieldsFromJson(parseJson(bytes)));
}

function metadataJson(metadata: ReadonlyMap<string, string>): string {
  if (metadata.size === 0) return '{}';
  const keys = [...metadata.keys()];
  if (keys.length > 1) sortUtf8(keys);
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    if (i > 0) out += ',';
    out += `${jsonText(keys[i])}:${jsonText(metadata.get(keys[i]) as string)}`;
  }
  return out + '}';
}

/**
 * The JSON floor text of an already validated message. Metadata keys, which the reference emits in hash-map
 * order, come out sorted by UTF-8 bytes here so that the output is reproducible. `extra` (`,"key":value…`, keys the
 * floor does not have) goes in before the closing brace: a consumer that adds fields renders the text once.
 */
export function jsonFloorText(m: MeshMessage, extra = ''): string {
  let out =
    `{"id":"${m.id.toString()}","sender":${jsonText(m.sender)},"recipient":${jsonText(m.recipient)},` +
    `"app_id":${jsonText(m.app_id)},"priority":"${m.priority}","ttl":${m.ttl},"hop_count":${m.hop_count},` +
    `"timestamp":${m.timestamp},"lamport_clock":${m.lamport_clock},"content_type":"${m.content_type}",` +
    `"content":${jsonText(m.content)}`;
  if (m.binary_content !== undefined) out += `,"binary_content":[${m.binary_content.join(',')}]`;
  if (m.media_metadata !== undefined) out += `,"media_metadata":${writeMediaMetadataJson(m.media_metadata)}`;
  out += `,"metadata":${metadataJson(m.metadata)},"requires_ack":${m.requires_ack}`;
  out += m.reply_to_msg === undefined ? ',"reply_to_msg":null' : `,"reply_to_msg":"${m.reply_to_msg.toString()}"`;
  if (m.forwarded_from !== undefined) out += `,"forwarded_from":${writeForwardedFromJson(m.forwarded_from)}`;
  if (m.reply_context !== undefined) out += `,"reply_context":${writeReplyContextJson(m.reply_context)}`;
  return out + extra + '}';
}

/** UTF-8 bytes of `jsonFloorText`; the message must have passed `createMessage`. */
export function encodeJsonFloor(m: MeshMessage): Uint8Array {
  return Buffer.from(jsonFloorText(m), 'utf8');
}
