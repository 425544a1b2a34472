/**
 * A bounded reader for the primitives of binary wire v1 (mesh-message-wire.md, primitive table; the rules coincide
 * with postcard 1.x, mesh-reference-facts.md §2 "Decoder leniency").
 *
 * Hostile input is the normal case here. Every read checks against `end` before it slices, allocates or moves,
 * and a length prefix larger than what remains is refused before anything is made of it. Varints follow
 * postcard exactly: overlong spellings are accepted (`80 00` is 0), a varint longer than its type allows, or
 * whose last permitted byte carries bits beyond the type's width, is refused. Errors are `MeshDecodeError`
 * with codes `TRUNCATED`, `BAD_VARINT`, `BAD_BOOL`, `BAD_OPTION_TAG` and `BAD_UTF8`.
 *
 * Strings and byte fields come out as zero-copy views where the type allows: `bytes()` is a `subarray` of the
 * input, so a caller that keeps it must not reuse the input buffer.
 */
import { isUtf8 } from 'node:buffer';
import { MeshDecodeError } from './errors';
import { type FastBuffer, fastBuffer } from './fast-buffer';

/**
 * Bytes decoded in one native call when an ASCII string falls outside the current window; later ASCII strings inside
 * it are substrings. Small enough not to copy much of a binary payload that follows the header strings.
 */
const ASCII_WINDOW_BYTES = 256;

