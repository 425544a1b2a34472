/**
 * What `/health` answers: whether the gateway is ready to do its job, not merely whether the process runs.
 *
 * - `starting` (503) until every radio has been opened and the MQTT client started; `stopping` (503) after SIGTERM.
 * - `degraded` (503) with its causes when no configured radio is usable (each is `unsupported`, `error` or
 *   `stopped`), or when MQTT is enabled and has been disconnected for `http.health_mqtt_down_ms` or longer
 *   (counted from start when it never connected). A gateway configured without radios has nothing to miss.
 * - `ok` (200) otherwise; a `degraded` radio (an unplugged serial dongle, a restarting scan) still counts as usable.
 */
import type { GatewaySnapshot } from '../../extension';

export type HealthStatus = 'ok' | 'degraded' | 'starting' | 'stopping';

export interface HealthCause {
  code: 'RADIOS_UNUSABLE' | 'MQTT_DOWN';
  detail: string;
}

export interface HealthInput {
  phase: 'starting' | 'running' | 'stopping';
  radios: GatewaySnapshot['radios'];
  mqtt: GatewaySnapshot['mqtt'];
  /** When MQTT went down (or the gateway started without it connected); undefined while it is up. */
  mqttDownSince: number | undefined;
  now: number;
  mqttDownMs: number;
}

const UNUSABLE = new Set(['unsupported', 'error', 'stopped']);

export function assessHealth(input: HealthInput): { status: HealthStatus; http: 200 | 503; causes: HealthCause[] } {
  if (input.phase === 'stopping') return { status: 'stopping', http: 503, causes: [] };
  if (input.phase === 'starting') return { status: 'starting', http: 503, causes: [] };
  const causes: HealthCause[] = [];
  if (input.radios.length > 0 && input.radios.every((r) => UNUSABLE.has(r.state))) {
    causes.push({
      code: 'RADIOS_UNUSABLE',
      detail: `no radio is usable: ${input.radios.map((r) => `${r.id} ${r.state}${r.detail !== undefined ? ` (${r.detail})` : ''}`).join('; ')}`,
    });
  }
  if (input.mqtt.enabled && !input.mqtt.connected && input.mqttDownSince !== undefined) {
    const down = input.now - input.mqttDownSince;
    if (down >= input.mqttDownMs) {
      causes.push({
        code: 'MQTT_DOWN',
        detail: `MQTT${input.mqtt.url !== undefined ? ` (${input.mqtt.url})` : ''} disconnected for ${Math.round(down / 1000)} s (limit http.health_mqtt_down_ms = ${input.mqttDownMs})`,
      });
    }
  }
  return causes.length > 0 ? { status: 'degraded', http: 503, causes } : { status: 'ok', http: 200, causes };
}
