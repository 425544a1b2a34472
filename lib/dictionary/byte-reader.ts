/**
 * Bounded reader for the TLS presentation language as MLS and XMTP use it (RFC 9420 §2.1, RFC 9000 §16).
 *
 * Every read checks the length against `end` before it slices or moves, so a hostile length prefix can never
 * allocate or read past the input; slices are zero-copy views into the caller's buffer, which is how untouched
 * bytes stay byte-identical. All failures are `DictionaryError`s with a stable code.
 */
import { DictionaryError } from './errors';

/** Largest value the MLS `<V>` varint can carry (30 bits). */
export const MLS_VARINT_MAX = 0x3fffffff;

export class ByteReader {
  private pos: number;

  constructor(
    private readonly buf: Uint8Array,
    /** What is being read, for error messages ("dictionary", "GROUP_NAME delta", …). */
    readonly context: string,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get offset(): number {
    return this.pos;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  atEnd(): boolean {
    return this.pos >= this.end;
  }

  private need(n: number, what: string): void {
    if (n > this.end - this.pos) {
      throw new DictionaryError(
        'TRUNCATED',
        `${this.context}: ${what} needs ${n} byte(s) at offset ${this.pos}, ${this.end - this.pos} left`,
        { offset: this.pos },
      );
    }
  }

  u8(what = 'byte'): number {
    this.need(1, what);
    return this.buf[this.pos++];
  }

  u16(what = 'uint16'): number {
    this.need(2, what);
    const v = (this.buf[this.pos] << 8) | this.buf[this.pos + 1];
    this.pos += 2;
    return v;
  }

  /** A zero-copy view of the next `n` bytes. */
  bytes(n: number, what = 'bytes'): Uint8Array {
    this.need(n, what);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** RFC 9420 §2.1.2 length: 1, 2 or 4 bytes; prefix `11` and non-minimal encodings are malformed. */
  mlsVarint(what = 'length'): number {
    const at = this.pos;
    const first = this.u8(what);
    const prefix = first >> 6;
    if (prefix === 0) return first;
    if (prefix === 3) {
      throw new DictionaryError('VARINT_INVALID_PREFIX', `${this.context}: ${what} at offset ${at} uses the invalid prefix 11`, {
        offset: at,
      });
    }
    let value: number;
    if (prefix === 1) {
      value = ((first & 0x3f) << 8) | this.u8(what);
      if (value < 0x40) throw nonMinimal(this.context, what, at);
    } else {
      this.need(3, what);
      value = (first & 0x3f) * 0x1000000 + ((this.buf[this.pos] << 16) | (this.buf[this.pos + 1] << 8) | this.buf[this.pos + 2]);
      this.pos += 3;
      if (value < 0x4000) throw nonMinimal(this.context, what, at);
    }
    return value;
  }

  /** `opaque x<V>`: a length-prefixed view. */
  vBytes(what = 'byte string'): Uint8Array {
    const n = this.mlsVarint(`${what} length`);
    return this.bytes(n, what);
  }

  /** Moves past `n` bytes and returns where they start (a view-free `bytes`). */
  skip(n: number, what = 'bytes'): number {
    this.need(n, what);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  /** A reader over the body of a `<V>` vector; this reader moves past it. */
  vVector(what: string): ByteReader {
    const n = this.mlsVarint(`${what} length`);
    this.need(n, what);
    const sub = new ByteReader(this.buf, this.context, this.pos, this.pos + n);
    this.pos += n;
    return sub;
  }

  /**
   * A component id inside a component value (META-005): a QUIC varint (RFC 9000 §16) whose value is at most
   * 0xFFFF. Only the shortest encoding is accepted, so one id has one spelling and one sort position.
   */
  quicComponentId(what = 'component id'): number {
    const at = this.pos;
    const first = this.u8(what);
    const prefix = first >> 6;
    if (prefix === 0) return first;
    if (prefix === 1) {
      const value = ((first & 0x3f) << 8) | this.u8(what);
      if (value < 0x40) throw quicNonMinimal(this.context, what, at);
      return value;
    }
    const width = prefix === 2 ? 4 : 8;
    this.need(width - 1, what);
    let high = first & 0x3f;
    for (let i = 0; i < width - 3; i++) high = high * 256 + this.buf[this.pos + i];
    const low = (this.buf[this.pos + width - 3] << 8) | this.buf[this.pos + width - 2];
    this.pos += width - 1;
    if (high !== 0) {
      throw new DictionaryError('COMPONENT_ID_TOO_LARGE', `${this.context}: ${what} at offset ${at} decodes above 0xFFFF`, { offset: at });
    }
    if (width === 8 || low < 0x4000) throw quicNonMinimal(this.context, what, at);
    return low;
  }

  /** InboxId (META-011): the version byte must be exactly 0x00, then 32 raw bytes; returns the 32-byte view. */
  inboxId(what = 'inbox id'): Uint8Array {
    const at = this.pos;
    const version = this.u8(`${what} version`);
    if (version !== 0) {
      throw new DictionaryError(
        'INBOX_ID_VERSION',
        `${this.context}: ${what} at offset ${at} has version byte 0x${version.toString(16).padStart(2, '0')}, only 0x00 is defined`,
        { offset: at },
      );
    }
    return this.bytes(32, what);
  }

  expectEnd(what: string): void {
    if (this.pos !== this.end) {
      throw new DictionaryError('TRAILING_BYTES', `${this.context}: ${this.end - this.pos} byte(s) after the ${what}`, {
        offset: this.pos,
      });
    }
  }
}

function nonMinimal(context: string, what: string, at: number): DictionaryError {
  return new DictionaryError('VARINT_NON_MINIMAL', `${context}: ${what} at offset ${at} is not minimally encoded`, { offset: at });
}

function quicNonMinimal(context: string, what: string, at: number): DictionaryError {
  return new DictionaryError('QUIC_VARINT_NON_MINIMAL', `${context}: ${what} at offset ${at} is not minimally encoded`, {
    offset: at,
  });
}
