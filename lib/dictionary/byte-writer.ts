/**
 * Writer for the same encodings `ByteReader` reads. Sizes are computed first so each value is written into
 * one exact allocation; `finish()` returns a view of that allocation (no copy).
 */
import { DictionaryError } from './errors';
import { MLS_VARINT_MAX } from './byte-reader';

/** Bytes the MLS `<V>` varint takes for `n`. */
export function mlsVarintSize(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > MLS_VARINT_MAX) {
    throw new DictionaryError('LENGTH_TOO_LARGE', `a <V> length must be an integer 0..${MLS_VARINT_MAX}, got ${n}`);
  }
  return n < 0x40 ? 1 : n < 0x4000 ? 2 : 4;
}

/** Bytes the shortest QUIC varint takes for a component id. */
export function quicComponentIdSize(id: number): number {
  checkComponentId(id);
  return id < 0x40 ? 1 : id < 0x4000 ? 2 : 4;
}

function checkComponentId(id: number): void {
  if (!Number.isInteger(id) || id < 0 || id > 0xffff) {
    throw new DictionaryError('COMPONENT_ID_TOO_LARGE', `a component id must be an integer 0..0xFFFF, got ${id}`);
  }
}

export class ByteWriter {
  private readonly buf: Uint8Array;
  private pos = 0;

  constructor(size: number) {
    this.buf = new Uint8Array(size);
  }

  u8(v: number): this {
    this.buf[this.pos++] = v;
    return this;
  }

  u16(v: number): this {
    this.buf[this.pos++] = v >> 8;
    this.buf[this.pos++] = v & 0xff;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  mlsVarint(n: number): this {
    const size = mlsVarintSize(n);
    if (size === 1) return this.u8(n);
    if (size === 2) return this.u8(0x40 | (n >> 8)).u8(n & 0xff);
    return this.u8(0x80 | (n >>> 24)).u8((n >> 16) & 0xff).u8((n >> 8) & 0xff).u8(n & 0xff);
  }

  vBytes(b: Uint8Array): this {
    return this.mlsVarint(b.length).bytes(b);
  }

  quicComponentId(id: number): this {
    const size = quicComponentIdSize(id);
    if (size === 1) return this.u8(id);
    if (size === 2) return this.u8(0x40 | (id >> 8)).u8(id & 0xff);
    return this.u8(0x80).u8(0).u8(id >> 8).u8(id & 0xff);
  }

  /** InboxId: version 0 then the 32 id bytes. */
  inboxId(id: Uint8Array): this {
    return this.u8(0).bytes(id);
  }

  finish(): Uint8Array {
    if (this.pos !== this.buf.length) {
      throw new DictionaryError('INTERNAL_SIZE', `writer sized ${this.buf.length} bytes but wrote ${this.pos}`);
    }
    return this.buf;
  }
}
