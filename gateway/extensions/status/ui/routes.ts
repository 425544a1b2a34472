/**
 * The web UI's endpoints on the status server: the view shells (`ui`, `ui/map`, `ui/nodes`, `ui/node`, `ui/gateway`), their
 * scripts and stylesheet (`ui/*.js` built from webui/, `ui/ui.css`), the live log as Server-Sent Events
 * (`api/log`) and the JSON API (api.ts). Returns false for any path it does not own, so the status server answers
 * those as before.
 */
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { handleApiRequest, type ApiContext } from './api';
import type { LiveLog } from './live-log';
import { renderUiShell, UI_CSP } from './page';
import { UI_CSS } from './style';
import type { ViewName } from './views';

// dist/gateway/extensions/status/ui → dist/webui
const WEBUI_DIR = path.join(__dirname, '..', '..', '..', '..', 'webui');
const SCRIPTS = new Set(['live-log.js', 'nodes.js', 'node.js', 'gateway.js', 'dom.js', 'chart.js', 'send-form.js', 'map.js', 'map-layout.js']);
const PAGES: Record<string, ViewName> = { '/ui': 'log', '/ui/map': 'map', '/ui/nodes': 'nodes', '/ui/node': 'node', '/ui/gateway': 'gateway' };
const HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

export interface UiContext extends ApiContext {
  log: LiveLog;
}

export function handleUiRequest(urlPath: string, req: http.IncomingMessage, res: http.ServerResponse, ctx: UiContext): boolean {
  if (urlPath.startsWith('/api/') && urlPath !== '/api/log') return handleApiRequest(urlPath, req, res, ctx);
  if (req.method !== 'GET') return false;
  if (urlPath === '/api/log') {
    ctx.log.subscribe(res);
    return true;
  }
  const view = PAGES[urlPath];
  if (view !== undefined) {
    res.writeHead(200, { ...HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': UI_CSP }).end(renderUiShell(view));
    return true;
  }
  if (urlPath === '/ui/ui.css') {
    res.writeHead(200, { ...HEADERS, 'content-type': 'text/css; charset=utf-8' }).end(UI_CSS);
    return true;
  }
  const script = urlPath.startsWith('/ui/') ? urlPath.slice(4) : undefined;
  if (script !== undefined && SCRIPTS.has(script)) {
    let code: string;
    try {
      code = fs.readFileSync(path.join(WEBUI_DIR, script), 'utf8');
    } catch {
      res.writeHead(404, { ...HEADERS, 'content-type': 'text/plain' }).end('web UI not built: run npm run build\n');
      return true;
    }
    res.writeHead(200, { ...HEADERS, 'content-type': 'text/javascript; charset=utf-8' }).end(code);
    return true;
  }
  return false;
}