export class PostcardReader {
  pos: number;
  private readonly buf: FastBuffer;
  private window: string | undefined;
  private windowStart = 0;
  private windowEnd = 0;

  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    private readonly end: number = bytes.length,
  ) {
    this.pos = start;
    this.buf = fastBuffer(bytes);
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  private fail(code: string, what: string): MeshDecodeError {
    return new MeshDecodeError(code, `${what} at byte ${this.pos}`, { offset: this.pos });
  }

  truncated(what: string): MeshDecodeError {
    return this.fail('TRUNCATED', `frame ends inside ${what}`);
  }

  u8(what: string): number {
    if (this.pos >= this.end) throw this.truncated(what);
    return this.bytes[this.pos++];
  }

  bool(what: string): boolean {
    const b = this.u8(what);
    if (b > 1) {
      this.pos--;
      throw this.fail('BAD_BOOL', `${what} is ${b}, not 0 or 1`);
    }
    return b === 1;
  }

  /** The `Option` tag: true for Some. */
  option(what: string): boolean {
    const b = this.u8(what);
    if (b > 1) {
      this.pos--;
      throw this.fail('BAD_OPTION_TAG', `${what} has option tag ${b}, not 0 or 1`);
    }
    return b === 1;
  }

  /** `n` raw bytes as a view (no length prefix: the 16-byte ids). */
  raw(n: number, what: string): Uint8Array {
    if (this.end - this.pos < n) throw this.truncated(what);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A fresh copy of the next 16 bytes (the ids), without making a view first. */
  copy16(what: string): Uint8Array {
    if (this.end - this.pos < 16) throw this.truncated(what);
    const out = new Uint8Array(16);
    const b = this.bytes;
    const at = this.pos;
    for (let i = 0; i < 16; i++) out[i] = b[at + i];
    this.pos = at + 16;
    return out;
  }

  /** u16 varint: at most 3 bytes, the third at most 0x03. */
  u16(what: string): number {
    let out = 0;
    for (let i = 0; i < 3; i++) {
      const b = this.u8(what);
      out |= (b & 0x7f) << (7 * i);
      if (b < 0x80) {
        if (i === 2 && b > 0x03) throw this.fail('BAD_VARINT', `${what} exceeds 16 bits`);
        return out;
      }
    }
    throw this.fail('BAD_VARINT', `${what} is longer than 3 bytes`);
  }

  /**
   * A usize/u64 varint as a `number`: exact up to 2^53, and above that still larger than any buffer, which is
   * all a length or a count is ever compared with.
   */
  private varNumber(what: string): number {
    const b = this.bytes;
    if (this.pos < this.end && b[this.pos] < 0x80) return b[this.pos++];
    let out = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const byte = this.u8(what);
      out += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        if (i === 9 && byte > 0x01) throw this.fail('BAD_VARINT', `${what} exceeds 64 bits`);
        return out;
      }
      scale *= 128;
    }
    throw this.fail('BAD_VARINT', `${what} is longer than 10 bytes`);
  }

  /** A length prefix, refused unless that many bytes remain. */
  length(what: string): number {
    const n = this.varNumber(what);
    if (n > this.end - this.pos) throw this.fail('TRUNCATED', `${what} declares ${n} bytes but ${this.end - this.pos} remain`);
    return n;
  }

  /**
   * An element count for a list whose elements take at least `minElementBytes` each: refused when even that many
   * could not fit, so that no loop or allocation ever runs on a hostile count.
   */
  count(what: string, minElementBytes: number): number {
    const n = this.varNumber(what);
    if (n * minElementBytes > this.end - this.pos) {
      throw this.fail('TRUNCATED', `${what} declares ${n} entries but only ${this.end - this.pos} bytes remain`);
    }
    return n;
  }

  /** u64 varint as a bigint, with a number fast path below 2^49. */
  u64(what: string): bigint {
    const b = this.bytes;
    if (this.pos < this.end && b[this.pos] < 0x80) return BigInt(b[this.pos++]);
    const start = this.pos;
    let out = 0;
    let scale = 1;
    for (let i = 0; i < 7; i++) {
      const byte = this.u8(what);
      out += (byte & 0x7f) * scale;
      if (byte < 0x80) return BigInt(out);
      scale *= 128;
    }
    this.pos = start;
    return this.u64Slow(what);
  }

  private u64Slow(what: string): bigint {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      const byte = this.u8(what);
      const bits = byte & 0x7f;
      const shift = 7 * i;
      // Bits 0..31 go to lo, 32..63 to hi; byte 4 straddles the halves.
      if (shift < 28) lo += bits * 2 ** shift;
      else if (shift === 28) {
        lo += (bits & 0x0f) * 2 ** 28;
        hi += bits >>> 4;
      } else hi += bits * 2 ** (shift - 32);
      if (byte < 0x80) {
        if (i === 9 && byte > 0x01) throw this.fail('BAD_VARINT', `${what} exceeds 64 bits`);
        return (BigInt(hi) << 32n) | BigInt(lo);
      }
    }
    throw this.fail('BAD_VARINT', `${what} is longer than 10 bytes`);
  }

  /** i64: zigzag over a u64 varint; below 2^49 the zigzag is undone on a number and one bigint is made. */
  i64(what: string): bigint {
    const start = this.pos;
    let z = 0;
    let scale = 1;
    for (let i = 0; i < 7; i++) {
      const byte = this.u8(what);
      z += (byte & 0x7f) * scale;
      if (byte < 0x80) return BigInt(z % 2 === 1 ? -(z + 1) / 2 : z / 2);
      scale *= 128;
    }
    this.pos = start;
    const big = this.u64Slow(what);
    return big & 1n ? -((big + 1n) >> 1n) : big >> 1n;
  }

  /** Length-prefixed bytes, as a view into the input. */
  bytesView(what: string): Uint8Array {
    const n = this.length(what);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /**
   * An ASCII run as a string. The fixed-order fields put sender, recipient, app_id and short content next to each
   * other (and the metadata pairs likewise), so one native decode of the window they sit in, sliced in JS, replaces
   * a native call per string. Only ASCII bytes read the same through latin1, which is why the caller checks first.
   */
  private ascii(start: number, end: number): string {
    if (this.window !== undefined && start >= this.windowStart && end <= this.windowEnd) {
      return this.window.substring(start - this.windowStart, end - this.windowStart);
    }
    if (end - start >= ASCII_WINDOW_BYTES) return this.buf.latin1Slice(start, end);
    this.windowStart = start;
    this.windowEnd = Math.min(this.end, start + ASCII_WINDOW_BYTES);
    this.window = this.buf.latin1Slice(start, this.windowEnd);
    return this.window.substring(0, end - start);
  }

  /** Length-prefixed strict UTF-8. */
  str(what: string): string {
    const n = this.length(what);
    const start = this.pos;
    const end = start + n;
    const b = this.bytes;
    this.pos = end;
    // ASCII (identifiers, metadata, most text) needs no UTF-8 decoding at all.
    let i = start;
    while (i < end && b[i] < 0x80) i++;
    if (i === end) return this.ascii(start, end);
    // The lenient decoder replaces every invalid sequence with U+FFFD, so output without one proves the input
    // valid; only text that holds a U+FFFD (rare, and legal) pays for the strict check.
    const text = this.buf.utf8Slice(start, end);
    if (text.indexOf('\uFFFD') !== -1 && !isUtf8(b.subarray(start, end))) {
      this.pos = start;
      throw this.fail('BAD_UTF8', `${what} is not valid UTF-8`);
    }
    return text;
  }
}
