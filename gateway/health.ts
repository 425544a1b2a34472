/**
 * Whether the gateway can do its job, not merely whether the process runs: what `/health`, `/status.json`, the
 * status page, the MQTT health document and Home Assistant's `problem` sensor all show, computed once here.
 *
 * - `starting` (503) until every radio has been opened and the MQTT client started; `stopping` (503) after SIGTERM.
 * - `degraded` (503) with its causes:
 *   - `RADIOS_UNUSABLE` as soon as no radio is usable. A radio is usable while it is `ready`; one that was ready and
 *     is reconnecting (`degraded` or `starting` again) keeps counting for `http.health_radio_grace_ms`. A radio that
 *     never became ready gets no grace: a serial path that does not exist is a problem from the first answer.
 *   - `MQTT_REFUSED` at once when the broker refused the credentials (a refusal is not transient);
 *   - `MQTT_DOWN` when MQTT is enabled and has been disconnected for `http.health_mqtt_down_ms` or longer (counted
 *     from start when it never connected).
 *   A gateway configured without radios has nothing to miss.
 * - `ok` (200) otherwise.
 */
import type { Clock } from '../lib/clock';
import type { EventBus } from './bus';

export type HealthStatus = 'ok' | 'degraded' | 'starting' | 'stopping';

export interface HealthCause {
  code: 'RADIOS_UNUSABLE' | 'MQTT_REFUSED' | 'MQTT_DOWN';
  detail: string;
}

export interface Health {
  status: HealthStatus;
  http: 200 | 503;
  causes: HealthCause[];
}

export interface HealthRadio {
  id: string;
  kind?: string;
  state: string;
  detail?: string;
  peers: number;
  /** When it last stopped being `ready`; undefined while ready or when it never was. */
  leftReadyAt?: number;
  /** It has been `ready` at least once since start. */
  wasReady?: boolean;
}

export interface HealthInput {
  phase: 'starting' | 'running' | 'stopping';
  radios: HealthRadio[];
  mqtt: { enabled: boolean; connected: boolean; url?: string; refused?: string };
  /** When MQTT went down (or the gateway started without it connected); undefined while it is up. */
  mqttDownSince: number | undefined;
  now: number;
  mqttDownMs: number;
  radioGraceMs: number;
}

const RECONNECTING = new Set(['degraded', 'starting']);

function usable(r: HealthRadio, now: number, graceMs: number): boolean {
  if (r.state === 'ready') return true;
  return r.wasReady === true && RECONNECTING.has(r.state) && r.leftReadyAt !== undefined && now - r.leftReadyAt < graceMs;
}

export function assessHealth(input: HealthInput): Health {
  if (input.phase === 'stopping') return { status: 'stopping', http: 503, causes: [] };
  if (input.phase === 'starting') return { status: 'starting', http: 503, causes: [] };
  const causes: HealthCause[] = [];
  if (input.radios.length > 0 && !input.radios.some((r) => usable(r, input.now, input.radioGraceMs))) {
    causes.push({
      code: 'RADIOS_UNUSABLE',
      detail: `no radio is usable: ${input.radios.map((r) => `${r.id} ${r.state}${r.detail !== undefined ? ` (${r.detail})` : ''}`).join('; ')}`,
    });
  }
  const where = input.mqtt.url !== undefined ? ` (${input.mqtt.url})` : '';
  if (input.mqtt.enabled && !input.mqtt.connected && input.mqtt.refused !== undefined) {
    causes.push({ code: 'MQTT_REFUSED', detail: `the MQTT broker${where} refused the credentials: ${input.mqtt.refused}; check mqtt.username and the password` });
  } else if (input.mqtt.enabled && !input.mqtt.connected && input.mqttDownSince !== undefined) {
    const down = input.now - input.mqttDownSince;
    if (down >= input.mqttDownMs) {
      causes.push({
        code: 'MQTT_DOWN',
        detail: `MQTT${where} disconnected for ${Math.round(down / 1000)} s (limit http.health_mqtt_down_ms = ${input.mqttDownMs})`,
      });
    }
  }
  return causes.length > 0 ? { status: 'degraded', http: 503, causes } : { status: 'ok', http: 200, causes };
}

export interface HealthMonitorOptions {
  mqttEnabled: boolean;
  mqttDownMs: number;
  radioGraceMs: number;
}

/** Follows the gateway's phase, MQTT and each radio's readiness on the bus, so that `assess` needs only a snapshot. */
export class HealthMonitor {
  private phase: HealthInput['phase'] = 'starting';
  private mqttDownSince: number | undefined;
  private readonly radios = new Map<string, { wasReady: boolean; leftReadyAt?: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly options: HealthMonitorOptions,
  ) {
    // Down from the start until the first connection: a broker that never answers is as bad as one that left.
    this.mqttDownSince = options.mqttEnabled ? clock.now() : undefined;
  }

  attach(bus: EventBus): void {
    bus.on('started', this, () => {
      if (this.phase === 'starting') this.phase = 'running';
    });
    bus.on('stopping', this, () => {
      this.phase = 'stopping';
    });
    bus.on('mqttState', this, (e) => {
      if (e.connected) this.mqttDownSince = undefined;
      else this.mqttDownSince ??= this.clock.now();
    });
    bus.on('radioStatus', this, (s) => this.radioState(s.radioId, s.state));
  }

  private radioState(id: string, state: string): void {
    const r = this.radios.get(id) ?? { wasReady: false };
    if (state === 'ready') {
      r.wasReady = true;
      delete r.leftReadyAt;
    } else if (r.wasReady && r.leftReadyAt === undefined) r.leftReadyAt = this.clock.now();
    this.radios.set(id, r);
  }

  assess(radios: ReadonlyArray<Omit<HealthRadio, 'wasReady' | 'leftReadyAt'>>, mqtt: HealthInput['mqtt']): Health {
    const now = this.clock.now();
    const seen = radios.map((r) => {
      this.radioState(r.id, r.state);
      const t = this.radios.get(r.id)!;
      return { ...r, wasReady: t.wasReady, ...(t.leftReadyAt !== undefined ? { leftReadyAt: t.leftReadyAt } : {}) };
    });
    return assessHealth({
      phase: this.phase,
      radios: seen,
      mqtt,
      mqttDownSince: this.mqttDownSince,
      now,
      mqttDownMs: this.options.mqttDownMs,
      radioGraceMs: this.options.radioGraceMs,
    });
  }
}
