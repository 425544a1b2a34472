/**
 * The payload of one `file_chunk` message (mesh-reference-facts.md §6), in both forms a receiver meets:
 *
 * - plaintext `binary_content`, the reference's `FileChunk::to_bytes`, all integers little-endian:
 *     u32 len ‖ file_id | u32 len ‖ file_name | u64 file_size | u32 total_chunks | u32 chunk_index |
 *     u32 len ‖ chunk_data | u32 len ‖ file_checksum
 *   with the strings capped at 4096 bytes and the data at 128 MiB, every length checked before anything is read;
 * - the legacy JSON `content` of older senders, `{file_id, file_name, file_size, total_chunks, chunk_index,
 *   chunk_data: <standard base64>, file_checksum}`, read only when `binary_content` is absent.
 *
 * An encrypted `binary_content` (`"ML" ‖ version 1..3 ‖ …`) cannot be read here; it is reported as such rather
 * than misread as a corrupt plaintext chunk.
 */
import { fromBase64Canonical, utf8DecodeExact, utf8Encode } from '../bytes';
import { MeshDecodeError, MeshEncodeError } from './errors';
import { parseJson } from './json-parse';
import { jsonInteger, jsonSmallInteger, jsonString, missingField, readStruct } from './json-structs';
import type { MeshMessage } from './message';

export const FILE_CHUNK_MAX_STRING_BYTES = 4096;
export const FILE_CHUNK_MAX_DATA_BYTES = 128 * 1024 * 1024;

export interface FileChunk {
  file_id: string;
  file_name: string;
  /** Size of the whole file, a u64. */
  file_size: bigint;
  total_chunks: number;
  chunk_index: number;
  /** From `decodeFileChunk`, a view into the input. */
  chunk_data: Uint8Array;
  /** Lowercase hex SHA-256 of the whole file. */
  file_checksum: string;
}

const U32_MAX = 0xffffffff;
const U64_MAX = 0xffffffffffffffffn;

/** `FileChunk::to_bytes`. Refuses what a conforming receiver would refuse to read (`FILE_CHUNK_FIELD_TOO_LONG`, `BAD_FILE_CHUNK`). */
export function encodeFileChunk(chunk: FileChunk): Uint8Array {
  const id = utf8Encode(chunk.file_id);
  const name = utf8Encode(chunk.file_name);
  const checksum = utf8Encode(chunk.file_checksum);
  for (const [field, bytes] of [['file_id', id], ['file_name', name], ['file_checksum', checksum]] as const) {
    if (bytes.length > FILE_CHUNK_MAX_STRING_BYTES) {
      throw new MeshEncodeError('FILE_CHUNK_FIELD_TOO_LONG', `${field} is ${bytes.length} bytes; the limit is ${FILE_CHUNK_MAX_STRING_BYTES}`, { field });
    }
  }
  if (chunk.chunk_data.length > FILE_CHUNK_MAX_DATA_BYTES) {
    throw new MeshEncodeError('FILE_CHUNK_FIELD_TOO_LONG', `chunk_data is ${chunk.chunk_data.length} bytes; the limit is ${FILE_CHUNK_MAX_DATA_BYTES}`, {
      field: 'chunk_data',
    });
  }
  if (typeof chunk.file_size !== 'bigint' || chunk.file_size < 0n || chunk.file_size > U64_MAX) {
    throw new MeshEncodeError('BAD_FILE_CHUNK', 'file_size must be a u64 bigint', { field: 'file_size' });
  }
  for (const field of ['total_chunks', 'chunk_index'] as const) {
    const v = chunk[field];
    if (!Number.isInteger(v) || v < 0 || v > U32_MAX) throw new MeshEncodeError('BAD_FILE_CHUNK', `${field} must be a u32`, { field });
  }
  const out = new Uint8Array(4 + id.length + 4 + name.length + 8 + 4 + 4 + 4 + chunk.chunk_data.length + 4 + checksum.length);
  const view = new DataView(out.buffer);
  let at = 0;
  const bytes = (b: Uint8Array): void => {
    view.setUint32(at, b.length, true);
    out.set(b, at + 4);
    at += 4 + b.length;
  };
  bytes(id);
  bytes(name);
  view.setBigUint64(at, chunk.file_size, true);
  view.setUint32(at + 8, chunk.total_chunks, true);
  view.setUint32(at + 12, chunk.chunk_index, true);
  at += 16;
  bytes(chunk.chunk_data);
  bytes(checksum);
  return out;
}

