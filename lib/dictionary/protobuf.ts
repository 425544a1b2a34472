/**
 * The small part of the protobuf binary format the dictionary needs to validate XMTP messages
 * (ComponentMetadata, MetadataPolicy, GroupMembershipEntry, OneshotMessage) while keeping their raw bytes.
 *
 * Decoding follows what prost (the decoder XMTP clients use) accepts: varints of at most ten bytes, tags that fit
 * 32 bits with a field number of at least 1, wire types 0–5 with groups skipped in unknown fields, a field whose
 * wire type disagrees with its declaration is an error, and nesting deeper than 100 messages is an error.
 * Every length is checked against the end of the input before anything is sliced.
 */
import { DictionaryError } from './errors';
import { concatBytes } from '../bytes';

export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
export const WIRE_SGROUP = 3;
export const WIRE_EGROUP = 4;
export const WIRE_I32 = 5;

/** prost's default recursion limit. */
export const PROTOBUF_MAX_DEPTH = 100;

export interface ProtoTag {
  readonly field: number;
  readonly wire: number;
}

export function protobufError(context: string, message: string): DictionaryError {
  return new DictionaryError('PROTOBUF_MALFORMED', `${context}: ${message}`);
}

export class ProtoReader {
  private pos: number;

  constructor(
    private readonly buf: Uint8Array,
    readonly context: string,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  atEnd(): boolean {
    return this.pos >= this.end;
  }

  /** Low and high 32-bit halves of a varint, as unsigned numbers. */
  private varint64(): [number, number] {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw protobufError(this.context, 'truncated varint');
      const b = this.buf[this.pos++];
      if (i < 4) lo |= (b & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >> 4;
      } else if (i === 9 && b > 1) throw protobufError(this.context, 'varint overflows 64 bits');
      else hi |= (b & 0x7f) << (7 * i - 32);
      if ((b & 0x80) === 0) return [lo >>> 0, hi >>> 0];
    }
    throw protobufError(this.context, 'varint longer than ten bytes');
  }

  /** The next tag, or `undefined` at the end of this message. */
  tag(): ProtoTag | undefined {
    if (this.pos >= this.end) return undefined;
    const [lo, hi] = this.varint64();
    if (hi !== 0) throw protobufError(this.context, 'tag does not fit 32 bits');
    const wire = lo & 7;
    const field = lo >>> 3;
    if (field === 0) throw protobufError(this.context, 'field number 0');
    if (wire > 5) throw protobufError(this.context, `invalid wire type ${wire}`);
    return { field, wire };
  }

  /** An enum or int32 value: the low 32 bits, signed, as protobuf truncates. */
  int32(): number {
    return this.varint64()[0] | 0;
  }

  uint64(): bigint {
    const [lo, hi] = this.varint64();
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  /** A length-delimited field's body, as a view. */
  lengthDelimited(): Uint8Array {
    const [lo, hi] = this.varint64();
    if (hi !== 0 || lo > this.end - this.pos) throw protobufError(this.context, 'length-delimited field runs past the end');
    const out = this.buf.subarray(this.pos, this.pos + lo);
    this.pos += lo;
    return out;
  }

  /** Skips one field whose tag was just read (unknown fields are kept by the caller as raw bytes). */
  skip(tag: ProtoTag, depth: number): void {
    switch (tag.wire) {
      case WIRE_VARINT:
        this.varint64();
        return;
      case WIRE_I64:
        this.fixed(8);
        return;
      case WIRE_I32:
        this.fixed(4);
        return;
      case WIRE_LEN:
        this.lengthDelimited();
        return;
      case WIRE_SGROUP: {
        if (depth >= PROTOBUF_MAX_DEPTH) throw protobufError(this.context, 'groups nested too deeply');
        for (;;) {
          const inner = this.tag();
          if (!inner) throw protobufError(this.context, 'unterminated group');
          if (inner.wire === WIRE_EGROUP) {
            if (inner.field !== tag.field) throw protobufError(this.context, 'mismatched end group');
            return;
          }
          this.skip(inner, depth + 1);
        }
      }
      default:
        throw protobufError(this.context, 'end group without a start');
    }
  }

  private fixed(n: number): void {
    if (n > this.end - this.pos) throw protobufError(this.context, 'truncated fixed-width field');
    this.pos += n;
  }
}

/** Throws unless a known field arrived with the wire type its declaration demands. */
export function expectWire(reader: ProtoReader, tag: ProtoTag, wire: number, name: string): void {
  if (tag.wire !== wire) throw protobufError(reader.context, `${name} (field ${tag.field}) has wire type ${tag.wire}, expected ${wire}`);
}

/** Protobuf merge semantics for a singular message field seen more than once: decoding the concatenation. */
export function joinOccurrences(parts: readonly Uint8Array[]): Uint8Array {
  return parts.length === 1 ? parts[0] : concatBytes(parts);
}

/** A growable writer for the few messages we create (registry entries, membership entries). */
export class ProtoWriter {
  private readonly parts: number[] = [];

  varintField(field: number, value: number | bigint): this {
    this.varint((field << 3) | WIRE_VARINT);
    this.varint(value);
    return this;
  }

  bytesField(field: number, bytes: Uint8Array): this {
    this.varint((field << 3) | WIRE_LEN);
    this.varint(bytes.length);
    for (const b of bytes) this.parts.push(b);
    return this;
  }

  private varint(value: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.parts.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.parts.push(Number(v));
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}
