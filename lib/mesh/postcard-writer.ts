/**
 * A writer for the primitives of binary wire v1 (mesh-message-wire.md, primitive table). Each primitive has
 * exactly one encoding and this writer emits the canonical (shortest) varint, as the reference does.
 *
 * One writer per frame: it owns a growable buffer and `finish()` hands out a view of the bytes written, so that
 * nothing lives at module level and two encodes can never share state.
 */
const encoder = new TextEncoder();

export class PostcardWriter {
  private buf: Uint8Array;
  private pos = 0;

  constructor(sizeHint = 256) {
    this.buf = Buffer.allocUnsafe(Math.max(64, sizeHint));
  }

  private ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + extra) size *= 2;
    const next = Buffer.allocUnsafe(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  u8(value: number): void {
    this.ensure(1);
    this.buf[this.pos++] = value;
  }

  bool(value: boolean): void {
    this.u8(value ? 1 : 0);
  }

  /** Raw bytes, no length prefix (the 16-byte ids). */
  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** Varint of a non-negative safe integer (lengths, counts, tags). */
  varint(value: number): void {
    this.ensure(8);
    const b = this.buf;
    let n = value;
    while (n >= 0x80) {
      b[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    b[this.pos++] = n;
  }

  /** Varint of a u64. */
  u64(value: bigint): void {
    if (value <= 9007199254740991n) {
      this.varint(Number(value));
      return;
    }
    this.ensure(10);
    let n = value;
    while (n >= 0x80n) {
      this.buf[this.pos++] = Number(n & 0x7fn) | 0x80;
      n >>= 7n;
    }
    this.buf[this.pos++] = Number(n);
  }

  /** i64: zigzag, then varint. */
  i64(value: bigint): void {
    if (value >= -4503599627370496n && value < 4503599627370496n) {
      const n = Number(value);
      this.varint(n >= 0 ? n * 2 : -n * 2 - 1);
      return;
    }
    this.u64(value >= 0n ? value << 1n : (-value << 1n) - 1n);
  }

  /** Length-prefixed bytes. */
  bytes(bytes: Uint8Array): void {
    this.varint(bytes.length);
    this.raw(bytes);
  }

  /** Length-prefixed UTF-8 (the string must be well-formed; `createMessage` guarantees it). */
  str(value: string): void {
    const n = value.length;
    // Short ASCII: the length is known without encoding, and a JS loop beats the native call at this size.
    if (n < 0x80) {
      this.ensure(1 + n * 3);
      const b = this.buf;
      const start = this.pos + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = value.charCodeAt(i);
        if (c >= 0x80) break;
        b[start + i] = c;
      }
      if (i === n) {
        b[this.pos] = n;
        this.pos = start + n;
        return;
      }
      // At most 3 bytes per unit, so while 3n < 128 the one-byte prefix still holds.
      if (n * 3 < 0x80) {
        const { written } = encoder.encodeInto(value, b.subarray(start));
        b[this.pos] = written;
        this.pos = start + written;
        return;
      }
    }
    const length = Buffer.byteLength(value, 'utf8');
    this.varint(length);
    this.ensure(length);
    encoder.encodeInto(value, this.buf.subarray(this.pos, this.pos + length));
    this.pos += length;
  }

  /**
   * The bytes written. A view when the buffer is mostly used; a right-sized copy when the slack would keep a
   * large unused allocation alive for as long as the caller holds the frame.
   */
  finish(): Uint8Array {
    if (this.buf.length - this.pos > 4096 && this.buf.length > this.pos * 2) return Buffer.from(this.buf.subarray(0, this.pos));
    return this.buf.subarray(0, this.pos);
  }
}
