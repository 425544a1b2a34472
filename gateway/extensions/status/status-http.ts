/**
 * The status HTTP server, on loopback unless configured otherwise: `/health` (JSON; 200 when ready, 503 while
 * starting, stopping or degraded: see gateway/health.ts), `/metrics` (Prometheus text format), `/status.json` and `/` (the self-refreshing status page), and
 * the web UI under `ui` and `api/` (ui/routes.ts). Reading needs no authentication beyond the bind address; the web
 * UI's actions need `http.auth_token` (ui/action-gate.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Extension, type ExtensionContext } from '../../extension';
import { NodeTopics } from '../../mqtt/node-topics';
import { sharedSendPolicy } from '../../mqtt/send-policy';
import { renderStatusPage, type RecentMessage } from './status-page';
import { LiveLog } from './ui/live-log';
import { NodeBook } from './ui/node-book';
import { RateHistory } from './ui/rate-history';
import { SiteViews } from './ui/site-views';
import { handleUiRequest, type UiContext } from './ui/routes';

export class StatusHttp extends Extension {
  readonly name = 'status-http';
  private server: http.Server | undefined;
  private readonly recent: RecentMessage[] = [];
  private readonly liveLog = new LiveLog({ now: () => this.ctx.clock.now() });
  private readonly ui: UiContext;
  private readonly siteViews: SiteViews;
  private detachSiteViews: (() => void) | undefined;

  constructor(ctx: ExtensionContext) {
    super(ctx);
    const now = (): number => ctx.clock.now();
    const nodeTopics = new NodeTopics(ctx.config.nodes.topic);
    this.siteViews = new SiteViews(nodeTopics, ctx.info.id);
    const book = new NodeBook(ctx.config, ctx.info.address, now, (address) => this.siteViews.of(address));
    this.ui = {
      log: this.liveLog,
      book,
      forget: { config: ctx.config, book, ...(ctx.mqtt ? { mqtt: { connection: ctx.mqtt.connection, topics: nodeTopics } } : {}) },
      rates: new RateHistory(ctx.clock, () => ctx.metrics.snapshot()),
      config: ctx.config,
      snapshot: () => ctx.snapshot(),
      now,
      // The one policy and rate bucket of the gateway, shared with MQTT's send paths when MQTT runs.
      send: { config: ctx.config, info: ctx.info, mesh: ctx.mesh, clock: ctx.clock, policy: sharedSendPolicy(ctx.mqtt?.connection ?? ctx.mesh, ctx.config.mqtt.send_policy, now) },
      failed: (err, path) => ctx.logger.error({ err, path }, 'web UI request failed'),
    };
  }

  /** `http://host:port` once listening. */
  get url(): string | undefined {
    const a = this.server?.address() as AddressInfo | null | undefined;
    if (!a) return undefined;
    const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    return `http://${host}:${a.port}`;
  }

  override async start(): Promise<void> {
    const keep = this.ctx.config.http.recent_messages;
    this.liveLog.attach(this.ctx.bus, this);
    this.ui.book.attach(this.ctx.bus, this, this.ctx.mesh);
    this.ui.rates.start();
    if (this.ctx.mqtt) this.detachSiteViews = this.siteViews.attach(this.ctx.mqtt.connection);
    this.ctx.bus.on('meshMessage', this, (e) => {
      if (e.duplicate || keep === 0) return;
      const m = e.message;
      const row: RecentMessage = {
        at: e.rx.receivedAt,
        id: m.id.toString(),
        sender: m.sender,
        recipient: m.recipient,
        app_id: m.app_id,
        content_type: m.content_type,
        bytes: e.frame.byteLength,
        radio: e.rx.radioId,
        codec: e.codec,
        to_gateway: e.toGateway,
      };
      if (e.rx.rssi !== undefined) row.rssi = e.rx.rssi;
      this.recent.unshift(row);
      if (this.recent.length > keep) this.recent.length = keep;
    });
    const server = http.createServer((req, res) => this.handle(req, res));
    server.keepAliveTimeout = 5000;
    const { host, port } = this.ctx.config.http;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.ctx.logger.error({ err }, 'status server error'));
    this.server = server;
    this.ctx.logger.info({ url: this.url }, 'status page listening');
  }

  override async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.liveLog.close();
    this.ui.rates.stop();
    this.detachSiteViews?.();
    this.detachSiteViews = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await super.stop();
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (handleUiRequest(path, req, res, this.ui)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
    try {
      switch (path) {
        case '/health': {
          const s = this.ctx.snapshot();
          const health = s.health;
          const body = {
            status: health.status,
            causes: health.causes,
            gateway_id: s.gateway.id,
            address: s.gateway.address,
            uptime_s: s.uptime_s,
            rss_bytes: s.rss_bytes,
            mqtt: s.mqtt,
            radios: s.radios,
            queues: s.queues,
          };
          res.writeHead(health.status === 'ok' ? 200 : 503, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(body));
          return;
        }
        case '/metrics':
          res.writeHead(200, { ...headers, 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(this.ctx.metrics.renderPrometheus());
          return;
        case '/status.json':
          res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify({ ...this.ctx.snapshot(), recent: this.recent }));
          return;
        case '/':
          res
            .writeHead(200, {
              ...headers,
              'content-type': 'text/html; charset=utf-8',
              'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
            })
            .end(renderStatusPage(this.ctx.snapshot(), this.recent, this.ctx.config.nodes.names));
          return;
        default:
          res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('not found\n');
      }
    } catch (err) {
      this.ctx.logger.error({ err, path }, 'status request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    }
  }
}

export function createExtension(ctx: ExtensionContext): Extension {
  return new StatusHttp(ctx);
}
