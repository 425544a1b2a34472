/**
 * A streaming `multipart/form-data` parser (RFC 7578 over RFC 2046 §5.1): chunks in, events out, nothing buffered but
 * a part's header block and at most one delimiter's worth of bytes between chunks. Body bytes come out as views into
 * the chunks they arrived in, so a 100 MiB upload passes through in constant memory.
 *
 * Hostile input ends in `MultipartError` and nothing else: oversize header blocks, too many parts, a body that ends
 * before its close delimiter, or a boundary that never appears.
 */
import { DevHubError } from '../errors';

export class MultipartError extends DevHubError {
  constructor(message: string) {
    super('MULTIPART_MALFORMED', message);
  }
}

export interface PartHeaders {
  /** The form field name from `Content-Disposition`. */
  name: string | undefined;
  /** The file name (`filename*` preferred over `filename`), as sent; undefined when absent. */
  filename: string | undefined;
  contentType: string | undefined;
}

export type MultipartEvent =
  | { type: 'part'; headers: PartHeaders }
  | { type: 'data'; data: Buffer }
  | { type: 'part-end' }
  | { type: 'done' };

export interface MultipartLimits {
  maxHeaderBytes?: number;
  maxParts?: number;
  /** Bytes tolerated before the first boundary. */
  maxPreambleBytes?: number;
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/** The boundary parameter of a `multipart/form-data` Content-Type, or undefined. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const [type, ...params] = splitParams(contentType);
  if (type.trim().toLowerCase() !== 'multipart/form-data') return undefined;
  for (const param of params) {
    const [key, value] = param;
    if (key === 'boundary' && value.length > 0 && value.length <= 70) return value;
  }
  return undefined;
}

/** `type; a=b; c="d;e"` → ['type', [['a','b'], ['c','d;e']]] with quoted-string unescaping. */
function splitParams(header: string): [string, ...Array<[string, string]>] {
  const out: Array<[string, string]> = [];
  let i = header.indexOf(';');
  const head = i < 0 ? header : header.slice(0, i);
  while (i >= 0 && i < header.length) {
    i++;
    const eq = header.indexOf('=', i);
    if (eq < 0) break;
    const key = header.slice(i, eq).trim().toLowerCase();
    let j = eq + 1;
    while (header[j] === ' ' || header[j] === '\t') j++;
    let value = '';
    if (header[j] === '"') {
      j++;
      while (j < header.length && header[j] !== '"') {
        if (header[j] === '\\' && j + 1 < header.length) j++;
        value += header[j++];
      }
      j = header.indexOf(';', j);
    } else {
      const end = header.indexOf(';', j);
      value = (end < 0 ? header.slice(j) : header.slice(j, end)).trim();
      j = end;
    }
    out.push([key, value]);
    i = j;
  }
  return [head, ...out];
}

/** RFC 5987 `UTF-8''%e2%82%ac.txt`; undefined when it does not decode. */
function decodeExtValue(value: string): string | undefined {
  const match = /^([\w!#$&+.^`|~-]+)'[^']*'(.*)$/.exec(value);
  if (!match || match[1].toLowerCase() !== 'utf-8') return undefined;
  try {
    return decodeURIComponent(match[2]);
  } catch {
    return undefined;
  }
}

function parseHeaders(block: string): PartHeaders {
  const headers: PartHeaders = { name: undefined, filename: undefined, contentType: undefined };
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'content-type') headers.contentType = value;
    if (key !== 'content-disposition') continue;
    const [, ...params] = splitParams(value);
    let extended: string | undefined;
    for (const [k, v] of params) {
      if (k === 'name') headers.name = v;
      else if (k === 'filename') headers.filename = v;
      else if (k === 'filename*') extended = decodeExtValue(v);
    }
    if (extended !== undefined) headers.filename = extended;
  }
  return headers;
}

type State = 'preamble' | 'after-boundary' | 'headers' | 'body' | 'epilogue';

export class MultipartParser {
  private readonly delimiter: Buffer;
  private readonly maxHeaderBytes: number;
  private readonly maxParts: number;
  private readonly maxPreambleBytes: number;
  private state: State = 'preamble';
  /** Bytes held back from the previous chunk. The stream is read as if it began with CRLF, so a boundary on the very first line matches the same delimiter. */
  private carry: Buffer = CRLF;
  private parts = 0;
  private preamble = 0;

