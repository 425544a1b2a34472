/**
 * The errors of lib/media (message-hub-client-guide.md §15.6).
 *
 * The hub's numeric envelope `code` is the authority (§15.3 says to branch on it, not on the HTTP status), so each
 * catalogue entry gets one stable string code here; the HTTP status is only a fallback for replies that carry no
 * envelope at all (a proxy's HTML 413 or 502). Client-side failures (size check, network, cancellation, a source
 * that cannot be read) use the same class so that a caller, or a Node-RED Catch node, branches on `code` alone.
 */
import { CodedError } from '../coded-error';
import { own } from './lookup';

export type MediaErrorCode =
  // The hub's catalogue (§15.6).
  | 'MISSING_FILE'
  | 'EMPTY_UPLOAD'
  | 'UNAUTHORIZED'
  | 'TOO_LARGE'
  | 'MIME_NOT_ALLOWED'
  | 'UPLOAD_FAILED'
  | 'STORAGE_NOT_CONFIGURED'
  // A reply outside the catalogue.
  | 'HUB_ERROR'
  | 'HTTP_ERROR'
  | 'BAD_RESPONSE'
  | 'UNHEALTHY'
  // This side.
  | 'NETWORK'
  /** The service's certificate does not verify (unknown CA, wrong name, expired): a setting to fix, never retried. */
  | 'TLS_FAILED'
  | 'TIMEOUT'
  /** The upload's total deadline (`deadlineMs`) passed: a server slower than that is treated as hostile, not retried. */
  | 'DEADLINE'
  | 'ABORTED'
  | 'SOURCE_UNREADABLE'
  | 'SOURCE_SIZE_MISMATCH'
  | 'BAD_OPTIONS';

export interface MediaErrorFacts {
  /** The envelope's numeric `code`, when the hub sent an envelope. */
  hubCode?: number;
  /** The HTTP status, when a reply arrived. */
  status?: number;
  /** True for the classes worth another attempt: network failure, 5xx, 503 storage not configured. */
  retryable?: boolean;
  /** How many attempts were made before giving up (set by `uploadMedia`). */
  attempts?: number;
  [key: string]: unknown;
}

export class MediaError extends CodedError<MediaErrorCode> {
  readonly hubCode: number | undefined;
  readonly status: number | undefined;
  readonly retryable: boolean;

  constructor(code: MediaErrorCode, message: string, facts: MediaErrorFacts = {}, options?: { cause?: unknown }) {
    const details: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(facts)) if (v !== undefined) details[k] = v;
    super(code, message, details, options);
    this.hubCode = facts.hubCode;
    this.status = facts.status;
    this.retryable = facts.retryable === true;
  }

  /** The same error with the attempt count recorded, for the caller's logs. */
  withAttempts(attempts: number): MediaError {
    const copy = new MediaError(this.code, this.message, { ...(this.details as MediaErrorFacts), attempts }, { cause: this.cause });
    copy.stack = this.stack;
    return copy;
  }
}

interface CatalogueEntry {
  code: MediaErrorCode;
  retryable: boolean;
  /** Said before the hub's own `msg`, so the message reads well even when `msg` is terse. */
  lead: string;
}

/** §15.6, keyed by the envelope's numeric code. */
export const HUB_ERROR_CATALOGUE: Readonly<Record<number, CatalogueEntry>> = Object.freeze({
  40001: { code: 'MISSING_FILE', retryable: false, lead: 'the hub found no file part in the upload' },
  40002: { code: 'EMPTY_UPLOAD', retryable: false, lead: 'the hub refused an empty file' },
  40101: { code: 'UNAUTHORIZED', retryable: false, lead: 'the hub refused the token' },
  41301: { code: 'TOO_LARGE', retryable: false, lead: 'the hub refused the file as too large' },
  41501: { code: 'MIME_NOT_ALLOWED', retryable: false, lead: "the hub does not accept this file's MIME type" },
  50001: { code: 'UPLOAD_FAILED', retryable: true, lead: "the hub's storage backend failed" },
  50301: { code: 'STORAGE_NOT_CONFIGURED', retryable: true, lead: 'the hub has no storage configured' },
});

/** For replies without an envelope: the statuses whose meaning §15.6 fixes. */
const STATUS_FALLBACK: Readonly<Record<number, MediaErrorCode>> = Object.freeze({
  401: 'UNAUTHORIZED',
  413: 'TOO_LARGE',
  415: 'MIME_NOT_ALLOWED',
});

/** A non-zero envelope code becomes its catalogue error; an unknown code is `HUB_ERROR`, retryable when it reads as 5xx. */
export function errorFromEnvelope(hubCode: number, msg: string, status: number): MediaError {
  const entry = own(HUB_ERROR_CATALOGUE, hubCode);
  const text = msg.trim() === '' ? `code ${hubCode}` : msg.trim();
  if (entry) return new MediaError(entry.code, `${entry.lead}: ${text}`, { hubCode, status, retryable: entry.retryable });
  // The catalogue's codes are the HTTP status times 100 plus a serial, so an unknown one still tells its class.
  const looksServerSide = Math.floor(hubCode / 100) >= 500 || status >= 500;
  return new MediaError('HUB_ERROR', `the hub answered with error code ${hubCode}: ${text}`, { hubCode, status, retryable: looksServerSide });
}

/** A reply that is not an envelope: the status decides, 5xx stays retryable (a proxy in front of the hub). */
export function errorFromStatus(status: number, bodySample: string): MediaError {
  const sample = bodySample.replace(/\s+/g, ' ').trim().slice(0, 120);
  const said = sample === '' ? '' : ` (${sample})`;
  const known = own(STATUS_FALLBACK, status);
  if (known) return new MediaError(known, `the media service answered HTTP ${status} without an envelope${said}`, { status, retryable: false });
  return new MediaError('HTTP_ERROR', `the media service answered HTTP ${status} without an envelope${said}`, {
    status,
    retryable: status >= 500,
  });
}
