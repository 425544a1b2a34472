/**
 * The admin interface over HTTP, on loopback only: one JSON route per `DevHubAdmin` operation (docs/devhub.md lists
 * them). Reads are `GET` with query parameters, everything else `POST` with a JSON body; answers are
 * `{"ok": true, "result": …}` or `{"ok": false, "error": {"code", "message"}}`. Every route but the index needs the
 * admin token, and no request from another origin or through another host name gets in (admin-guard.ts says why).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isCodedError } from '../../lib/coded-error';
import { DevHubError } from '../errors';
import type { DevHubAdmin } from '../types';
import type { AdminGuard, AdminRefusal } from './admin-guard';

type Body = Record<string, unknown>;
type Route = (admin: DevHubAdmin, body: Body, query: URLSearchParams) => unknown;

const MAX_BODY_BYTES = 1024 * 1024;

function q(query: URLSearchParams, key: string): string {
  const value = query.get(key);
  if (value === null || value === '') throw new DevHubError('BAD_ADMIN_REQUEST', `query parameter ${key} is required`);
  return value;
}

function target(body: Body): { user_id: string; device_id?: string } {
  return { user_id: body.user_id as string, ...(body.device_id !== undefined ? { device_id: body.device_id as string } : {}) };
}

const GET: Record<string, Route> = {
  devices: (a) => a.devices(),
  inbox: (a, _b, query) => a.inbox(q(query, 'user_id')),
  cursors: (a, _b, query) => a.cursors(q(query, 'user_id')),
  'read-watermarks': (a, _b, query) => a.readWatermarks(q(query, 'user_id')),
  received: (a, _b, query) =>
    a.received({
      ...(query.get('user_id') ? { user_id: query.get('user_id')! } : {}),
      ...(query.get('device_id') ? { device_id: query.get('device_id')! } : {}),
      ...(query.get('event') ? { event: query.get('event')! } : {}),
    }),
  media: (a) => a.media(),
  faults: (a) => a.faults(),
};

const POST: Record<string, Route> = {
  users: (a, b) => a.addUser(b as never),
  'users/remove': (a, b) => a.removeUser(b.id as string),
  chats: (a, b) => a.addChat(b as never),
  'chats/remove': (a, b) => a.removeChat(b.id as string),
  'chats/members': (a, b) => a.setChatMembers(b.id as string, b.members as string[]),
  'notify-signal': (a, b) => a.notifySignal(b as never),
  'chat-metadata-invalidated': (a, b) => a.chatMetadataInvalidated(b as never),
  'permission-request': (a, b) => a.permissionRequest(b as never),
  'permission-resolved': (a, b) => a.permissionResolved(b as never),
  'faults/drop': (a, b) => a.dropConnection(target(b), { after_frames: b.after_frames as number, mode: b.mode as never }),
  'faults/withhold-acks': (a, b) => a.withholdAcks(b as never),
  'faults/delay-acks': (a, b) => a.delayAcks(b as never),
  'faults/skip-dseq': (a, b) => a.skipDseq(target(b), { count: b.count as number }),
  'faults/unknown-event': (a, b) => a.sendUnknownEvent(target(b), { event: b.event as string, payload: b.payload as Body }),
  'faults/poison': (a, b) => a.sendPoisonFrame(b as never),
  'faults/raw': (a, b) => a.sendRaw(target(b), b.frame as Body),
  'faults/refuse-auth': (a, b) => a.refuseAuth(b as never),
  'faults/withhold-replay-done': (a, b) => a.withholdReplayDone(b as never),
  'faults/half-open': (a, b) => a.halfOpen(target(b)),
  'faults/fail-handshake': (a, b) => a.failHandshake(b as never),
  'faults/echo-token': (a, b) => a.echoToken(b as never),
  'faults/fail-media': (a, b) => a.failMedia(b as never),
  'faults/clear': (a) => a.clearFaults(),
  sweep: (a) => a.sweep(),
  prune: (a, b) => a.prune(b.user_id as string, b as never),
};

/** The query each read needs, for the index. */
const GET_QUERY: Record<string, string> = {
  inbox: '?user_id=ID',
  cursors: '?user_id=ID',
  'read-watermarks': '?user_id=ID',
  received: '[?user_id=ID&device_id=ID&event=NAME]',
};

/** `GET /admin` itself: what a person who opens the printed admin URL can do next. */
function index(): unknown {
  return {
    service: 'clawling dev hub admin',
    docs: 'docs/devhub.md, section "Admin interface"',
    auth: 'every route below needs "Authorization: Bearer TOKEN" (the admin token printed at start); POST bodies need "Content-Type: application/json"',
    answers: '{"ok": true, "result": …} or {"ok": false, "error": {"code", "message"}}',
    get: Object.keys(GET).map((name) => `/admin/${name}${GET_QUERY[name] ?? ''}`),
    post: Object.keys(POST).map((name) => `/admin/${name}`),
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function refuse(res: ServerResponse, refusal: AdminRefusal): void {
  const headers: Record<string, string> = refusal.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="clawling dev hub admin"' } : {};
  // The body is not read: close the connection rather than drain what a refused caller may still be sending.
  send(res, refusal.status, { ok: false, error: { code: refusal.code, message: refusal.message } }, { ...headers, Connection: 'close' });
}

async function readJson(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new DevHubError('BAD_ADMIN_REQUEST', `body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DevHubError('BAD_ADMIN_REQUEST', 'body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new DevHubError('BAD_ADMIN_REQUEST', 'body must be a JSON object');
  return parsed as Body;
}

export function adminRequestHandler(admin: DevHubAdmin, guard: AdminGuard): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const caller = guard.checkCaller(req);
    if (caller) return refuse(res, caller);
    const url = new URL(req.url ?? '/', 'http://admin.invalid');
    const name = url.pathname.replace(/^\/admin\/?/, '').replace(/\/+$/, '');
    // The index is the page the printed URL opens: a static list of routes, no state and no action, so no token.
    if (req.method === 'GET' && /^\/admin\/?$/.test(url.pathname)) {
      send(res, 200, { ok: true, result: index() });
      return;
    }
    const unauthorized = guard.checkToken(req);
    if (unauthorized) return refuse(res, unauthorized);
    const table = req.method === 'GET' ? GET : req.method === 'POST' ? POST : undefined;
    const route = url.pathname.startsWith('/admin') && table && Object.prototype.hasOwnProperty.call(table, name) ? table[name] : undefined;
    if (!route) {
      send(res, 404, { ok: false, error: { code: 'NOT_FOUND', message: `no admin route ${req.method} ${url.pathname}` } });
      return;
    }
    const notJson = req.method === 'POST' ? guard.checkJsonBody(req) : undefined;
    if (notJson) return refuse(res, notJson);
    (req.method === 'POST' ? readJson(req) : Promise.resolve({}))
      .then((body) => route(admin, body, url.searchParams))
      .then(
        (result) => send(res, 200, { ok: true, result: result ?? null }),
        (err: unknown) => {
          const coded = isCodedError(err);
          send(res, coded ? 400 : 500, { ok: false, error: { code: coded ? err.code : 'INTERNAL', message: (err as Error).message } });
        },
      );
  };
}
