/**
 * The one-part `multipart/form-data` body of `POST /media/upload` (message-hub-client-guide.md §15.1, RFC 7578): a
 * part named `file` with a `filename` and a `Content-Type`. Only the framing lives here, as two small buffers around
 * the file's bytes, so the file itself streams through untouched and the exact `Content-Length` is known up front.
 */
import { randomBytes } from 'node:crypto';
import { MediaError } from './errors';

export interface MultipartFrame {
  /** Value of the request's `Content-Type` header. */
  contentType: string;
  /** Everything before the file's first byte. */
  head: Buffer;
  /** Everything after the file's last byte. */
  tail: Buffer;
}

// RFC 2045 token characters, for the type and subtype of a MIME type.
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MIME_RE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\\\r\\n]*"))*$`);

/** A MIME type that can go in a header as given; parameters (`; codecs=opus`) are allowed. */
export function checkMime(mime: string): string {
  const trimmed = mime.trim();
  if (!MIME_RE.test(trimmed)) throw new MediaError('BAD_OPTIONS', `not a MIME type: '${mime.slice(0, 80)}' (expected type/subtype)`);
  return trimmed;
}

/**
 * The file name as it goes in `filename="…"`: the last path segment only, control characters dropped (a CR or LF
 * would end the header), and `"` and `\` as quoted-pairs, which multipart parsers (Go's mime package among them)
 * read back to the original characters. Non-ASCII stays raw UTF-8, as browsers send it.
 */
export function filenameForHeader(name: string): string {
  return cleanFileName(name).replace(/["\\]/g, (c) => `\\${c}`);
}

/** The last path segment with control characters dropped: what the hub will store as `name`. */
export function cleanFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  return base.replace(/[\u0000-\u001f\u007f]/g, '');
}

/** A boundary that cannot occur by chance in the file (RFC 2046 allows 70 characters; this uses 48). */
export function newBoundary(): string {
  return `----clawling-media-${randomBytes(15).toString('hex')}`;
}

export function multipartFrame(fileName: string, mime: string, boundary = newBoundary()): MultipartFrame {
  const head =
    `--${boundary}\r\n` +
    `Content-Disposition: form-data; name="file"; filename="${filenameForHeader(fileName)}"\r\n` +
    `Content-Type: ${checkMime(mime)}\r\n` +
    '\r\n';
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    head: Buffer.from(head, 'utf8'),
    tail: Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'),
  };
}
