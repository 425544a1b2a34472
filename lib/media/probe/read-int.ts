/**
 * Integer reads for the header probes. Each returns `undefined` when the bytes are not there, so a truncated or
 * hostile header yields "not known" instead of a RangeError.
 */

export function u8(b: Uint8Array, o: number): number | undefined {
  return o >= 0 && o < b.length ? b[o] : undefined;
}

export function u16be(b: Uint8Array, o: number): number | undefined {
  return o >= 0 && o + 2 <= b.length ? (b[o] << 8) | b[o + 1] : undefined;
}

export function u16le(b: Uint8Array, o: number): number | undefined {
  return o >= 0 && o + 2 <= b.length ? b[o] | (b[o + 1] << 8) : undefined;
}

export function u24le(b: Uint8Array, o: number): number | undefined {
  return o >= 0 && o + 3 <= b.length ? b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) : undefined;
}

export function u32be(b: Uint8Array, o: number): number | undefined {
  return o >= 0 && o + 4 <= b.length ? ((b[o] << 24) >>> 0) + ((b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) : undefined;
}

export function u32le(b: Uint8Array, o: number): number | undefined {
  return o >= 0 && o + 4 <= b.length ? ((b[o + 3] << 24) >>> 0) + ((b[o + 2] << 16) | (b[o + 1] << 8) | b[o]) : undefined;
}

export function i32be(b: Uint8Array, o: number): number | undefined {
  const v = u32be(b, o);
  return v === undefined ? undefined : v | 0;
}

/** A 64-bit unsigned value as a number; `undefined` when it does not fit in 2^53 (no real file is that long). */
export function u64be(b: Uint8Array, o: number): number | undefined {
  const hi = u32be(b, o);
  const lo = u32be(b, o + 4);
  if (hi === undefined || lo === undefined || hi >= 0x200000) return undefined;
  return hi * 0x100000000 + lo;
}

export function u64le(b: Uint8Array, o: number): number | undefined {
  const lo = u32le(b, o);
  const hi = u32le(b, o + 4);
  if (hi === undefined || lo === undefined || hi >= 0x200000) return undefined;
  return hi * 0x100000000 + lo;
}

/** `true` when the bytes at `o` spell `text` (ASCII). */
export function hasAscii(b: Uint8Array, o: number, text: string): boolean {
  if (o < 0 || o + text.length > b.length) return false;
  for (let i = 0; i < text.length; i++) if (b[o + i] !== text.charCodeAt(i)) return false;
  return true;
}

export function ascii(b: Uint8Array, o: number, n: number): string | undefined {
  if (o < 0 || o + n > b.length) return undefined;
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(b[o + i]);
  return s;
}
