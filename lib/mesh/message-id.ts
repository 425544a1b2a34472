/**
 * Message ids: 128-bit UUIDs (mesh-message-wire.md, field `id`; mesh-reference-facts.md §1, `id`).
 *
 * The wire carries 16 raw bytes (binary v1) or a string (JSON floor). On the JSON floor the reference writes the
 * lowercase hyphenated form and reads every spelling its UUID parser takes: hyphenated, 32-hex simple, `{braced}`
 * and `urn:uuid:…`, with hex digits in either case. Any UUID version is accepted, since the id is an opaque
 * identity for deduplication, not a claim about how it was made.
 */
import { randomFillSync } from 'node:crypto';
import { MeshDecodeError } from './errors';

/** A 16-byte message id; `MessageId.toString()` gives the canonical lowercase hyphenated form. */
export interface MessageIdLike {
  readonly bytes: Uint8Array;
  toString(): string;
}

const HEX_CODES = Buffer.from('0123456789abcdef', 'latin1');
const URN_PREFIX = 'urn:uuid:';

/** Hex digit value of a char code, or -1. */
function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

function badUuid(text: string): MeshDecodeError {
  const shown = text.length > 48 ? `${text.slice(0, 48)}…` : text;
  return new MeshDecodeError('BAD_UUID', `not a UUID: ${JSON.stringify(shown)}`, { length: text.length });
}

/** Reads 32 hex digits starting at `from`, skipping hyphens at the given offsets (relative to `from`). */
function readHex(text: string, from: number, hyphens: readonly number[]): Uint8Array | undefined {
  const out = new Uint8Array(16);
  let at = from;
  let h = 0;
  for (let i = 0; i < 16; i++) {
    if (h < hyphens.length && at - from === hyphens[h]) {
      if (text.charCodeAt(at) !== 0x2d) return undefined;
      at++;
      h++;
    }
    const hi = hexValue(text.charCodeAt(at));
    const lo = hexValue(text.charCodeAt(at + 1));
    if (hi < 0 || lo < 0) return undefined;
    out[i] = (hi << 4) | lo;
    at += 2;
  }
  return out;
}

const HYPHENATED = [8, 13, 18, 23] as const;

/** Random bytes for 256 ids; `randomAt` at its end means "refill before the next". */
const RANDOM_POOL = new Uint8Array(16 * 256);
let randomAt = RANDOM_POOL.length;

export class MessageId implements MessageIdLike {
  /** The 16 bytes, most significant first. Treat as read-only: the id is a value. */
  readonly bytes: Uint8Array;
  /** The text form, made once: ids are logged, keyed and compared by text on every hop. */
  #text: string | undefined;

  private constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  /**
   * Every spelling the reference accepts: `67e55044-10b1-426f-9247-bb680e5fe0c8`, `67e5504410b1426f9247bb680e5fe0c8`,
   * `{67e55044-…}` and `urn:uuid:67e55044-…` (the `urn:uuid:` prefix in lower case, as the reference's parser
   * requires), hex digits in either case. Throws `MeshDecodeError` code `BAD_UUID`.
   */
  static parse(text: string): MessageId {
    if (typeof text !== 'string') throw new MeshDecodeError('BAD_UUID', `a UUID must be a string, got ${typeof text}`);
    let bytes: Uint8Array | undefined;
    switch (text.length) {
      case 32:
        bytes = readHex(text, 0, []);
        break;
      case 36:
        bytes = readHex(text, 0, HYPHENATED);
        break;
      case 38:
        if (text.charCodeAt(0) === 0x7b && text.charCodeAt(37) === 0x7d) bytes = readHex(text, 1, HYPHENATED);
        break;
      case 45:
        if (text.startsWith(URN_PREFIX)) bytes = readHex(text, URN_PREFIX.length, HYPHENATED);
        break;
      default:
        break;
    }
    if (bytes === undefined) throw badUuid(text);
    return new MessageId(bytes);
  }

  /** Exactly 16 bytes, copied. Throws `MeshDecodeError` code `BAD_UUID` for any other length. */
  static fromBytes(bytes: Uint8Array): MessageId {
    if (!(bytes instanceof Uint8Array) || bytes.length !== 16) {
      const length = bytes instanceof Uint8Array ? bytes.length : undefined;
      throw new MeshDecodeError('BAD_UUID', `a message id is exactly 16 bytes, got ${length ?? typeof bytes}`, { length });
    }
    const copy = new Uint8Array(16);
    copy.set(bytes);
    return new MessageId(copy);
  }

  /**
   * Takes ownership of a fresh 16-byte array without copying (decoders that have just made one). The caller must
   * not keep or change the array afterwards; anything else should use `fromBytes`.
   */
  static adopt(bytes: Uint8Array): MessageId {
    if (!(bytes instanceof Uint8Array) || bytes.length !== 16) return MessageId.fromBytes(bytes);
    return new MessageId(bytes);
  }

  /** A random (version 4) id. */
  static random(): MessageId {
    // 16 bytes from a pool refilled by one system call per 256 ids (as Node's randomUUID keeps its own), taken
    // as bytes: randomUUID renders a string that parsing turns back into bytes, a kilobyte of garbage per ACK.
    if (randomAt === RANDOM_POOL.length) {
      randomFillSync(RANDOM_POOL);
      randomAt = 0;
    }
    const bytes = new Uint8Array(16);
    for (let i = 0; i < 16; i++) bytes[i] = RANDOM_POOL[randomAt + i]!;
    randomAt += 16;
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    return new MessageId(bytes);
  }

  /** Lowercase hyphenated, 36 characters: the only spelling this side emits. */
  toString(): string {
    if (this.#text !== undefined) return this.#text;
    // Written into one buffer and decoded once, so V8 holds a flat 36-byte string rather than a rope of small
    // pieces (a rope costs ~10x the memory in long-lived dedup tables and outboxes).
    const b = this.bytes;
    const out = Buffer.allocUnsafe(36);
    let at = 0;
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) out[at++] = 0x2d;
      out[at++] = HEX_CODES[b[i] >> 4];
      out[at++] = HEX_CODES[b[i] & 15];
    }
    this.#text = out.toString('latin1');
    return this.#text;
  }

  toJSON(): string {
    return this.toString();
  }

  equals(other: MessageIdLike | undefined | null): boolean {
    if (other == null) return false;
    const a = this.bytes;
    const b = other.bytes;
    if (!(b instanceof Uint8Array) || b.length !== 16) return false;
    for (let i = 0; i < 16; i++) if (a[i] !== b[i]) return false;
    return true;
  }
}