/** `FileChunk::from_bytes`. Bytes after the checksum are ignored, as the reference ignores them. */
export function decodeFileChunk(bytes: Uint8Array): FileChunk {
  if (!(bytes instanceof Uint8Array)) throw new MeshDecodeError('BAD_FILE_CHUNK', 'a file chunk payload must be bytes');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const need = (n: number, what: string): void => {
    if (bytes.length - at < n) throw new MeshDecodeError('FILE_CHUNK_TRUNCATED', `file chunk ends while reading ${what}`, { field: what });
  };
  const u32 = (what: string): number => {
    need(4, what);
    const v = view.getUint32(at, true);
    at += 4;
    return v;
  };
  const field = (what: string, max: number): Uint8Array => {
    const length = u32(`${what} length`);
    if (length > max) {
      throw new MeshDecodeError('FILE_CHUNK_FIELD_TOO_LONG', `${what} claims ${length} bytes; the limit is ${max}`, { field: what, length });
    }
    need(length, what);
    const slice = bytes.subarray(at, at + length);
    at += length;
    return slice;
  };
  const text = (what: string): string => {
    const value = utf8DecodeExact(field(what, FILE_CHUNK_MAX_STRING_BYTES));
    if (value === undefined) throw new MeshDecodeError('FILE_CHUNK_BAD_UTF8', `${what} is not valid UTF-8`, { field: what });
    return value;
  };
  const file_id = text('file_id');
  const file_name = text('file_name');
  need(8, 'file_size');
  const file_size = view.getBigUint64(at, true);
  at += 8;
  const total_chunks = u32('total_chunks');
  const chunk_index = u32('chunk_index');
  const chunk_data = field('chunk_data', FILE_CHUNK_MAX_DATA_BYTES);
  const file_checksum = text('file_checksum');
  return { file_id, file_name, file_size, total_chunks, chunk_index, chunk_data, file_checksum };
}

const LEGACY_KEYS: ReadonlySet<string> = new Set(['file_id', 'file_name', 'file_size', 'total_chunks', 'chunk_index', 'chunk_data', 'file_checksum']);

/**
 * The legacy JSON form found in `content`. Read as serde reads the reference's struct: every field required,
 * unknown keys ignored, a repeated known key rejected, integers only (no `1.0`), `chunk_data` canonical standard
 * base64. Errors carry the JSON reader's codes, or `FILE_CHUNK_BAD_BASE64` / `NUMBER_OUT_OF_RANGE`.
 */
export function decodeLegacyFileChunkJson(content: string): FileChunk {
  if (typeof content !== 'string') throw new MeshDecodeError('BAD_FILE_CHUNK', 'legacy file chunk content must be a string');
  const fields = readStruct(parseJson(utf8Encode(content)), '', LEGACY_KEYS);
  const get = (key: string) => {
    const v = fields.get(key);
    if (v === undefined) throw missingField(key);
    return v;
  };
  const file_size = jsonInteger(get('file_size'), 'file_size');
  if (file_size < 0n || file_size > U64_MAX) throw new MeshDecodeError('NUMBER_OUT_OF_RANGE', 'file_size is out of range', { field: 'file_size' });
  const u32 = (key: string): number => {
    const v = jsonSmallInteger(get(key), key);
    if (v < 0 || v > U32_MAX) throw new MeshDecodeError('NUMBER_OUT_OF_RANGE', `${key} is out of range`, { field: key });
    return v;
  };
  const chunk_data = fromBase64Canonical(jsonString(get('chunk_data'), 'chunk_data'));
  if (chunk_data === undefined) throw new MeshDecodeError('FILE_CHUNK_BAD_BASE64', 'chunk_data is not canonical standard base64', { field: 'chunk_data' });
  return {
    file_id: jsonString(get('file_id'), 'file_id'),
    file_name: jsonString(get('file_name'), 'file_name'),
    file_size,
    total_chunks: u32('total_chunks'),
    chunk_index: u32('chunk_index'),
    chunk_data,
    file_checksum: jsonString(get('file_checksum'), 'file_checksum'),
  };
}

/** Whether a `binary_content` is the encrypted form, `"ML" ‖ version(1|2|3) ‖ …`. */
export function isEncryptedChunkPayload(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0x4d && bytes[1] === 0x4c && bytes[2] >= 1 && bytes[2] <= 3;
}

/**
 * The chunk a `file_chunk` message carries: `binary_content` when present, else the legacy JSON `content`.
 * `NOT_A_FILE_CHUNK` for another content type, `ENCRYPTED_FILE_CHUNK` for the MLS form.
 */
export function fileChunkFromMessage(message: MeshMessage): FileChunk {
  if (message.content_type !== 'file_chunk') {
    throw new MeshDecodeError('NOT_A_FILE_CHUNK', `content type is ${message.content_type}, not file_chunk`);
  }
  const binary = message.binary_content;
  if (binary === undefined) return decodeLegacyFileChunkJson(message.content);
  if (isEncryptedChunkPayload(binary)) {
    throw new MeshDecodeError('ENCRYPTED_FILE_CHUNK', 'file chunk is MLS-encrypted; decrypt it before reassembly', { version: binary[2] });
  }
  return decodeFileChunk(binary);
}
