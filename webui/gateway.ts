/**
 * The gateway page: health and its causes, what `--check` would report, MQTT and hub connections, radios with state and counters, queue and
 * outbox depths, uptime and memory, small charts of the message rates over the last 15 minutes, and the effective configuration with its secrets already redacted by the
 * gateway. Refreshed from `api/gateway` every few seconds.
 */
import { lineChart } from './chart.js';
import { byId, el, getJson, textRow } from './dom.js';

interface GatewayView {
  gateway: { id: string; name: string; address: string; version: string };
  uptime_s: number;
  rss_bytes: number;
  heap_used_bytes: number;
  messages_per_s: number;
  health: { status: string; causes: Array<{ code: string; detail: string }> };
  radios: Array<{ id: string; kind?: string; state: string; detail?: string; peers: number; counters: Record<string, number> }>;
  queues: Record<string, { depth: number; dropped: number; inflight?: number }>;
  mqtt: { enabled: boolean; connected: boolean; protocol_version?: number; url?: string; refused?: string };
  hub: { enabled: boolean; connected?: boolean };
  config: unknown;
  check: Array<{ where: string; problem: string }>;
  now: number;
  rates: Record<string, Array<[number, number]>>;
}

const REFRESH_MS = 3000;
const RATE_WINDOW = { ms: 15 * 60 * 1000, label: '15 min ago' };
const RATE_CHART = { width: 400, height: 110 };

function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

function uptime(s: number): string {
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return d ? `${d} d ${h} h` : h ? `${h} h ${m} min` : `${m} min ${s % 60} s`;
}

function render(g: GatewayView): void {
  byId('gw-name').textContent = g.gateway.name;
  byId('gw-meta').textContent = `id ${g.gateway.id} · address ${g.gateway.address} · version ${g.gateway.version} · up ${uptime(g.uptime_s)} · RSS ${mib(g.rss_bytes)} · heap ${mib(g.heap_used_bytes)} · ${g.messages_per_s} msg/s`;
  const status = byId('health-status');
  status.textContent = g.health.status;
  status.className = g.health.status === 'ok' ? 'ok' : 'off';
  byId('health-causes').replaceChildren(...(g.health.causes.length ? g.health.causes.map((c) => el('li', `${c.code}: ${c.detail}`)) : [el('li', 'no problem')]));
  const mqtt = g.mqtt.enabled ? (g.mqtt.connected ? `connected (MQTT ${g.mqtt.protocol_version === 5 ? '5' : '3.1.1'}) to ${g.mqtt.url ?? ''}` : `disconnected${g.mqtt.refused ? `: ${g.mqtt.refused}` : ''}`) : 'disabled';
  const hub = g.hub.enabled ? (g.hub.connected ? 'connected' : 'disconnected') : 'disabled';
  byId('check').replaceChildren(...(g.check.length ? g.check.map((c) => el('li', `${c.where}: ${c.problem}`)) : [el('li', 'no problem')]));
  byId('connections').replaceChildren(textRow(['MQTT', mqtt]), textRow(['Message Hub', hub]));
  byId('radios').replaceChildren(
    ...g.radios.map((r) => {
      const tr = textRow([r.id, r.kind ?? '', r.state, r.detail ?? '', r.peers, Object.entries(r.counters).map(([k, v]) => `${k} ${v}`).join(', ')]);
      tr.dataset.radio = r.id;
      return tr;
    }),
  );
  const queues = Object.entries(g.queues);
  byId('queues').replaceChildren(...(queues.length ? queues.map(([name, q]) => textRow([name, q.depth, q.inflight ?? '', q.dropped])) : [textRow(['none', '', '', ''])]));
  const charts = Object.entries(g.rates)
    .filter(([, points]) => points.length > 0)
    .map(([name, points]) => lineChart(name, points, g.now, { window: RATE_WINDOW, size: RATE_CHART, fromZero: true }));
  byId('rates').replaceChildren(...(charts.length ? charts : [el('p', 'the first rates appear a few seconds after start', 'hint')]));
  byId('config').textContent = JSON.stringify(g.config, null, 2);
}

async function refresh(): Promise<void> {
  const r = await getJson<GatewayView>('../api/gateway');
  if (r.ok) render(r.body);
  else byId('gw-meta').textContent = `${r.error.code}: ${r.error.message}`;
}

void refresh();
setInterval(() => void refresh(), REFRESH_MS);
