/**
 * Requests to the gateway itself over MQTT, as Zigbee2MQTT's bridge takes them: `B/bridge/request/<name>`, each
 * answered on `B/bridge/response/<name>` with `{status: "ok", data}` or `{status: "error", error}`. Home Assistant's
 * controls on the gateway's device publish here (the restart button, the log-level select); the current options are
 * retained on `B/bridge/options` for the select's state. Who may publish to the request topics is the broker's ACL
 * (docs/mqtt.md): a request the ACL refuses never arrives, and so changes nothing.
 */
import { Extension, type ExtensionContext } from '../../extension';
import { LOG_LEVELS, type LogLevel } from '../../logger';
import type { ConnectionEvents } from '../../mqtt/connection';

type Answer = { status: 'ok'; data: Record<string, unknown> } | { status: 'error'; error: string };

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

export class BridgeControl extends Extension {
  readonly name = 'bridge-control';
  private readonly onUp = (): void => this.publishOptions();
  private readonly onMessage = (m: ConnectionEvents['message']): void => this.incoming(m);

  constructor(ctx: ExtensionContext) {
    super(ctx);
  }

  override async start(): Promise<void> {
    const conn = this.ctx.mqtt!.connection;
    conn.on('up', this.onUp);
    conn.on('message', this.onMessage);
    conn.subscribe(this.ctx.mqtt!.topics.bridgeRequestFilter, 1);
    if (conn.connected) this.publishOptions();
  }

  override async stop(): Promise<void> {
    this.ctx.mqtt?.connection.off('up', this.onUp);
    this.ctx.mqtt?.connection.off('message', this.onMessage);
    await super.stop();
  }

  private publishOptions(): void {
    const { connection, topics } = this.ctx.mqtt!;
    if (!connection.connected) return;
    connection.publish(topics.bridgeOptions, JSON.stringify({ log_level: this.ctx.control.logLevel(), restartable: this.ctx.control.restartable }), { qos: 1, retain: true }, () => undefined);
  }

  private incoming(m: ConnectionEvents['message']): void {
    const { topics } = this.ctx.mqtt!;
    const prefix = topics.bridgeRequest('');
    if (!m.topic.startsWith(prefix)) return;
    const name = m.topic.slice(prefix.length);
    const answer = this.handle(name, valueOf(m.payload));
    this.ctx.logger.info({ request: name, status: answer.status, ...(answer.status === 'error' ? { error: answer.error } : {}) }, 'bridge request');
    this.ctx.mqtt!.connection.publish(topics.bridgeResponse(name), JSON.stringify(answer), { qos: 1 }, () => {
      // The answer goes out before a restart takes the connection down.
      if (name === 'restart' && answer.status === 'ok') this.ctx.control.requestRestart('bridge request');
    });
  }

  private handle(name: string, value: unknown): Answer {
    switch (name) {
      case 'log_level': {
        if (typeof value !== 'string' || !(LOG_LEVELS as readonly string[]).includes(value)) {
          return { status: 'error', error: `log_level must be one of ${LOG_LEVELS.join(', ')}` };
        }
        this.ctx.control.setLogLevel(value as LogLevel);
        this.publishOptions();
        return { status: 'ok', data: { log_level: value } };
      }
      case 'restart':
        if (!this.ctx.control.restartable) return { status: 'error', error: 'this gateway is not run by `clawling gateway`, which alone can restart it' };
        return { status: 'ok', data: { restarting: true } };
      default:
        return { status: 'error', error: `unknown request ${JSON.stringify(name)} (known: log_level, restart)` };
    }
  }
}

export function createExtension(ctx: ExtensionContext): Extension {
  return new BridgeControl(ctx);
}
