/**
 * The `__MLS_ENC__` envelope read into its parts (the reference's docs/spec/encryption-envelopes.md; vectors in
 * mls-envelope-v1.vectors.json). Nothing here decrypts: the parts are the routing information every relay can
 * already see, and the ciphertext stays opaque.
 *
 * After the prefix comes one of three forms, and a receiver must accept all of them whatever it advertised
 * (parsing is unconditional; `env_versions` governs only what a sender emits):
 *
 *   `{` first          legacy JSON: group_id, sender_id, message_type ("Application"…), epoch, ciphertext as a list
 *                      of byte values, timestamp_ms
 *   anything else      standard base64; its bytes are tried as the compact encoding first, then as that JSON
 *
 * The compact encoding, every integer little-endian (the opposite of the signing payloads, and the easiest thing to
 * get backwards):
 *
 *   u32 len ‖ group_id (UTF-8) · u32 len ‖ sender_id (UTF-8) · u8 message_type · u64 epoch · u64 timestamp_ms ·
 *   u32 len ‖ ciphertext
 *
 * Trying compact first is deterministic, not a guess: base64-wrapped JSON starts `{"`, which read as a group_id
 * length is at least 8827, above the 4096-byte cap on both strings, so it is refused before anything is read.
 * Every length is checked against the bytes that remain before anything is sliced, and nothing is allocated from a
 * declared length. Every failure is a `MeshDecodeError` with code `BAD_MLS_ENVELOPE`.
 */
import { isUtf8 } from 'node:buffer';
import { fromBase64Canonical } from '../bytes';
import { MeshDecodeError, MeshEncodeError } from './errors';
import { JsonObject, parseJson, type JsonValue } from './json-parse';
import type { MeshMessage } from './message';
import { plainInteger, type PlainInteger } from './plain';

export const MLS_ENC_PREFIX = '__MLS_ENC__';
/** The cap on `group_id` and `sender_id`, in UTF-8 bytes, in every form. */
export const MLS_ENVELOPE_MAX_STRING_BYTES = 4096;

export const MLS_MESSAGE_TYPES = Object.freeze(['application', 'welcome', 'commit', 'proposal'] as const);
export type MlsMessageType = (typeof MLS_MESSAGE_TYPES)[number];

/** Which of the three inbound forms arrived. */
export type MlsEnvelopeForm = 'json' | 'compact' | 'base64-json';

export interface MlsEnvelope {
  /** The MLS group, or for 1:1 the session slot (`sessionSlotId`). */
  group_id: string;
  /** The claimed sender; nothing here proves it. */
  sender_id: string;
  message_type: MlsMessageType;
  epoch: bigint;
  /** Wall clock of the sender, for display only. */
  timestamp_ms: bigint;
  /** Opaque; a view into the decoded bytes for the compact form. */
  ciphertext: Uint8Array;
}

const U64_MAX = (1n << 64n) - 1n;
// The JSON form spells the type as the reference's enum variant names.
const JSON_MESSAGE_TYPES: Readonly<Record<string, MlsMessageType>> = { Application: 'application', Welcome: 'welcome', Commit: 'commit', Proposal: 'proposal' };

function bad(message: string, details?: Record<string, unknown>): MeshDecodeError {
  return new MeshDecodeError('BAD_MLS_ENVELOPE', `__MLS_ENC__ envelope: ${message}`, details);
}

function checkGroupId(id: string): string {
  if (id.length === 0) throw bad('group_id is empty');
  return id;
}

