/**
 * A lossless, strict JSON parser for the JSON floor (mesh-reference-facts.md §1).
 *
 * `JSON.parse` cannot serve: it rounds integers above 2^53 (a `lamport_clock` of 2^64 − 1 must decode exactly,
 * then clamp), it keeps only the last of two equal keys (the reference rejects a repeated field), and it reports
 * every failure as a `SyntaxError`. This parser reads UTF-8 bytes the way serde_json's `from_slice` does:
 * RFC 8259 syntax, whitespace only around values, strings as strict UTF-8 with paired surrogate escapes,
 * nothing after the top-level value but whitespace.
 *
 * The tree keeps what a decoder needs and JSON.parse drops: integers stay integers (a `number` when it has at
 * most 15 digits, otherwise a `bigint`), every other number is a `JsonFloat` holding its text (so `1.0`, `1e3`
 * and `-0` are not integers, as in serde_json), and an object keeps its entries in order, repeats included, so
 * that each decoder decides what a repeated key means.
 *
 * Bounds: nesting deeper than `MAX_JSON_DEPTH` is refused, so hostile input cannot exhaust the stack; nothing is
 * allocated beyond what the bytes themselves contain. Every failure is a `MeshDecodeError`.
 */
import { isUtf8 } from 'node:buffer';
import { MeshDecodeError } from './errors';
import { type FastBuffer, fastBuffer } from './fast-buffer';

export const MAX_JSON_DEPTH = 128;

/** A JSON number that is not an integer token: a fraction, an exponent, or `-0`. */
export class JsonFloat {
  constructor(readonly text: string) {}
  get value(): number {
    return Number(this.text);
  }
}

/** An object's entries in document order; a repeated key appears once per occurrence. */
export class JsonObject {
  readonly keys: string[] = [];
  readonly values: JsonValue[] = [];
}

export type JsonValue = null | boolean | number | bigint | string | JsonFloat | JsonValue[] | JsonObject;

const enum Ch {
  Tab = 0x09,
  Lf = 0x0a,
  Cr = 0x0d,
  Space = 0x20,
  Quote = 0x22,
  Plus = 0x2b,
  Comma = 0x2c,
  Minus = 0x2d,
  Dot = 0x2e,
  Slash = 0x2f,
  Zero = 0x30,
  Nine = 0x39,
  Colon = 0x3a,
  E = 0x45,
  LBracket = 0x5b,
  Backslash = 0x5c,
  RBracket = 0x5d,
  LowerE = 0x65,
  LBrace = 0x7b,
  RBrace = 0x7d,
}

function hex4(bytes: Uint8Array, at: number): number {
  let n = 0;
  for (let i = 0; i < 4; i++) {
    const c = bytes[at + i];
    let d: number;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
    else return -1;
    n = (n << 4) | d;
  }
  return n;
}

