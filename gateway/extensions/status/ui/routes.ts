/**
 * The web UI's endpoints on the status server. Read-only for now: `/api/log` streams the live log as Server-Sent
 * Events. Returns false for any path it does not own, so the status server answers those as before.
 */
import type http from 'node:http';
import type { LiveLog } from './live-log';

export function handleUiRequest(path: string, req: http.IncomingMessage, res: http.ServerResponse, log: LiveLog): boolean {
  if (path === '/api/log' && req.method === 'GET') {
    log.subscribe(res);
    return true;
  }
  return false;
}
