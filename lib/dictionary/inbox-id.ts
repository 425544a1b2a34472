/**
 * InboxId (META-011): on the wire `varint(0) || 32 bytes`, 33 bytes; as text 64 lowercase hex characters.
 * Inside this library an inbox id is its 32 raw bytes; the version byte exists only on the wire.
 */
import { fromHex, toHex } from '../bytes';
import { ByteReader } from './byte-reader';
import { DictionaryError } from './errors';

export const INBOX_ID_BYTES = 32;
export const INBOX_ID_WIRE_BYTES = 33;

const INBOX_TEXT = /^[0-9a-f]{64}$/;

/** 32 raw bytes, their 64-character text form, or a 33-byte TLS encoding. */
export type InboxIdInput = string | Uint8Array;

export function parseInboxId(input: InboxIdInput, where = 'inbox id'): Uint8Array {
  if (typeof input === 'string') {
    if (!INBOX_TEXT.test(input)) {
      throw new DictionaryError('INVALID_INBOX_ID', `${where}: expected 64 lowercase hex characters, got ${describeText(input)}`);
    }
    return fromHex(input) as Uint8Array;
  }
  if (input instanceof Uint8Array) {
    if (input.length === INBOX_ID_BYTES) return input;
    if (input.length === INBOX_ID_WIRE_BYTES) return decodeInboxId(input, where);
  }
  throw new DictionaryError('INVALID_INBOX_ID', `${where}: expected 32 raw bytes, 33 encoded bytes or 64 hex characters`);
}

export function inboxIdToText(id: Uint8Array): string {
  return toHex(id);
}

/** Exactly one encoded InboxId, nothing after it. */
export function decodeInboxId(bytes: Uint8Array, context = 'inbox id'): Uint8Array {
  const r = new ByteReader(bytes, context);
  const id = r.inboxId();
  r.expectEnd('inbox id');
  return id;
}

export function encodeInboxId(id: Uint8Array): Uint8Array {
  if (id.length !== INBOX_ID_BYTES) throw new DictionaryError('INVALID_INBOX_ID', `an inbox id has 32 bytes, got ${id.length}`);
  const out = new Uint8Array(INBOX_ID_WIRE_BYTES);
  out.set(id, 1);
  return out;
}

function describeText(text: string): string {
  return text.length > 80 ? `${text.length} characters` : `'${text}'`;
}
