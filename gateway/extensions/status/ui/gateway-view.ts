/**
 * What the web UI's gateway page shows, as one JSON document (api.ts adds the rate history): the snapshot every
 * status surface shares (radios, queues, MQTT, `/health` causes, uptime and memory), each radio's own counters picked out of the metrics, the hub
 * connection when the hub bridge runs, and the effective configuration with every secret redacted by the same
 * redactor as `--print-config`, so a token never reaches the page.
 */
import fs from 'node:fs';
import { redactConfig } from '../../../config/redact';
import type { GatewaySnapshot } from '../../../extension';
import { GATEWAY_CONFIG_SCHEMA, type GatewayConfig } from '../../../gateway-config';

export interface GatewayView {
  gateway: GatewaySnapshot['gateway'];
  uptime_s: number;
  rss_bytes: number;
  heap_used_bytes: number;
  messages_per_s: number;
  health: GatewaySnapshot['health'];
  radios: Array<GatewaySnapshot['radios'][number] & { counters: Record<string, number> }>;
  neighbours: GatewaySnapshot['neighbours'];
  queues: GatewaySnapshot['queues'];
  mqtt: GatewaySnapshot['mqtt'];
  hub: { enabled: boolean; connected?: boolean };
  config: unknown;
  /** What `--check` would report now without probing the open radios: configuration warnings, the state folder, radios in trouble. */
  check: Array<{ where: string; problem: string }>;
}

const PREFIX = 'clawling_gateway_';

/** Every labelled metric row of `radio`, keyed `metric` or `metric{other labels}`. */
function radioCounters(counters: GatewaySnapshot['counters'], radio: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(counters)) {
    if (typeof value === 'number') continue;
    for (const [labels, n] of Object.entries(value)) {
      const parts = labels.split(',');
      if (!parts.includes(`radio=${radio}`)) continue;
      const rest = parts.filter((p) => !p.startsWith('radio='));
      out[`${name.startsWith(PREFIX) ? name.slice(PREFIX.length) : name}${rest.length ? `{${rest.join(',')}}` : ''}`] = n;
    }
  }
  return out;
}

/**
 * `--check`'s problems, for a gateway that runs: the configuration's warnings as loaded, whether the state folder is
 * still writable, and each radio that is not ready with what it says. `--check` itself also opens each radio to
 * probe it; a running gateway holds them open already, so their own state is the answer and nothing is probed.
 */
function checkProblems(s: GatewaySnapshot, config: GatewayConfig): GatewayView['check'] {
  const out: GatewayView['check'] = (s.config_warnings ?? []).map((problem) => ({ where: 'environment', problem }));
  try {
    fs.accessSync(config.gateway.state_dir, fs.constants.W_OK);
  } catch (err) {
    out.push({ where: 'gateway.state_dir', problem: `${config.gateway.state_dir} is not writable (${(err as NodeJS.ErrnoException).code ?? 'error'})` });
  }
  for (const r of s.radios) if (r.state !== 'ready') out.push({ where: `radio ${r.id}`, problem: r.detail ? `${r.state}: ${r.detail}` : r.state });
  return out;
}

export function gatewayView(s: GatewaySnapshot, config: GatewayConfig): GatewayView {
  const hubConnected = s.counters[`${PREFIX}hub_connected`];
  const hubEnabled = (config as { hub?: { enabled?: boolean } }).hub?.enabled === true;
  return {
    gateway: s.gateway,
    uptime_s: s.uptime_s,
    rss_bytes: s.rss_bytes,
    heap_used_bytes: s.heap_used_bytes,
    messages_per_s: s.messages_per_s,
    health: s.health,
    radios: s.radios.map((r) => ({ ...r, counters: radioCounters(s.counters, r.id) })),
    neighbours: s.neighbours,
    queues: s.queues,
    mqtt: s.mqtt,
    hub: typeof hubConnected === 'number' ? { enabled: hubEnabled, connected: hubConnected === 1 } : { enabled: hubEnabled },
    config: redactConfig(config, GATEWAY_CONFIG_SCHEMA),
    check: checkProblems(s, config),
  };
}
