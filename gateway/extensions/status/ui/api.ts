/**
 * The web UI's JSON endpoints under `api/`: `nodes` (the table), `nodes/<address>` (a node's page),
 * `nodes/<address>/messages/<id>/text` (one message's text, behind the action gate), the actions
 * `nodes/<address>/send` and `nodes/<address>/forget` (POST; send-action.ts, forget-action.ts), `gateway` (the
 * gateway page) and `map` (map-view.ts). Returns false for any path it does not own.
 */
import type http from 'node:http';
import type { GatewaySnapshot } from '../../../extension';
import type { GatewayConfig } from '../../../gateway-config';
import { refuseAction, sendRefusal } from './action-gate';
import { gatewayView } from './gateway-view';
import type { NodeBook } from './node-book';
import type { RateHistory } from './rate-history';
import { handleForgetAction, type ForgetActionDeps } from './forget-action';
import { mapView } from './map-view';
import { handleSendAction, type SendActionDeps } from './send-action';

export interface ApiContext {
  book: NodeBook;
  rates: RateHistory;
  config: GatewayConfig;
  snapshot(): GatewaySnapshot;
  send: SendActionDeps;
  forget: ForgetActionDeps;
  now(): number;
  /** Logs a request that failed inside (never its body). */
  failed(err: unknown, path: string): void;
}

const NODE_PATH = /^\/api\/nodes\/([^/]{1,128})(?:\/(send|forget|messages\/([^/]{1,64})\/text))?$/;

/** A path segment as sent, or undefined when its percent-encoding is broken. */
function segment(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }).end(JSON.stringify(body));
}

function notFound(res: http.ServerResponse, what: string): void {
  json(res, 404, { error: { code: 'UI_NOT_FOUND', message: `${what} is not known to this gateway` } });
}

export function handleApiRequest(urlPath: string, req: http.IncomingMessage, res: http.ServerResponse, ctx: ApiContext): boolean {
  if (urlPath === '/api/nodes' && req.method === 'GET') {
    json(res, 200, { now: ctx.now(), nodes: ctx.book.rows() });
    return true;
  }
  if (urlPath === '/api/gateway' && req.method === 'GET') {
    json(res, 200, { now: ctx.now(), ...gatewayView(ctx.snapshot(), ctx.config), rates: ctx.rates.read() });
    return true;
  }
  if (urlPath === '/api/map' && req.method === 'GET') {
    json(res, 200, { now: ctx.now(), ...mapView(ctx.snapshot(), ctx.book.rows()) });
    return true;
  }
  const hit = NODE_PATH.exec(urlPath);
  if (!hit) return false;
  const address = segment(hit[1]!);
  if (address === undefined) {
    notFound(res, 'that node');
    return true;
  }
  if (hit[2] === 'send' || hit[2] === 'forget') {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain' }).end('method not allowed\n');
      return true;
    }
    const action = hit[2] === 'send' ? handleSendAction(req, res, address, ctx.send) : handleForgetAction(req, res, address, ctx.forget);
    action.catch((err: unknown) => {
      ctx.failed(err, urlPath);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end();
    });
    return true;
  }
  if (req.method !== 'GET') return false;
  if (hit[3] !== undefined) {
    const refusal = refuseAction(req, ctx.config.http.auth_token, false);
    if (refusal) {
      sendRefusal(res, refusal);
      return true;
    }
    const id = segment(hit[3]);
    const text = id === undefined ? undefined : ctx.book.text(address, id);
    if (text === undefined) notFound(res, 'the text of that message');
    else json(res, 200, { text });
    return true;
  }
  const detail = ctx.book.detail(address);
  if (!detail) notFound(res, 'that node');
  else json(res, 200, { now: ctx.now(), send_enabled: ctx.config.http.auth_token !== null, node: detail });
  return true;
}
