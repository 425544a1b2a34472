/**
 * `uploadMedia`: one file to `POST /media/upload` (message-hub-client-guide.md §15), streamed, and the hub's fragment
 * back, enriched locally with what the file's headers say (§15.2).
 *
 * Order of work, so that every refusal comes as early as it can: options, then the source's size against `maxBytes`
 * (nothing is sent for a file the hub would refuse with 413), then the MIME check on the first bytes, then the
 * attempts. Only the retryable classes are tried again, and only while the source can give the same bytes again.
 */
import type http from 'node:http';
import { backgroundClock } from '../clock';
import { redactSecrets } from '../redact';
import { enrichFragment } from './enrich';
import { authorizationHeader, uploadUrl } from './endpoint';
import { readUploadReply } from './envelope';
import { MediaError } from './errors';
import type { MediaFragment } from './fragment';
import { chooseMime, type MediaWarning } from './mime-check';
import { extensionForMime } from './mime-types';
import { cleanFileName, multipartFrame } from './multipart';
import { probeMedia } from './probe';
import type { MediaFacts } from './probe/types';
import { abortError, backoffDelay, parseRetryAfter, resolveRetry, sleep, type RetryOptions } from './retry';
import { sniffMime } from './sniff';
import { openSource, type BodyChunk, type MediaSource } from './source';
import { exchange } from './transport';

/** §15.5's default `media.max_size_bytes`. */
export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * The whole upload, retries and their waits included. The idle timeout alone lets a server that drips a byte now
 * and then hold a job forever; 15 minutes carries the 100 MiB cap over a 1 Mbit/s uplink.
 */
export const DEFAULT_DEADLINE_MS = 15 * 60_000;

export interface UploadProgress {
  /** File bytes handed to the socket in this attempt. */
  sent: number;
  /** The file's size, when known before sending (a stream's may not be). */
  total: number | undefined;
  /** 1 for the first attempt. */
  attempt: number;
}

export interface RetryEvent {
  /** The attempt that failed (1 for the first). */
  attempt: number;
  delayMs: number;
  error: MediaError;
}

export interface UploadOptions {
  /** The media service: its base (`https://media.example`) or the full `…/media/upload` URL. */
  url: string;
  /** Bearer token (§2); the same one as the WebSocket's. Never logged or put in an error. */
  token?: string;
  /** Declared MIME type; by default the name's extension or the content decides. */
  mime?: string;
  /** File name sent as `filename` (last path segment only); by default the path's, else `file.<ext>`. */
  name?: string;
  /** Refuse before sending above this many bytes. Default 100 MiB, the hub's default limit. */
  maxBytes?: number;
  /** A stream's length, when the caller knows it: allows the size check up front and a `Content-Length`. */
  size?: number;
  signal?: AbortSignal;
  onProgress?: (progress: UploadProgress) => void;
  /** Retry policy for the retryable classes; `false` for one attempt only. */
  retry?: RetryOptions | false;
  onRetry?: (event: RetryEvent) => void;
  /** A declared type that the content contradicts; the upload goes ahead as declared. */
  onWarning?: (warning: MediaWarning) => void;
  /** Idle time on the connection before an attempt fails with `TIMEOUT`. Default 30 s. */
  timeoutMs?: number;
  /** The whole upload, every attempt and wait included, before it fails with `DEADLINE`. Default 15 min. */
  deadlineMs?: number;
  /** For a proxy or a private CA: an `http.Agent`/`https.Agent` of the caller's. */
  agent?: http.Agent;
  /** Add width, height and duration from the file's headers. Default true. */
  enrich?: boolean;
}

export interface UploadResult {
  fragment: MediaFragment;
  warnings: MediaWarning[];
  attempts: number;
  /** The declared type that was sent. */
  mime: string;
  /** What the content sniffed as, if known. */
  detectedMime: string | undefined;
  /** The file name that was sent. */
  name: string;
  /** What the local probes measured (before filtering by kind). */
  facts: MediaFacts;
}

const MIB = 1024 * 1024;

function describeBytes(n: number): string {
  return n >= MIB ? `${(n / MIB).toFixed(n % MIB === 0 ? 0 : 1)} MiB (${n} bytes)` : `${n} bytes`;
}

function checkWhole(name: string, value: number | undefined, min: number): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < min)) {
    throw new MediaError('BAD_OPTIONS', `${name} must be a whole number ≥ ${min}, got ${String(value)}`);
  }
}

function tooLarge(size: number, limit: number): MediaError {
  return new MediaError(
    'TOO_LARGE',
    `upload too large: the file is ${describeBytes(size)}, above the limit of ${describeBytes(limit)}; raise maxBytes if the hub accepts more`,
    { size, limit, source: 'client' },
  );
}

async function* countedBody(body: AsyncIterable<BodyChunk>, size: number | undefined, maxBytes: number): AsyncGenerator<BodyChunk> {
  let n = 0;
  for await (const chunk of body) {
    n += chunk.bytes.length;
    if (n > maxBytes) throw tooLarge(n, maxBytes);
    if (size !== undefined && n > size) {
      throw new MediaError('SOURCE_SIZE_MISMATCH', `the source gave more than the ${size} bytes it declared`, { size });
    }
    yield chunk;
  }
  if (size !== undefined && n !== size) {
    throw new MediaError('SOURCE_SIZE_MISMATCH', `the source ended after ${n} of the ${size} bytes it declared`, { size, read: n });
  }
}