/** Reads the compact encoding. The ciphertext is a view into `bytes`, not a copy. */
export function decodeCompactMlsEnvelope(bytes: Uint8Array): MlsEnvelope {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const need = (n: number, what: string): void => {
    if (n > bytes.length - pos) throw bad(`ends inside ${what}`, { field: what });
  };
  const u32 = (what: string): number => {
    need(4, what);
    const v = view.getUint32(pos, true);
    pos += 4;
    return v;
  };
  const u64 = (what: string): bigint => {
    need(8, what);
    const v = view.getBigUint64(pos, true);
    pos += 8;
    return v;
  };
  const text = (what: string): string => {
    const n = u32(`${what} length`);
    // The cap first: it is what turns base64-wrapped JSON away before the length is trusted for anything.
    if (n > MLS_ENVELOPE_MAX_STRING_BYTES) throw bad(`${what} declares ${n} bytes; the cap is ${MLS_ENVELOPE_MAX_STRING_BYTES}`, { field: what });
    need(n, what);
    const s = bytes.subarray(pos, pos + n);
    pos += n;
    if (!isUtf8(s)) throw bad(`${what} is not UTF-8`, { field: what });
    return Buffer.from(s.buffer, s.byteOffset, s.byteLength).toString('utf8');
  };
  const groupId = checkGroupId(text('group_id'));
  const senderId = text('sender_id');
  need(1, 'message_type');
  const type = MLS_MESSAGE_TYPES[bytes[pos]];
  if (type === undefined) throw bad(`message_type ${bytes[pos]} is not defined`, { field: 'message_type' });
  pos += 1;
  const epoch = u64('epoch');
  const timestamp = u64('timestamp_ms');
  const n = u32('ciphertext length');
  need(n, 'ciphertext');
  // Bytes after the ciphertext are ignored, as the reference's reader ignores them.
  return { group_id: groupId, sender_id: senderId, message_type: type, epoch, timestamp_ms: timestamp, ciphertext: bytes.subarray(pos, pos + n) };
}

/** Writes the compact encoding (what a peer advertising `env_versions` 1 may be sent); a fresh buffer. */
export function encodeCompactMlsEnvelope(e: MlsEnvelope): Uint8Array {
  const group = Buffer.from(e.group_id, 'utf8');
  const sender = Buffer.from(e.sender_id, 'utf8');
  if (group.length === 0 || group.length > MLS_ENVELOPE_MAX_STRING_BYTES || sender.length > MLS_ENVELOPE_MAX_STRING_BYTES) {
    throw new MeshEncodeError('BAD_MLS_ENVELOPE', `group_id must be 1 to ${MLS_ENVELOPE_MAX_STRING_BYTES} bytes and sender_id at most that`);
  }
  const out = new Uint8Array(4 + group.length + 4 + sender.length + 1 + 8 + 8 + 4 + e.ciphertext.length);
  const view = new DataView(out.buffer);
  let pos = 0;
  const lengthPrefixed = (data: Uint8Array): void => {
    view.setUint32(pos, data.length, true);
    out.set(data, pos + 4);
    pos += 4 + data.length;
  };
  lengthPrefixed(group);
  lengthPrefixed(sender);
  out[pos] = MLS_MESSAGE_TYPES.indexOf(e.message_type);
  view.setBigUint64(pos + 1, BigInt.asUintN(64, e.epoch), true);
  view.setBigUint64(pos + 9, BigInt.asUintN(64, e.timestamp_ms), true);
  pos += 17;
  lengthPrefixed(e.ciphertext);
  return out;
}

function jsonString(value: JsonValue | undefined, field: string): string {
  if (typeof value !== 'string') throw bad(`${field} is not a string`, { field });
  if (Buffer.byteLength(value, 'utf8') > MLS_ENVELOPE_MAX_STRING_BYTES) throw bad(`${field} is over ${MLS_ENVELOPE_MAX_STRING_BYTES} bytes`, { field });
  return value;
}

function jsonU64(value: JsonValue | undefined, field: string): bigint {
  if (typeof value !== 'number' && typeof value !== 'bigint') throw bad(`${field} is not an integer`, { field });
  const n = BigInt(value);
  if (n < 0n || n > U64_MAX) throw bad(`${field} is out of range`, { field });
  return n;
}

