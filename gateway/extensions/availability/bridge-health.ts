/**
 * Bridge health on MQTT: the retained `bridge/health` JSON (uptime, RSS, messages/s, neighbours, queue depths,
 * the counters), every `mqtt.health_interval_s` and at each connection. Home Assistant's sensors read from it.
 */
import { Extension, type ExtensionContext } from '../../extension';

export class BridgeHealth extends Extension {
  readonly name = 'bridge-health';
  private timer: unknown;
  private readonly onUp = (): void => this.publish();

  constructor(ctx: ExtensionContext) {
    super(ctx);
  }

  override async start(): Promise<void> {
    this.ctx.mqtt?.connection.on('up', this.onUp);
    this.schedule();
    if (this.ctx.mqtt?.connection.connected) this.publish();
  }

  override async stop(): Promise<void> {
    this.ctx.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.ctx.mqtt?.connection.off('up', this.onUp);
    await super.stop();
  }

  /** Every `mqtt.health_interval_s`, on the gateway's clock. */
  private schedule(): void {
    this.timer = this.ctx.clock.setTimeout(() => {
      this.publish();
      this.schedule();
    }, this.ctx.config.mqtt.health_interval_s * 1000);
  }

  /** Publishes the health document now (also the tests' hook). */
  publish(): void {
    const mqtt = this.ctx.mqtt;
    if (!mqtt?.connection.connected) return;
    const s = this.ctx.snapshot();
    const outbox = s.queues.mqtt;
    const body = {
      state: 'online',
      // Home Assistant's problem sensor on the gateway device reads these: the same verdict as /health.
      health: s.health.status,
      problem: s.health.status === 'degraded',
      causes: s.health.causes,
      uptime_s: s.uptime_s,
      rss_bytes: s.rss_bytes,
      heap_used_bytes: s.heap_used_bytes,
      messages_per_s: s.messages_per_s,
      peers: s.neighbours.length,
      radios: Object.fromEntries(s.radios.map((r) => [r.id, r.state])),
      outbox_depth: outbox?.depth ?? 0,
      outbox_dropped: outbox?.dropped ?? 0,
      queues: s.queues,
      counters: s.counters,
      at: new Date(this.ctx.clock.now()).toISOString(),
    };
    mqtt.connection.publish(mqtt.topics.bridgeHealth, JSON.stringify(body), { qos: 0, retain: true }, () => undefined);
  }
}

export function createExtension(ctx: ExtensionContext): Extension {
  return new BridgeHealth(ctx);
}