class JsonParser {
  private pos: number;
  private depth = 0;
  private readonly buf: FastBuffer;

  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    private readonly end: number,
    private readonly field: string | undefined,
  ) {
    this.pos = start;
    this.buf = fastBuffer(bytes);
  }

  document(): JsonValue {
    this.skipWhitespace();
    const value = this.value();
    this.skipWhitespace();
    if (this.pos < this.end) throw this.error('JSON_TRAILING_BYTES', 'unexpected bytes after the JSON value');
    return value;
  }

  private error(code: string, message: string): MeshDecodeError {
    const details: Record<string, unknown> = { offset: this.pos };
    if (this.field !== undefined) details.field = this.field;
    const where = this.field === undefined ? '' : `${this.field}: `;
    return new MeshDecodeError(code, `${where}${message} at byte ${this.pos}`, details);
  }

  private syntax(message: string): MeshDecodeError {
    return this.error('JSON_SYNTAX', this.pos >= this.end ? 'unexpected end of JSON' : message);
  }

  private skipWhitespace(): void {
    const b = this.bytes;
    let p = this.pos;
    while (p < this.end) {
      const c = b[p];
      if (c !== Ch.Space && c !== Ch.Lf && c !== Ch.Cr && c !== Ch.Tab) break;
      p++;
    }
    this.pos = p;
  }

  private value(): JsonValue {
    if (this.pos >= this.end) throw this.syntax('expected a value');
    const c = this.bytes[this.pos];
    switch (c) {
      case Ch.Quote:
        this.pos++;
        return this.string();
      case Ch.LBrace:
        return this.object();
      case Ch.LBracket:
        return this.array();
      case 0x74: // t
        return this.literal('true', true);
      case 0x66: // f
        return this.literal('false', false);
      case 0x6e: // n
        return this.literal('null', null);
      default:
        if (c === Ch.Minus || (c >= Ch.Zero && c <= Ch.Nine)) return this.number();
        throw this.syntax('expected a value');
    }
  }

  private literal<T extends JsonValue>(word: string, value: T): T {
    const b = this.bytes;
    for (let i = 0; i < word.length; i++) {
      if (this.pos + i >= this.end || b[this.pos + i] !== word.charCodeAt(i)) {
        this.pos += i;
        throw this.syntax(`expected '${word}'`);
      }
    }
    this.pos += word.length;
    return value;
  }

  private enter(): void {
    if (++this.depth > MAX_JSON_DEPTH) throw this.error('JSON_TOO_DEEP', `nesting deeper than ${MAX_JSON_DEPTH} levels`);
  }

  private object(): JsonObject {
    this.enter();
    this.pos++;
    const out = new JsonObject();
    this.skipWhitespace();
    if (this.pos < this.end && this.bytes[this.pos] === Ch.RBrace) {
      this.pos++;
      this.depth--;
      return out;
    }
    for (;;) {
      if (this.pos >= this.end || this.bytes[this.pos] !== Ch.Quote) throw this.syntax('expected a string key');
      this.pos++;
      out.keys.push(this.string());
      this.skipWhitespace();
      if (this.pos >= this.end || this.bytes[this.pos] !== Ch.Colon) throw this.syntax("expected ':'");
      this.pos++;
      this.skipWhitespace();
      out.values.push(this.value());
      this.skipWhitespace();
      if (this.pos >= this.end) throw this.syntax("expected ',' or '}'");
      const c = this.bytes[this.pos++];
      if (c === Ch.RBrace) break;
      if (c !== Ch.Comma) {
        this.pos--;
        throw this.syntax("expected ',' or '}'");
      }
      this.skipWhitespace();
    }
    this.depth--;
    return out;
  }

  private array(): JsonValue[] {
    this.enter();
    this.pos++;
    const out: JsonValue[] = [];
    this.skipWhitespace();
    if (this.pos < this.end && this.bytes[this.pos] === Ch.RBracket) {
      this.pos++;
      this.depth--;
      return out;
    }
    for (;;) {
      out.push(this.smallIntegerAhead() ? this.smallInteger() : this.value());
      this.skipWhitespace();
      if (this.pos >= this.end) throw this.syntax("expected ',' or ']'");
      const c = this.bytes[this.pos++];
      if (c === Ch.RBracket) break;
      if (c !== Ch.Comma) {
        this.pos--;
        throw this.syntax("expected ',' or ']'");
      }
      this.skipWhitespace();
    }
    this.depth--;
    return out;
  }

  /**
   * Whether a plain non-negative integer of at most 15 digits starts here and ends at a delimiter: the elements of
   * `binary_content`, which the JSON floor writes as an array of numbers (a 256 KiB chunk is 256 Ki of them).
   * Anything else (fractions, exponents, signs, leading zeros, long numbers) takes the general path.
   */
  private smallIntegerAhead(): boolean {
    const b = this.bytes;
    let p = this.pos;
    const c = b[p];
    if (c < Ch.Zero || c > Ch.Nine || p >= this.end) return false;
    p++;
    if (c !== Ch.Zero) while (p < this.end && b[p] >= Ch.Zero && b[p] <= Ch.Nine && p - this.pos < 16) p++;
    if (p - this.pos > 15 || p >= this.end) return false;
    const next = b[p];
    return next === Ch.Comma || next === Ch.RBracket || next === Ch.Space || next === Ch.Lf || next === Ch.Cr || next === Ch.Tab;
  }

  private smallInteger(): number {
    const b = this.bytes;
    let p = this.pos;
    let n = 0;
    while (b[p] >= Ch.Zero && b[p] <= Ch.Nine) n = n * 10 + (b[p++] - Ch.Zero);
    this.pos = p;
    return n;
  }

  private number(): number | bigint | JsonFloat {
    const b = this.bytes;
    const start = this.pos;
    let p = start;
    const negative = b[p] === Ch.Minus;
    if (negative) p++;
    if (p >= this.end) {
      this.pos = p;
      throw this.syntax('expected a digit');
    }
    if (b[p] === Ch.Zero) {
      p++;
      if (p < this.end && b[p] >= Ch.Zero && b[p] <= Ch.Nine) {
        this.pos = p;
        throw this.syntax('a number has a leading zero');
      }
    } else if (b[p] >= Ch.Zero && b[p] <= Ch.Nine) {
      while (p < this.end && b[p] >= Ch.Zero && b[p] <= Ch.Nine) p++;
    } else {
      this.pos = p;
      throw this.syntax('expected a digit');
    }
    const intEnd = p;
    let integer = true;
    if (p < this.end && b[p] === Ch.Dot) {
      integer = false;
      p++;
      const from = p;
      while (p < this.end && b[p] >= Ch.Zero && b[p] <= Ch.Nine) p++;
      if (p === from) {
        this.pos = p;
        throw this.syntax('expected a digit after the decimal point');
      }
    }
    if (p < this.end && (b[p] === Ch.LowerE || b[p] === Ch.E)) {
      integer = false;
      p++;
      if (p < this.end && (b[p] === Ch.Plus || b[p] === Ch.Minus)) p++;
      const from = p;
      while (p < this.end && b[p] >= Ch.Zero && b[p] <= Ch.Nine) p++;
      if (p === from) {
        this.pos = p;
        throw this.syntax('expected a digit in the exponent');
      }
    }
    this.pos = p;
    const digits = intEnd - start - (negative ? 1 : 0);
    // serde_json reads `-0` as a float, so it is no integer either.
    if (!integer || (negative && digits === 1 && b[intEnd - 1] === Ch.Zero)) return new JsonFloat(this.buf.latin1Slice(start, p));
    if (digits <= 15) {
      let n = 0;
      for (let i = negative ? start + 1 : start; i < intEnd; i++) n = n * 10 + (b[i] - Ch.Zero);
      return negative ? -n : n;
    }
    return BigInt(this.buf.latin1Slice(start, intEnd));
  }

  /** After the opening quote. */
  private string(): string {
    const b = this.bytes;
    const start = this.pos;
    let p = start;
    // Fast path: printable ASCII without escapes, the common case for ids, names and metadata.
    while (p < this.end) {
      const c = b[p];
      if (c === Ch.Quote) {
        this.pos = p + 1;
        return this.buf.latin1Slice(start, p);
      }
      if (c === Ch.Backslash || c < 0x20 || c >= 0x80) break;
      p++;
    }
    return this.slowString(start, p);
  }

  private slowString(start: number, from: number): string {
    const b = this.bytes;
    let out = '';
    let segment = start;
    let p = from;
    let ascii = true;
    for (;;) {
      if (p >= this.end) {
        this.pos = p;
        throw this.syntax('unterminated string');
      }
      const c = b[p];
      if (c === Ch.Quote) {
        out += this.segment(segment, p, ascii);
        this.pos = p + 1;
        return out;
      }
      if (c < 0x20) {
        this.pos = p;
        throw this.syntax('control character in a string');
      }
      if (c >= 0x80) {
        ascii = false;
        p++;
        continue;
      }
      if (c !== Ch.Backslash) {
        p++;
        continue;
      }
      out += this.segment(segment, p, ascii);
      ascii = true;
      p++;
      if (p >= this.end) {
        this.pos = p;
        throw this.syntax('unterminated escape');
      }
      const e = b[p++];
      switch (e) {
        case Ch.Quote:
          out += '"';
          break;
        case Ch.Backslash:
          out += '\\';
          break;
        case Ch.Slash:
          out += '/';
          break;
        case 0x62:
          out += '\b';
          break;
        case 0x66:
          out += '\f';
          break;
        case 0x6e:
          out += '\n';
          break;
        case 0x72:
          out += '\r';
          break;
        case 0x74:
          out += '\t';
          break;
        case 0x75: {
          const unit = this.unicodeEscape(p);
          p += 4;
          if (unit >= 0xdc00 && unit <= 0xdfff) {
            this.pos = p;
            throw this.syntax('lone trailing surrogate in a \\u escape');
          }
          if (unit >= 0xd800 && unit <= 0xdbff) {
            if (p + 1 >= this.end || b[p] !== Ch.Backslash || b[p + 1] !== 0x75) {
              this.pos = p;
              throw this.syntax('lone leading surrogate in a \\u escape');
            }
            const low = this.unicodeEscape(p + 2);
            if (low < 0xdc00 || low > 0xdfff) {
              this.pos = p;
              throw this.syntax('lone leading surrogate in a \\u escape');
            }
            p += 6;
            out += String.fromCharCode(unit, low);
          } else {
            out += String.fromCharCode(unit);
          }
          break;
        }
        default:
          this.pos = p - 1;
          throw this.syntax('invalid escape');
      }
      segment = p;
    }
  }

  private unicodeEscape(at: number): number {
    if (at + 4 > this.end) {
      this.pos = this.end;
      throw this.syntax('unterminated \\u escape');
    }
    const unit = hex4(this.bytes, at);
    if (unit < 0) {
      this.pos = at;
      throw this.syntax('invalid \\u escape');
    }
    return unit;
  }

  private segment(from: number, to: number, ascii: boolean): string {
    if (from === to) return '';
    if (ascii) return this.buf.latin1Slice(from, to);
    const view = this.bytes.subarray(from, to);
    if (!isUtf8(view)) {
      this.pos = from;
      throw this.error('BAD_UTF8', 'invalid UTF-8 in a string');
    }
    return this.buf.utf8Slice(from, to);
  }
}

/**
 * Parses one JSON document from `bytes[start, end)`. `field` names the embedded document in errors (binary v1
 * carries media metadata, forward attribution and reply context as JSON blobs).
 */
export function parseJson(bytes: Uint8Array, start = 0, end = bytes.length, field?: string): JsonValue {
  return new JsonParser(bytes, start, end, field).document();
}
