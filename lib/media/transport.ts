/**
 * One HTTP exchange with the media service over `node:http`/`node:https`: the request body streamed from an async
 * iterable with backpressure (one chunk in flight, never the whole file), the reply read up to a small cap, and every
 * failure turned into a `MediaError`. A server that answers before the body is complete (a 401 or 413 decided from
 * the headers) is believed: sending stops and the reply is returned.
 */
import http from 'node:http';
import https from 'node:https';
import { MediaError } from './errors';
import { abortError } from './retry';
import type { BodyChunk } from './source';

/** A media reply is a small JSON envelope; anything longer is not one. */
export const MAX_REPLY_BYTES = 1 << 20;

export interface Exchange {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  /** Request body; omitted for GET. Each chunk's `release` is called once the socket has flushed it. */
  body?: AsyncIterable<BodyChunk>;
  signal?: AbortSignal;
  /** Idle time on the socket, in either direction, before giving up. */
  timeoutMs: number;
  agent?: http.Agent;
  /** Called after each body chunk is handed to the socket, with the running total of body bytes. */
  onWritten?: (bytes: number) => void;
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** True when the reply arrived before the whole body was sent. */
  early: boolean;
}

const NETWORK_ERRNOS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** OpenSSL's verdicts on a certificate (as Node reports them), and Node's own name check. */
const CERTIFICATE_ERRORS = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export function networkError(err: unknown, url: URL): MediaError {
  if (err instanceof MediaError) return err;
  const errno = (err as NodeJS.ErrnoException | undefined)?.code;
  if (errno !== undefined && CERTIFICATE_ERRORS.has(errno)) {
    const why = err instanceof Error ? err.message : String(err);
    return new MediaError('TLS_FAILED', `the certificate of the media service at ${url.origin} does not verify (${why}); give its CA (an https.Agent with \`ca\`, or NODE_EXTRA_CA_CERTS)`, { errno, retryable: false }, { cause: err });
  }
  const reason = (errno && NETWORK_ERRNOS[errno]) ?? (err instanceof Error ? err.message : String(err));
  return new MediaError('NETWORK', `cannot reach the media service at ${url.origin}: ${reason}`, { errno, retryable: true }, { cause: err });
}

export function exchange(x: Exchange): Promise<Reply> {
  if (x.signal?.aborted) return Promise.reject(abortError(x.signal));
  const transport = x.url.protocol === 'https:' ? https : http;
  return new Promise<Reply>((resolve, reject) => {
    let settled = false;
    let responded = false;
    let bodyDone = x.body === undefined;
    let wake: (() => void) | undefined;
    const req = transport.request(x.url, { method: x.method, headers: x.headers, agent: x.agent });

    // `err` is a MediaError, or whatever a caller's callback threw (passed on as it is, never mistaken for the network).
    const settle = (err: unknown, reply?: Reply): void => {
      if (settled) return;
      settled = true;
      x.signal?.removeEventListener('abort', onAbort);
      wake?.();
      if (err !== undefined) {
        req.destroy();
        reject(err);
      } else {
        // An unfinished body leaves the connection in an unknown state; do not hand it back to the agent.
        if (!bodyDone) req.destroy();
        resolve(reply as Reply);
      }
    };
    const onAbort = (): void => settle(abortError(x.signal));
    x.signal?.addEventListener('abort', onAbort, { once: true });

    req.setTimeout(x.timeoutMs, () => {
      settle(new MediaError('TIMEOUT', `the media service at ${x.url.origin} went silent for ${x.timeoutMs} ms`, { retryable: true }));
    });
    req.on('error', (err) => {
      if (!responded) settle(networkError(err, x.url));
    });
    req.on('response', (res) => {
      responded = true;
      wake?.();
      const parts: Buffer[] = [];
      let length = 0;
      res.on('data', (chunk: Buffer) => {
        length += chunk.length;
        if (length > MAX_REPLY_BYTES) {
          settle(new MediaError('BAD_RESPONSE', `the media service sent a reply above ${MAX_REPLY_BYTES} bytes; that is not an envelope`, { status: res.statusCode }));
          res.destroy();
          return;
        }
        parts.push(chunk);
      });
      res.on('end', () => {
        settle(undefined, { status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8'), early: !bodyDone });
      });
      res.on('error', (err) => settle(networkError(err, x.url)));
      res.on('aborted', () => settle(networkError(new Error('the reply was cut off'), x.url)));
    });

    if (x.body === undefined) {
      req.end();
      return;
    }
    const body = x.body;
    void (async () => {
      let written = 0;
      try {
        for await (const chunk of body) {
          if (settled || responded) {
            chunk.release?.();
            return;
          }
          if (!req.write(chunk.bytes, () => chunk.release?.())) {
            await new Promise<void>((go) => {
              const done = (): void => {
                req.off('drain', done);
                req.off('close', done);
                wake = undefined;
                go();
              };
              wake = done;
              req.on('drain', done);
              req.on('close', done);
            });
            if (settled || responded) return;
          }
          written += chunk.bytes.length;
          x.onWritten?.(written);
        }
        if (settled || responded) return;
        bodyDone = true;
        req.end();
      } catch (err) {
        settle(err);
      }
    })();
  });
}
