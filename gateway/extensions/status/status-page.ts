/**
 * The HTML of the status page: radios, neighbours, recent messages and queue depths, server-rendered and refreshed
 * by the browser every few seconds (no script, so it works under the strictest CSP and on any phone). Every value
 * that came from the mesh or a radio is escaped; message contents are never shown, only their envelope.
 */
import { quoteValue } from '../../../lib/quote-value';
import type { GatewaySnapshot, SiteSnapshot } from '../../extension';

export interface RecentMessage {
  at: number;
  id: string;
  sender: string;
  recipient: string;
  app_id: string;
  content_type: string;
  bytes: number;
  radio: string;
  rssi?: number;
  codec: string;
  to_gateway: boolean;
}

const REFRESH_S = 5;

function esc(value: unknown): string {
  return quoteValue(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function table(head: string[], rows: unknown[][]): string {
  if (rows.length === 0) return '<p class="none">none</p>';
  return `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

function short(address: string | undefined): string {
  if (!address) return '';
  return address.length > 20 ? `${address.slice(0, 10)}…${address.slice(-6)}` : address;
}

/** The gateways of the site as this one sees them on the broker (their retained announcements and bridge states). */
/** The non-empty capability lists of a key package, e.g. `wire 1 · env 1 · ctrl 2`; empty before one came. */
function keyPackageText(caps: GatewaySnapshot['neighbours'][number]['key_package']): string {
  if (caps === undefined) return '';
  const parts = Object.entries(caps)
    .filter(([, versions]) => versions.length > 0)
    .map(([list, versions]) => `${list.replace(/_versions$/, '')} ${versions.join(',')}`);
  return parts.length > 0 ? parts.join(' · ') : 'floor only';
}

function siteSection(site: SiteSnapshot): string {
  const takes = site.takes_sends ? 'takes requests on' : 'does not take requests on';
  return `<h2>Site ${esc(site.id)}</h2>
<p class="meta">This gateway ${takes} <code>${esc(site.send_topic)}</code>.</p>
${table(['gateway', 'name', 'address', 'base topic', 'state', ''], site.gateways.map((g) => [g.id, g.name, short(g.address), g.base_topic, g.state, g.self ? 'this gateway' : (g.conflict ?? '')]))}
`;
}

/** `names`: friendly names by mesh address (config `nodes.names`), shown before the shortened address. */
export function renderStatusPage(s: GatewaySnapshot, recent: readonly RecentMessage[], names: Readonly<Record<string, string>> = {}): string {
  const who = (address: string | undefined): string => (address !== undefined && names[address] !== undefined ? `${names[address]} (${short(address)})` : short(address));
  const mqtt = s.mqtt.enabled ? (s.mqtt.connected ? `connected (MQTT ${s.mqtt.protocol_version === 5 ? '5' : '3.1.1'})` : 'disconnected') : 'disabled';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${REFRESH_S}">
<title>${esc(s.gateway.name)} · clawling gateway</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#222;background:#fafafa}
h1{font-size:1.3rem;margin:0 0 .2rem}h2{font-size:1.05rem;margin:1.4rem 0 .4rem}
.meta{color:#666}table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid #ddd;padding:.25rem .45rem;text-align:left;font-variant-numeric:tabular-nums}
th{background:#f0f0f0}.none{color:#888}code{font-size:.9em}
</style></head><body>
<h1>${esc(s.gateway.name)}</h1>
<div class="meta">id <code>${esc(s.gateway.id)}</code> · address <code>${esc(s.gateway.address)}</code> · version ${esc(s.gateway.version)}
· up ${esc(s.uptime_s)} s · RSS ${esc((s.rss_bytes / 1048576).toFixed(1))} MiB · ${esc(s.messages_per_s)} msg/s · MQTT ${esc(mqtt)}</div>
<h2>Health: ${esc(s.health.status)}</h2>
${s.health.causes.length > 0 ? table(['cause', 'detail'], s.health.causes.map((c) => [c.code, c.detail])) : '<p class="none">no problem</p>'}
<h2>Radios</h2>
${table(['radio', 'kind', 'state', 'detail', 'peers'], s.radios.map((r) => [r.id, r.kind, r.state, r.detail, r.peers]))}
<h2>Neighbours</h2>
${table(
  ['radio', 'peer', 'address', 'wire', 'key package', 'RSSI', 'MTU'],
  s.neighbours.map((n) => [n.radio, n.id, who(n.address), (n.key_package?.wire_versions ?? n.wire_versions).includes(1) ? 'binary v1' : 'JSON', keyPackageText(n.key_package), n.rssi, n.mtu]),
)}
${s.site ? siteSection(s.site) : ''}<h2>Queues</h2>
${table(['queue', 'depth', 'in flight', 'dropped'], Object.entries(s.queues).map(([name, q]) => [name, q.depth, q.inflight, q.dropped]))}
<h2>Recent messages</h2>
${table(
  ['received', 'id', 'sender', 'recipient', 'app', 'type', 'bytes', 'radio', 'RSSI', 'codec'],
  recent.map((m) => [new Date(m.at).toISOString().slice(11, 23), m.id, who(m.sender), m.to_gateway ? 'gateway' : who(m.recipient), m.app_id, m.content_type, m.bytes, m.radio, m.rssi, m.codec]),
)}
<p class="meta">Web UI: <a href="ui/map">map</a> · <a href="ui/nodes">nodes</a> · <a href="ui/gateway">gateway</a> · <a href="ui">live log</a></p>
<p class="meta">Machine-readable: <a href="health">/health</a> · <a href="metrics">/metrics</a> · <a href="status.json">/status.json</a></p>
</body></html>
`;
}