/** Reads the JSON form from its UTF-8 bytes. Unknown fields are ignored; a repeated or missing one is refused. */
export function decodeJsonMlsEnvelope(bytes: Uint8Array): MlsEnvelope {
  const doc = parseJson(bytes, 0, bytes.length, '__MLS_ENC__ envelope');
  if (!(doc instanceof JsonObject)) throw bad('the JSON form is not an object');
  const fields = new Map<string, JsonValue>();
  for (let i = 0; i < doc.keys.length; i++) {
    if (fields.has(doc.keys[i])) throw bad(`${doc.keys[i]} is repeated`, { field: doc.keys[i] });
    fields.set(doc.keys[i], doc.values[i]);
  }
  const typeName = fields.get('message_type');
  const type = typeof typeName === 'string' && Object.hasOwn(JSON_MESSAGE_TYPES, typeName) ? JSON_MESSAGE_TYPES[typeName] : undefined;
  if (type === undefined) throw bad('message_type is not Application, Welcome, Commit or Proposal', { field: 'message_type' });
  const list = fields.get('ciphertext');
  if (!Array.isArray(list)) throw bad('ciphertext is not a list of bytes', { field: 'ciphertext' });
  const ciphertext = new Uint8Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 255) throw bad(`ciphertext entry ${i} is not a byte`, { field: 'ciphertext' });
    ciphertext[i] = v;
  }
  return {
    group_id: checkGroupId(jsonString(fields.get('group_id'), 'group_id')),
    sender_id: jsonString(fields.get('sender_id'), 'sender_id'),
    message_type: type,
    epoch: jsonU64(fields.get('epoch'), 'epoch'),
    timestamp_ms: jsonU64(fields.get('timestamp_ms'), 'timestamp_ms'),
    ciphertext,
  };
}

/**
 * Reads the text after `__MLS_ENC__` (the prefix itself excluded) in whichever of the three forms it is, and says
 * which. Throws `MeshDecodeError` (`BAD_MLS_ENVELOPE`, or the JSON reader's code for broken JSON text).
 */
export function parseMlsEnvelope(body: string): { form: MlsEnvelopeForm; envelope: MlsEnvelope } {
  if (body.startsWith('{')) return { form: 'json', envelope: decodeJsonMlsEnvelope(Buffer.from(body, 'utf8')) };
  const bytes = fromBase64Canonical(body);
  if (bytes === undefined) throw bad('the body is neither JSON nor standard base64');
  let compactError: MeshDecodeError;
  try {
    return { form: 'compact', envelope: decodeCompactMlsEnvelope(bytes) };
  } catch (err) {
    if (!(err instanceof MeshDecodeError)) throw err;
    compactError = err;
  }
  // Only bytes that open a JSON object are worth a second reading; anything else keeps the compact reader's reason.
  if (bytes[0] !== 0x7b) throw compactError;
  return { form: 'base64-json', envelope: decodeJsonMlsEnvelope(bytes) };
}

/** The envelope a message carries: `undefined` when its content is not `__MLS_ENC__…`; throws when it does not parse. */
export function mlsEnvelopeOf(message: MeshMessage): { form: MlsEnvelopeForm; envelope: MlsEnvelope } | undefined {
  if (!message.content.startsWith(MLS_ENC_PREFIX)) return undefined;
  return parseMlsEnvelope(message.content.slice(MLS_ENC_PREFIX.length));
}

/** What `mesh-decode` and other flows see of an envelope: the parts with plain integers, or why it is unreadable. */
export type PlainMlsEnvelope =
  | {
      form: MlsEnvelopeForm;
      group_id: string;
      sender_id: string;
      message_type: MlsMessageType;
      epoch: PlainInteger;
      timestamp_ms: PlainInteger;
      ciphertext: Buffer;
    }
  | { form: 'unreadable'; error: { code: string; message: string } };

/**
 * The envelope of a message for display: `undefined` when it carries none. An envelope that does not parse is not
 * an error of the message (relays carry it unchanged, and only its recipient can judge it), so it is reported as
 * `unreadable` with the reason instead of failing the message.
 */
export function plainMlsEnvelopeOf(message: MeshMessage): PlainMlsEnvelope | undefined {
  let read: ReturnType<typeof mlsEnvelopeOf>;
  try {
    read = mlsEnvelopeOf(message);
  } catch (err) {
    if (!(err instanceof MeshDecodeError)) throw err;
    return { form: 'unreadable', error: { code: err.code, message: err.message } };
  }
  if (read === undefined) return undefined;
  const e = read.envelope;
  return {
    form: read.form,
    group_id: e.group_id,
    sender_id: e.sender_id,
    message_type: e.message_type,
    epoch: plainInteger(e.epoch),
    timestamp_ms: plainInteger(e.timestamp_ms),
    ciphertext: Buffer.from(e.ciphertext),
  };
}
