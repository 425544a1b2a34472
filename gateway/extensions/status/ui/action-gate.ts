/**
 * The lock on the web UI's actions (send a text to a node, read a message's text). Reading the status needs nothing
 * beyond the bind address, but an action speaks in the gateway's name or shows someone's words, so it needs the
 * configured `http.auth_token` as `Authorization: Bearer …` and is off when none is set. The browser's own defences
 * are checked too: a request whose `Origin` is not this server's `Host` is another site's page (CSRF, DNS
 * rebinding), and an action's body must be `application/json`, which no plain HTML form can send. A refusal is a
 * value with a stable code and a sentence the page can show as it is.
 */
import { timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

export type RefusalCode = 'UI_ACTIONS_OFF' | 'UI_AUTH_REQUIRED' | 'UI_AUTH_WRONG' | 'UI_ORIGIN_MISMATCH' | 'UI_NOT_JSON' | 'UI_BAD_BODY' | 'UI_BODY_TOO_LARGE';

export interface Refusal {
  status: number;
  code: RefusalCode;
  message: string;
}

export const MAX_ACTION_BODY_BYTES = 16 * 1024;

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Why `req` may not act, or undefined when it may; `json`: the request carries a JSON body. */
export function refuseAction(req: http.IncomingMessage, token: string | null, json: boolean): Refusal | undefined {
  if (token === null) {
    return { status: 403, code: 'UI_ACTIONS_OFF', message: 'actions are off: set http.auth_token in the gateway configuration to allow them' };
  }
  const origin = req.headers.origin;
  const host = req.headers.host;
  if (origin !== undefined) {
    let originHost: string | undefined;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = undefined;
    }
    if (host === undefined || originHost !== host) {
      return { status: 403, code: 'UI_ORIGIN_MISMATCH', message: `the request comes from ${JSON.stringify(origin.slice(0, 100))}, not from this gateway's page` };
    }
  }
  const auth = req.headers.authorization;
  if (auth === undefined || !auth.startsWith('Bearer ')) {
    return { status: 401, code: 'UI_AUTH_REQUIRED', message: 'this action needs the gateway auth token (http.auth_token)' };
  }
  if (!sameToken(auth.slice(7).trim(), token)) return { status: 401, code: 'UI_AUTH_WRONG', message: 'the auth token is not the gateway’s' };
  if (json && !/^application\/json(;|$)/i.test(req.headers['content-type'] ?? '')) {
    return { status: 415, code: 'UI_NOT_JSON', message: 'the action takes a JSON body (content-type: application/json)' };
  }
  return undefined;
}

export type BodyResult = { body: Record<string, unknown> } | { refusal: Refusal };

/** The request's JSON object body, or the refusal. */
export async function readJsonBody(req: http.IncomingMessage): Promise<BodyResult> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).byteLength;
    if (size > MAX_ACTION_BODY_BYTES) return { refusal: { status: 413, code: 'UI_BODY_TOO_LARGE', message: `the body is over ${MAX_ACTION_BODY_BYTES} bytes` } };
    chunks.push(chunk as Buffer);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return { refusal: { status: 400, code: 'UI_BAD_BODY', message: 'the body is not JSON' } };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { refusal: { status: 400, code: 'UI_BAD_BODY', message: 'the body must be a JSON object' } };
  return { body: body as Record<string, unknown> };
}

export function sendRefusal(res: http.ServerResponse, r: Refusal): void {
  res.writeHead(r.status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }).end(JSON.stringify({ error: { code: r.code, message: r.message } }));
}
