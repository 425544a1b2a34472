/**
 * Fetches a hub media URL for the mesh, bounded: only http(s), the declared length checked before reading, the
 * running length checked while reading (a server that lies about or omits its length is cut off at the limit),
 * and an idle timeout. Media URLs are capabilities (guide §10.5): fetched as they are, with no token.
 */
import { HubBridgeError } from './errors';
import { backgroundClock, type Clock, type TimerHandle } from '../../../lib/clock';

export interface FetchedMedia {
  data: Buffer;
  /** The server's Content-Type, when it sent one. */
  mime: string | undefined;
}

/**
 * Codes: `MEDIA_BAD_URL`, `MEDIA_TOO_LARGE` (details.limit), `MEDIA_HTTP` (details.status; `retryable` for 5xx, 408
 * and 429), `MEDIA_TIMEOUT`, `MEDIA_DEADLINE`, `MEDIA_NETWORK`. `details.retryable` says whether a later attempt can succeed.
 */
export async function fetchMedia(url: string, options: { maxBytes: number; timeoutMs: number; deadlineMs?: number; signal?: AbortSignal; clock?: Clock }): Promise<FetchedMedia> {
  const clock = options.clock ?? backgroundClock;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new HubBridgeError('MEDIA_BAD_URL', 'the media URL is not a valid URL', { retryable: false });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new HubBridgeError('MEDIA_BAD_URL', `media URLs must be http or https, not ${parsed.protocol}`, { retryable: false });
  }
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let timer: TimerHandle | undefined;
  let timedOut = false;
  const arm = (): void => {
    clock.clearTimeout(timer);
    timer = clock.setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, options.timeoutMs);
  };
  arm();
  // The idle timer alone lets a server that drips a byte now and then hold the job forever.
  let pastDeadline = false;
  const deadline = options.deadlineMs === undefined ? undefined : clock.setTimeout(() => {
    pastDeadline = true;
    controller.abort();
  }, options.deadlineMs);
  try {
    const res = await fetch(parsed, { signal: controller.signal, redirect: 'follow' });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      const retryable = res.status >= 500 || res.status === 408 || res.status === 429;
      throw new HubBridgeError('MEDIA_HTTP', `the media server answered ${res.status}`, { status: res.status, retryable });
    }
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw new HubBridgeError('MEDIA_TOO_LARGE', `the media is ${declared} bytes, above the ${options.maxBytes}-byte limit`, { limit: options.maxBytes, size: declared, retryable: false });
    }
    const parts: Buffer[] = [];
    let total = 0;
    if (res.body) {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        total += chunk.length;
        if (total > options.maxBytes) {
          controller.abort();
          throw new HubBridgeError('MEDIA_TOO_LARGE', `the media is larger than the ${options.maxBytes}-byte limit`, { limit: options.maxBytes, retryable: false });
        }
        parts.push(Buffer.from(chunk));
        arm();
      }
    }
    const type = res.headers.get('content-type');
    return { data: Buffer.concat(parts, total), mime: type ? type.split(';')[0]!.trim() || undefined : undefined };
  } catch (err) {
    if (err instanceof HubBridgeError) throw err;
    if (pastDeadline) throw new HubBridgeError('MEDIA_DEADLINE', `the media did not arrive within ${options.deadlineMs} ms`, { retryable: true });
    if (timedOut) throw new HubBridgeError('MEDIA_TIMEOUT', `no data from the media server for ${options.timeoutMs} ms`, { retryable: true });
    if (options.signal?.aborted) throw new HubBridgeError('MEDIA_ABORTED', 'the fetch was cancelled', { retryable: true });
    throw new HubBridgeError('MEDIA_NETWORK', `the media could not be fetched: ${(err as Error).message}`, { retryable: true });
  } finally {
    clock.clearTimeout(timer);
    clock.clearTimeout(deadline);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
