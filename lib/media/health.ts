/**
 * `GET /health` (message-hub-client-guide.md §15.7): unauthenticated liveness of the media service. A healthy answer
 * says the process is up, not that uploads will work (storage is not exercised), so callers that need the latter
 * should watch for `STORAGE_NOT_CONFIGURED` on the first upload.
 */
import type http from 'node:http';
import { healthUrl } from './endpoint';
import { MediaError } from './errors';
import { exchange } from './transport';

export interface HealthOptions {
  signal?: AbortSignal;
  /** Default 10 s. */
  timeoutMs?: number;
  agent?: http.Agent;
}

export interface HealthReport {
  ok: true;
  status: number;
  /** The reply's text, trimmed (`ok` from a conforming service). */
  body: string;
  /** Time to the complete reply. */
  latencyMs: number;
}

/** Resolves when the service answers 2xx; otherwise rejects with `UNHEALTHY`, `NETWORK`, `TIMEOUT` or `ABORTED`. */
export async function checkHealth(url: string, options: HealthOptions = {}): Promise<HealthReport> {
  const target = healthUrl(url);
  const started = process.hrtime.bigint();
  const reply = await exchange({
    method: 'GET',
    url: target,
    headers: { Accept: 'text/plain', 'User-Agent': 'clawling-node-red-mesh' },
    signal: options.signal,
    timeoutMs: options.timeoutMs ?? 10_000,
    agent: options.agent,
  });
  const latencyMs = Number(process.hrtime.bigint() - started) / 1e6;
  const body = reply.text.trim();
  if (reply.status < 200 || reply.status >= 300) {
    throw new MediaError('UNHEALTHY', `the media service at ${target.origin} answered HTTP ${reply.status} to GET /health`, {
      status: reply.status,
      retryable: reply.status >= 500,
    });
  }
  return { ok: true, status: reply.status, body: body.slice(0, 200), latencyMs };
}
