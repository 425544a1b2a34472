/**
 * Ext tag 1 of binary wire v1: a trailing base64 run of `content` carried decoded (mesh-message-wire.md, ext
 * registry; the encoder's steps a–f from mesh-reference-facts.md §2 "Ext tag 1").
 *
 * Envelopes are base64 and base64 inflates by 4/3, so when content ends in a long canonical run the wire keeps
 * only the head and the raw tail bytes ride in the ext entry. The split is taken only when re-encoding the tail
 * reproduces it byte for byte, which makes it correct for any input: non-canonical padding, the URL-safe
 * alphabet and lookalike text fail the comparison and travel as plain text.
 */
import { fastBuffer } from './fast-buffer';

/** Below this many tail characters (48 raw bytes) the split is not worth an ext entry. */
export const MIN_BASE64_TAIL_CHARS = 64;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Char code → 6-bit value, or -1 outside the standard alphabet (URL-safe `-` and `_` included). */
const SEXTET: Int8Array = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

function sextet(c: number): number {
  return c < 128 ? SEXTET[c] : -1;
}

export interface Base64Split {
  /** What stays in the wire `content` (possibly empty). */
  head: string;
  /** The decoded tail. */
  tail: Uint8Array;
}

/** The reference's `split_b64_tail`, or `undefined` when the content rides whole. */
export function splitBase64Tail(content: string): Base64Split | undefined {
  const length = content.length;
  // (a) and (e): a tail of 64 ASCII characters needs at least 64 UTF-16 units, and 64 units are at least 64 bytes.
  if (length < MIN_BASE64_TAIL_CHARS) return undefined;
  // (b) at most two trailing '='.
  let end = length;
  if (content.charCodeAt(end - 1) === 0x3d) end--;
  if (content.charCodeAt(end - 1) === 0x3d) end--;
  // (c) back over the standard alphabet.
  let start = end;
  while (start > 0 && sextet(content.charCodeAt(start - 1)) >= 0) start--;
  // (d) the tail is a whole number of quanta; the odd characters stay in the head. The run is ASCII, so UTF-16
  // indices and byte offsets agree over it and the head is never cut inside a character.
  start += (length - start) % 4;
  // (e)
  if (length - start < MIN_BASE64_TAIL_CHARS) return undefined;
  // (f) canonical standard base64 only. The tail is now alphabet characters and at most two final '=', a whole
  // number of quanta, so re-encoding reproduces it exactly when the bits the padding hides are zero; checking those
  // bits is that comparison without building the string.
  const padding = length - end;
  if (padding === 1 && (sextet(content.charCodeAt(length - 2)) & 0x03) !== 0) return undefined;
  if (padding === 2 && (sextet(content.charCodeAt(length - 3)) & 0x0f) !== 0) return undefined;
  const tail = Buffer.from(content.slice(start), 'base64');
  return { head: content.slice(0, start), tail };
}

/** The decoder's side: the head followed by the re-encoded tail. No minimum length applies here. */
export function joinBase64Tail(head: string, tail: Uint8Array): string {
  return head + fastBuffer(tail).base64Slice(0, tail.length);
}
