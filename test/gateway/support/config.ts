/** Gateway configurations for tests: the real loader (schema defaults, checks), loopback everything, no jitter. */
import YAML from 'yaml';
import { loadConfig } from '../../../gateway/load-config';
import type { GatewayConfig } from '../../../gateway/gateway-config';
import { DAEMON_CONFIG_SCHEMA } from '../../../gateway/extensions/daemon/config-schema';

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> | T[K] : T[K] };

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = prev && v && typeof prev === 'object' && typeof v === 'object' && !Array.isArray(v) ? merge(prev as Record<string, unknown>, v as Record<string, unknown>) : v;
  }
  return out;
}

export function testConfig(stateDir: string, overrides: Record<string, unknown> = {}): GatewayConfig {
  const base = {
    gateway: { id: 'gw-test', state_dir: stateDir, shutdown_timeout_ms: 3000 },
    log: { level: 'silent' },
    mesh: { forward_jitter_min_ms: 0, forward_jitter_max_ms: 0 },
    mqtt: { enabled: false, reconnect_min_ms: 50, reconnect_max_ms: 200, health_interval_s: 3600 },
    http: { enabled: false, port: 0 },
  };
  // The daemon's section schema as main.ts would load it (the extension table's other sections are open in schema.ts).
  return loadConfig({ text: YAML.stringify(merge(base, overrides)), env: {}, extensionSchemas: { daemon: DAEMON_CONFIG_SCHEMA } }).config;
}
