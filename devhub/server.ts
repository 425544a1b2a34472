/**
 * Assembles one running hub: the shared context, the WebSocket endpoint on its path, the media service on the same
 * listener or its own, the loopback admin listener, and the housekeeping timers. `stop()` undoes all of it.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { Admin } from './admin/admin-api';
import { AdminGuard, generateAdminToken, loopbackHosts } from './admin/admin-guard';
import { adminRequestHandler } from './admin/admin-http';
import { resolveOptions } from './config';
import { DevHubConfigError } from './errors';
import { HubEvents, IdSource, ReceivedLog, type HubContext } from './context';
import { DeferredNotify } from './deferred-notify';
import { Directory } from './directory';
import { FaultBook } from './faults';
import { onConnection } from './handshake';
import { Inbox } from './inbox';
import { KickBackoff } from './kick';
import { sweepRetention, wakeOnAppend } from './maintenance';
import { MediaService } from './media/media-service';
import type { DevHubOptions, DevHubRuntime } from './options';
import { Presence } from './presence';
import { ReadWatermarks } from './read-watermarks';
import { sweepAckSilence } from './reliability-v2';
import { SessionRegistry } from './sessions';
import { autosave, loadState } from './state-file';
import { StreamBuffers } from './stream-merge';
import type { DevHub } from './types';

const RECEIVED_LOG_CAPACITY = 10_000;
const RECEIVED_LOG_MAX_BYTES = 32 * 1024 * 1024;
const STATE_SAVE_INTERVAL_MS = 1000;

type Listener = http.Server | https.Server;

function listen(server: Listener, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** A URL host for a bound address: a wildcard bind is reached through loopback; IPv6 goes in brackets. */
function urlHost(host: string, address: AddressInfo): string {
  const h = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `${h.includes(':') ? `[${h}]` : h}:${address.port}`;
}

function close(server: Listener): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function notFound(res: http.ServerResponse): void {
  const body = JSON.stringify({ code: 40401, msg: 'not found' });
  res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export async function createDevHub(options: DevHubOptions, runtime: DevHubRuntime): Promise<DevHub> {
  const config = resolveOptions(options);
  const settings = config.settings;
  const now = runtime.now ?? Date.now;
  const ctx: HubContext = {
    config,
    settings,
    now,
    log: runtime.log ?? (() => undefined),
    directory: new Directory(config.users, config.chats),
    inbox: new Inbox(now, settings.retention.max_rows_per_user),
    sessions: new SessionRegistry(),
    presence: new Presence(),
    watermarks: new ReadWatermarks(),
    faults: new FaultBook(),
    streams: new StreamBuffers(),
    events: new HubEvents(),
    ids: new IdSource(now),
    received: new ReceivedLog(RECEIVED_LOG_CAPACITY, RECEIVED_LOG_MAX_BYTES),
    kicks: new KickBackoff(settings.kick_backoff),
    deferredNotify: new DeferredNotify(),
    timers: new Set(),
    stopping: false,
  };
  if (config.state_file) loadState(ctx, config.state_file);
  wakeOnAppend(ctx);

  const media = config.media.enabled ? new MediaService(ctx) : undefined;
  const mediaOwnPort = media !== undefined && config.media.port !== undefined;
  const admin = new Admin(ctx, media);

  // The certificate is read once, at start: a bad path or PEM fails the start, not the first connection.
  let tlsOptions: { cert: Buffer; key: Buffer } | undefined;
  if (config.tls) {
    try {
      tlsOptions = { cert: fs.readFileSync(config.tls.cert_file), key: fs.readFileSync(config.tls.key_file) };
    } catch (err) {
      throw new DevHubConfigError('DEVHUB_CONFIG_UNREADABLE', `cannot read the TLS certificate or key: ${(err as Error).message}`);
    }
  }
  const serve = (handler: http.RequestListener): Listener => (tlsOptions ? https.createServer(tlsOptions, handler) : http.createServer(handler));
  const scheme = tlsOptions ? { ws: 'wss', http: 'https' } : { ws: 'ws', http: 'http' };

  const wss = new WebSocketServer({ noServer: true, maxPayload: settings.max_frame_bytes, perMessageDeflate: false, clientTracking: false, autoPong: false });
  const main = serve((req, res) => {
    if (media && !mediaOwnPort && media.handle(req, res)) return;
    notFound(res);
  });
  main.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const path = new URL(req.url ?? '/', 'http://hub.invalid').pathname;
    if (path !== config.path || ctx.stopping) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ctx, ws, socket, req));
  });
  const servers: Listener[] = [main];
  const mainAddress = await listen(main, config.host, config.port);

  let mediaUrl = '';
  if (media) {
    let address = mainAddress;
    let host = config.host;
    if (mediaOwnPort) {
      const own = serve((req, res) => {
        if (!media.handle(req, res)) notFound(res);
      });
      servers.push(own);
      host = config.media.host ?? config.host;
      address = await listen(own, host, config.media.port!);
    }
    mediaUrl = `${scheme.http}://${urlHost(host, address)}`;
    media.setBaseUrl(mediaUrl);
  }

  const adminToken = config.admin.token ?? generateAdminToken();
  const adminServer = http.createServer();
  servers.push(adminServer);
  const adminAddress = await listen(adminServer, config.admin.host, config.admin.port);
  // Attached once bound: the accepted Host headers carry the port, which is only known now (port 0 = any free one).
  adminServer.on('request', adminRequestHandler(admin, new AdminGuard(adminToken, loopbackHosts(adminAddress.port))));

  const intervals: NodeJS.Timeout[] = [];
  const every = (ms: number, fn: () => void): void => {
    if (ms <= 0) return;
    const timer = setInterval(fn, ms);
    timer.unref();
    intervals.push(timer);
  };
  every(settings.ack_sweep_interval_ms, () => sweepAckSilence(ctx));
  every(settings.retention.sweep_interval_ms, () => sweepRetention(ctx));
  const stopAutosave = config.state_file ? autosave(ctx, config.state_file, STATE_SAVE_INTERVAL_MS) : undefined;

  const wsUrl = `${scheme.ws}://${urlHost(config.host, mainAddress)}${config.path}`;
  ctx.log('info', 'dev hub listening', { ws: wsUrl, media: mediaUrl || undefined, admin: `http://${urlHost(config.admin.host, adminAddress)}/admin` });

  let stopped: Promise<void> | undefined;
  return {
    wsUrl,
    mediaUrl,
    adminUrl: `http://${urlHost(config.admin.host, adminAddress)}/admin`,
    adminToken,
    admin,
    stop(): Promise<void> {
      stopped ??= (async () => {
        ctx.stopping = true;
        for (const timer of intervals) clearInterval(timer);
        for (const timer of ctx.timers) clearTimeout(timer);
        ctx.timers.clear();
        for (const session of ctx.sessions.every()) {
          session.ws.terminate();
          session.socket.destroy();
        }
        wss.close();
        await Promise.all(servers.map(close));
        stopAutosave?.();
      })();
      return stopped;
    },
  };
}
