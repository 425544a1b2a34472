/**
 * Byte helpers shared by every protocol module (mesh, dictionary, hub, media, store).
 *
 * Kept strict on purpose: a decoder that accepts a sloppy spelling (odd-length hex, non-canonical base64,
 * invalid UTF-8) is a second, undocumented format. Each helper returns `undefined` for bad input instead of
 * throwing, so every caller raises its own coded error with its own context.
 */

import { isUtf8 } from 'node:buffer';

const HEX = '0123456789abcdef';
// ignoreBOM keeps a leading U+FEFF: dropping it would make two different byte strings read as one.
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i] >> 4] + HEX[bytes[i] & 15];
  return out;
}

/** Lower- or upper-case hex of even length; anything else is `undefined`. */
export function fromHex(text: string): Uint8Array | undefined {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, 'hex'));
}

/** RFC 4648 §4 base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * Canonical standard base64 only: the alphabet `A-Za-z0-9+/`, correct `=` padding, zero trailing bits.
 * Node's own decoder skips garbage silently, so canonicity is proven by re-encoding.
 */
export function fromBase64Canonical(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) return undefined;
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function utf8Encode(text: string): Uint8Array {
  return utf8Encoder.encode(text);
}

/** Byte length of a string's UTF-8 encoding without allocating it. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Strict UTF-8 decoding: an invalid sequence gives `undefined`, never U+FFFD. */
export function utf8DecodeStrict(bytes: Uint8Array): string | undefined {
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Well-formedness of UTF-8 without building a string (overlongs, surrogates and values above U+10FFFF fail).
 * Validators that keep the raw bytes need only this answer.
 */
export function isValidUtf8(bytes: Uint8Array): boolean {
  return isUtf8(bytes);
}

/**
 * Strict UTF-8 decoding that keeps a leading U+FEFF: `TextDecoder` drops a BOM by default, which would make two
 * different stored values read as one string. `undefined` for invalid input.
 */
export function utf8DecodeExact(bytes: Uint8Array): string | undefined {
  if (!isUtf8(bytes)) return undefined;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** Byte-wise order (memcmp, then length). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return a.length - b.length;
}

/**
 * Order of two strings by their UTF-8 bytes, which equals code-point order. JavaScript's `<` compares UTF-16
 * code units and inverts pairs drawn from U+E000..U+FFFF and the astral planes, so it must not be used for any
 * order that lands on a wire.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i) as number;
    const y = b.codePointAt(i) as number;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/**
 * Sorts `keys` in place by `compareUtf8`. Every message's metadata is sorted on its way out (JSON floor, wire v1),
 * mostly a handful of keys: an insertion sort allocates nothing, where `Array.prototype.sort` builds its work
 * arrays each call.
 */
export function sortUtf8(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort(compareUtf8);
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= 0 && compareUtf8(keys[j]!, k) > 0) {
      keys[j + 1] = keys[j]!;
      j -= 1;
    }
    keys[j + 1] = k;
  }
  return keys;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && compareBytes(a, b) === 0;
}

/**
 * A copy that owns its memory. `Buffer#slice` returns a view, so `data.slice()` on a Buffer (what radios and
 * sockets hand over) would keep the caller's whole source buffer alive for as long as the copy is held.
 */
export function ownBytes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  out.set(bytes);
  return out;
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Crockford base32, upper case, no padding, most significant bits first (as ULID renders its 128 bits). */
export function toCrockfordBase32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  // Left-pad so the bit count is a multiple of five, keeping the value's numeric reading (ULID-style).
  let bits = (5 - ((bytes.length * 8) % 5)) % 5;
  for (let i = 0; i < bytes.length; i++) {
    buffer = (buffer << 8) | bytes[i];
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD[(buffer >>> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

/**
 * The inverse of `toCrockfordBase32` for a value of exactly `byteLength` bytes: upper-case canonical symbols only,
 * and the left-padding bits must be zero (so every value has one spelling). `undefined` for anything else.
 */
export function fromCrockfordBase32(text: string, byteLength: number): Uint8Array | undefined {
  const pad = (5 - ((byteLength * 8) % 5)) % 5;
  if (text.length * 5 !== byteLength * 8 + pad) return undefined;
  const out = new Uint8Array(byteLength);
  let buffer = 0;
  let bits = -pad;
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    const v = CROCKFORD.indexOf(text[i]!);
    if (v < 0) return undefined;
    if (i === 0 && pad > 0 && v >> (5 - pad) !== 0) return undefined;
    buffer = ((buffer << 5) | v) & 0x1fff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (buffer >>> bits) & 0xff;
    }
  }
  return out;
}
