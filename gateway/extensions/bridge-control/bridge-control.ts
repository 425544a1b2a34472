/**
 * Requests to the gateway itself over MQTT, as Zigbee2MQTT's bridge takes them: `B/bridge/request/<name>`, each
 * answered on `B/bridge/response/<name>` with `{status: "ok", data}` or `{status: "error", error}`. Home Assistant's
 * controls on the gateway's device publish here (the restart button, the log-level select); the current options are
 * retained on `B/bridge/options` for the select's state. Who may publish to the request topics is the broker's ACL
 * (docs/mqtt.md): a request the ACL refuses never arrives, and so changes nothing. Which requests the gateway carries
 * out at all is `mqtt.send_policy.requests`.
 */
import { Extension, type ExtensionContext } from '../../extension';
import { LOG_LEVELS, type LogLevel } from '../../logger';
import type { ConnectionEvents } from '../../mqtt/connection';
import { BRIDGE_REQUESTS, requestAllowed, type BridgeRequest } from '../../mqtt/send-policy';

type Answer = { status: 'ok'; data: Record<string, unknown> } | { status: 'error'; code: string; error: string };

const refuse = (code: string, error: string): Answer => ({ status: 'error', code, error });

/** The request's value: plain text, or JSON `{"value": …}` (Zigbee2MQTT's form), or a JSON string. */
function valueOf(payload: Buffer): unknown {
  const text = payload.toString('utf8').trim();
  if (!text.startsWith('{') && !text.startsWith('"')) return text;
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed !== null && typeof parsed === 'object' ? (parsed as { value?: unknown }).value : parsed;
  } catch {
    return text;
  }
}

/** `ON`/`OFF`, booleans, or a number of seconds to keep the window open (0 closes it), as Zigbee2MQTT's permit_join. */
function pairingValue(value: unknown): { open: false } | { open: true; seconds?: number } | undefined {
  if (value === true || value === 'ON' || value === 'on' || value === 'true') return { open: true };
  if (value === false || value === 'OFF' || value === 'off' || value === 'false') return { open: false };
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 3600) return undefined;
  return n === 0 ? { open: false } : { open: true, seconds: n };
}

export class BridgeControl extends Extension {
  readonly name = 'bridge-control';
  private readonly onUp = (): void => this.publishOptions();
  private readonly onMessage = (m: ConnectionEvents['message']): void => this.incoming(m);
  private offPairing: (() => void) | undefined;

  constructor(ctx: ExtensionContext) {
    super(ctx);
  }

  override async start(): Promise<void> {
    const conn = this.ctx.mqtt!.connection;
    conn.on('up', this.onUp);
    conn.on('message', this.onMessage);
    conn.subscribe(this.ctx.mqtt!.topics.bridgeRequestFilter, 1);
    // The window closes by itself: Home Assistant's switch must follow.
    this.offPairing = this.ctx.control.pairing?.onChange(() => this.publishOptions());
    if (conn.connected) this.publishOptions();
  }

  override async stop(): Promise<void> {
    this.ctx.mqtt?.connection.off('up', this.onUp);
    this.ctx.mqtt?.connection.off('message', this.onMessage);
    this.offPairing?.();
    await super.stop();
  }

  private publishOptions(): void {
    const { connection, topics } = this.ctx.mqtt!;
    if (!connection.connected) return;
    const pairing = this.ctx.control.pairing?.state();
    const options: Record<string, unknown> = { log_level: this.ctx.control.logLevel(), restartable: this.ctx.control.restartable };
    if (pairing !== undefined) {
      options.pairing = pairing.open ? 'ON' : 'OFF';
      options.pairing_until = pairing.until === undefined ? null : new Date(pairing.until).toISOString();
      options.pairing_admitted = pairing.admitted.map((p) => p.ref);
    }
    connection.publish(topics.bridgeOptions, JSON.stringify(options), { qos: 1, retain: true }, () => undefined);
  }

  private incoming(m: ConnectionEvents['message']): void {
    const { topics } = this.ctx.mqtt!;
    const prefix = topics.bridgeRequest('');
    if (!m.topic.startsWith(prefix)) return;
    const name = m.topic.slice(prefix.length);
    const answer = this.handle(name, valueOf(m.payload));
    this.ctx.logger.info({ request: name, status: answer.status, ...(answer.status === 'error' ? { code: answer.code, error: answer.error } : {}) }, 'bridge request');
    this.ctx.mqtt!.connection.publish(topics.bridgeResponse(name), JSON.stringify(answer), { qos: 1 }, () => {
      // The answer goes out before a restart takes the connection down.
      if (name === 'restart' && answer.status === 'ok') this.ctx.control.requestRestart('bridge request');
    });
  }

  private handle(name: string, value: unknown): Answer {
    if ((BRIDGE_REQUESTS as readonly string[]).includes(name) && !requestAllowed(this.ctx.config.mqtt.send_policy, name as BridgeRequest)) {
      return refuse('SEND_POLICY_REQUEST', `${name} is not in mqtt.send_policy.requests`);
    }
    switch (name) {
      case 'log_level': {
        if (typeof value !== 'string' || !(LOG_LEVELS as readonly string[]).includes(value)) {
          return refuse('BAD_LOG_LEVEL', `log_level must be one of ${LOG_LEVELS.join(', ')}`);
        }
        this.ctx.control.setLogLevel(value as LogLevel);
        this.publishOptions();
        return { status: 'ok', data: { log_level: value } };
      }
      case 'restart':
        if (!this.ctx.control.restartable) return refuse('NOT_RESTARTABLE', 'this gateway is not run by `clawling gateway`, which alone can restart it');
        return { status: 'ok', data: { restarting: true } };
      case 'pairing': {
        const pairing = this.ctx.control.pairing;
        if (pairing === undefined) return refuse('PAIRING_UNAVAILABLE', 'no BLE radio has admission: listed, so a pairing window would admit nothing new');
        const wanted = pairingValue(value);
        if (wanted === undefined) return refuse('BAD_PAIRING_VALUE', 'pairing must be ON, OFF, true, false or seconds (0–3600)');
        const state = wanted.open ? pairing.open(wanted.seconds === undefined ? undefined : wanted.seconds * 1000, 'bridge request') : pairing.close('request');
        return { status: 'ok', data: { pairing: state.open ? 'ON' : 'OFF', ...(state.until !== undefined ? { until: new Date(state.until).toISOString() } : {}) } };
      }
      default:
        return refuse('UNKNOWN_REQUEST', `unknown request ${JSON.stringify(name)} (known: ${BRIDGE_REQUESTS.join(', ')})`);
    }
  }
}

export function createExtension(ctx: ExtensionContext): Extension {
  return new BridgeControl(ctx);
}