async function* framed(head: Uint8Array, body: AsyncIterable<BodyChunk>, tail: Uint8Array): AsyncGenerator<BodyChunk> {
  yield { bytes: head };
  yield* body;
  yield { bytes: tail };
}

/** Uploads and returns the fragment with everything learnt on the way (warnings, attempts, the types). */
export async function uploadMediaDetailed(source: MediaSource, options: UploadOptions): Promise<UploadResult> {
  if (options === null || typeof options !== 'object') throw new MediaError('BAD_OPTIONS', 'options with at least a url are required');
  const target = uploadUrl(options.url);
  const authorization = authorizationHeader(options.token);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  checkWhole('maxBytes', maxBytes, 1);
  checkWhole('size', options.size, 0);
  checkWhole('timeoutMs', options.timeoutMs, 1);
  const retry = resolveRetry(options.retry);
  checkWhole('deadlineMs', options.deadlineMs, 1);
  if (options.signal?.aborted) throw abortError(options.signal);
  // Before opening anything: a size the caller declared for a stream can be refused on its own.
  if (options.size !== undefined && options.size > maxBytes) throw tooLarge(options.size, maxBytes);

  const opened = await openSource(source, options.size);
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const deadline = new AbortController();
  // Unref'd (the background clock): the upload itself keeps the process alive, never this deadline.
  const deadlineTimer = backgroundClock.setTimeout(() => deadline.abort(new MediaError('DEADLINE', `the upload did not finish within ${deadlineMs} ms`)), deadlineMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  try {
    const size = opened.size;
    if (size !== undefined && size > maxBytes) throw tooLarge(size, maxBytes);

    const detectedMime = sniffMime(opened.head);
    const givenName = options.name !== undefined && cleanFileName(options.name) !== '' ? cleanFileName(options.name) : opened.suggestedName;
    const choice = chooseMime(options.mime, givenName, detectedMime);
    const warnings = choice.warning ? [choice.warning] : [];
    if (choice.warning) options.onWarning?.(choice.warning);
    const ext = extensionForMime(choice.mime);
    // Go-style multipart readers treat a part without `filename` as a form value, not a file: always send one.
    const name = givenName ?? (ext ? `file.${ext}` : 'file');
    const facts = options.enrich === false ? {} : await probeMedia(opened.probe, detectedMime);

    for (let attempt = 1; ; attempt++) {
      const frame = multipartFrame(name, choice.mime);
      const headers: Record<string, string> = {
        'Content-Type': frame.contentType,
        Accept: 'application/json',
        'User-Agent': 'clawling-node-red-mesh',
      };
      if (authorization) headers.Authorization = authorization;
      if (size !== undefined) headers['Content-Length'] = String(frame.head.length + size + frame.tail.length);
      const total = size;
      options.onProgress?.({ sent: 0, total, attempt });

      let failure: MediaError;
      let retryAfterMs: number | undefined;
      try {
        const reply = await exchange({
          method: 'POST',
          url: target,
          headers,
          body: framed(frame.head, countedBody(opened.body(), size, maxBytes), frame.tail),
          signal,
          timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          agent: options.agent,
          onWritten: options.onProgress
            ? (written) => {
                const sent = Math.max(0, written - frame.head.length);
                if (sent > 0 && (total === undefined || sent <= total)) options.onProgress?.({ sent, total, attempt });
              }
            : undefined,
        });
        // A service may quote the token it was shown ("invalid token: Bearer …"); no error built from its reply may carry it.
        const outcome = readUploadReply(reply.status, options.token ? redactSecrets(reply.text, [options.token]) : reply.text);
        if (outcome.ok) {
          const fragment = options.enrich === false ? outcome.fragment : enrichFragment(outcome.fragment, facts);
          return { fragment, warnings, attempts: attempt, mime: choice.mime, detectedMime, name, facts };
        }
        failure = outcome.error;
        retryAfterMs = parseRetryAfter(reply.headers['retry-after']);
      } catch (err) {
        // Anything but a MediaError was thrown by the caller's own callback: not ours to classify or retry.
        if (!(err instanceof MediaError)) throw err;
        failure = err;
      }
      if (failure.code === 'ABORTED' || failure.code === 'DEADLINE' || !failure.retryable || attempt > retry.retries || !opened.canReplay()) {
        throw failure.withAttempts(attempt);
      }
      const delayMs = backoffDelay(attempt, retry, retryAfterMs);
      options.onRetry?.({ attempt, delayMs, error: failure });
      await sleep(delayMs, signal);
    }
  } finally {
    backgroundClock.clearTimeout(deadlineTimer);
    await opened.close();
  }
}

/** Uploads a Buffer, a Readable or a file path and resolves with the fragment to put in `fragments` (§15.2). */
export async function uploadMedia(source: MediaSource, options: UploadOptions): Promise<MediaFragment> {
  return (await uploadMediaDetailed(source, options)).fragment;
}