  constructor(boundary: string, limits: MultipartLimits = {}) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
    this.maxHeaderBytes = limits.maxHeaderBytes ?? 16 * 1024;
    this.maxParts = limits.maxParts ?? 64;
    this.maxPreambleBytes = limits.maxPreambleBytes ?? 64 * 1024;
  }

  get finished(): boolean {
    return this.state === 'epilogue';
  }

  push(chunk: Buffer): MultipartEvent[] {
    const events: MultipartEvent[] = [];
    if (this.state === 'epilogue') return events;
    let buf = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = Buffer.alloc(0);
    for (;;) {
      const rest = this.step(buf, events);
      if (rest === undefined) return events;
      buf = rest;
    }
  }

  /** Throws unless the close delimiter was seen. */
  end(): void {
    if (this.state !== 'epilogue') {
      throw new MultipartError(this.state === 'preamble' ? 'no multipart boundary found in the body' : 'the body ends before the closing boundary');
    }
  }

  /** Consumes what it can of `buf`; returns the unconsumed rest to go on with, or undefined when it needs more input. */
  private step(buf: Buffer, events: MultipartEvent[]): Buffer | undefined {
    switch (this.state) {
      case 'preamble': {
        const at = buf.indexOf(this.delimiter);
        if (at < 0) {
          const keep = this.partialTail(buf);
          this.preamble += buf.length - keep.length;
          if (this.preamble > this.maxPreambleBytes) throw new MultipartError('no multipart boundary found in the first bytes of the body');
          this.carry = keep;
          return undefined;
        }
        this.state = 'after-boundary';
        return buf.subarray(at + this.delimiter.length);
      }
      case 'after-boundary': {
        let i = 0;
        while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x09)) i++; // transport padding
        if (buf.length - i < 2) {
          this.carry = Buffer.from(buf.subarray(i));
          return undefined;
        }
        if (buf[i] === 0x2d && buf[i + 1] === 0x2d) {
          this.state = 'epilogue';
          events.push({ type: 'done' });
          return undefined;
        }
        if (buf[i] !== 0x0d || buf[i + 1] !== 0x0a) throw new MultipartError('malformed multipart boundary line');
        if (++this.parts > this.maxParts) throw new MultipartError(`more than ${this.maxParts} multipart parts`);
        this.state = 'headers';
        return buf.subarray(i + 2);
      }
      case 'headers': {
        // An empty header block is a bare CRLF right after the boundary line.
        const end = buf.length >= 2 && buf[0] === 0x0d && buf[1] === 0x0a ? -2 : buf.indexOf(HEADER_END);
        if (end === -1) {
          if (buf.length > this.maxHeaderBytes) throw new MultipartError(`a part's headers exceed ${this.maxHeaderBytes} bytes`);
          this.carry = Buffer.from(buf);
          return undefined;
        }
        const blockEnd = end === -2 ? 0 : end;
        if (blockEnd > this.maxHeaderBytes) throw new MultipartError(`a part's headers exceed ${this.maxHeaderBytes} bytes`);
        events.push({ type: 'part', headers: parseHeaders(buf.subarray(0, blockEnd).toString('utf8')) });
        this.state = 'body';
        return buf.subarray(end === -2 ? 2 : end + HEADER_END.length);
      }
      case 'body': {
        const at = buf.indexOf(this.delimiter);
        if (at >= 0) {
          if (at > 0) events.push({ type: 'data', data: buf.subarray(0, at) });
          events.push({ type: 'part-end' });
          this.state = 'after-boundary';
          return buf.subarray(at + this.delimiter.length);
        }
        const keep = this.partialTail(buf);
        const safe = buf.length - keep.length;
        if (safe > 0) events.push({ type: 'data', data: buf.subarray(0, safe) });
        this.carry = keep;
        return undefined;
      }
      default:
        return undefined;
    }
  }

  /** The longest suffix of `buf` that could still grow into the delimiter (copied: it outlives the chunk). */
  private partialTail(buf: Buffer): Buffer {
    const d = this.delimiter;
    const from = Math.max(0, buf.length - d.length + 1);
    for (let j = buf.indexOf(0x0d, from); j >= 0; j = buf.indexOf(0x0d, j + 1)) {
      const n = buf.length - j;
      if (buf.compare(d, 0, n, j, buf.length) === 0) return Buffer.from(buf.subarray(j));
    }
    return Buffer.alloc(0);
  }
}
