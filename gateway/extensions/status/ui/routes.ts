/**
 * The web UI's endpoints on the status server, read-only for now: `/ui` (the page shell), `/ui/live-log.js` (its
 * script, built from webui/) and `/api/log` (the live log as Server-Sent Events). Returns false for any path it does
 * not own, so the status server answers those as before.
 */
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import type { LiveLog } from './live-log';
import { renderUiShell, UI_CSP } from './page';

// dist/gateway/extensions/status/ui → dist/webui
const WEBUI_DIR = path.join(__dirname, '..', '..', '..', '..', 'webui');
const SCRIPTS = new Set(['live-log.js']);

export function handleUiRequest(urlPath: string, req: http.IncomingMessage, res: http.ServerResponse, log: LiveLog): boolean {
  if (req.method !== 'GET') return false;
  const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
  if (urlPath === '/api/log') {
    log.subscribe(res);
    return true;
  }
  if (urlPath === '/ui') {
    res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': UI_CSP }).end(renderUiShell());
    return true;
  }
  const script = urlPath.startsWith('/ui/') ? urlPath.slice(4) : undefined;
  if (script !== undefined && SCRIPTS.has(script)) {
    let code: string;
    try {
      code = fs.readFileSync(path.join(WEBUI_DIR, script), 'utf8');
    } catch {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('web UI not built: run npm run build\n');
      return true;
    }
    res.writeHead(200, { ...headers, 'content-type': 'text/javascript; charset=utf-8' }).end(code);
    return true;
  }
  return false;
}
