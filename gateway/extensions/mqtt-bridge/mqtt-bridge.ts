/**
 * The MQTT bridge: every mesh message the gateway receives goes to `<base>/messages` through the durable outbox
 * (QoS 1, in order, kept on disk while the broker is away); the mesh ACK of a message addressed to the gateway
 * waits for its PUBACK. Messages for the mesh come in on `<base>/send` and take the one send path of
 * send-handler.ts (parse, the send policy `mqtt.send_policy`, mesh send, answers on `<base>/send/result` or the MQTT 5
 * response topic), which the site downlink shares. On every connection it announces `online` on the retained
 * `bridge/state` (whose last will is `offline`) and the retained `bridge/info` (which names the site, if any).
 */
import { MqttOutbox } from './outbox';
import { SendHandler } from '../../mqtt/send-handler';
import { SiteTopics } from '../../mqtt/topics';
import { messagePayload } from './payload';
import type { MeshMessageEvent } from '../../bus';
import type { ConnectionEvents, MqttConnection } from '../../mqtt/connection';
import type { Topics } from '../../mqtt/topics';
import { Extension, type ExtensionContext } from '../../extension';
import type { Counter } from '../../metrics';

export class MqttBridge extends Extension {
  readonly name = 'mqtt-bridge';
  private readonly connection: MqttConnection;
  private readonly topics: Topics;
  private outbox: MqttOutbox | undefined;
  private readonly onUp = (): void => this.connected();
  private readonly onDown = (): void => this.outbox?.detach();
  private readonly onMessage = (m: ConnectionEvents['message']): void => this.incoming(m);
  private readonly rawPublished: Counter;
  private readonly sends: SendHandler;

  constructor(ctx: ExtensionContext) {
    super(ctx);
    if (!ctx.mqtt) throw new Error('mqtt-bridge needs the MQTT connection');
    this.connection = ctx.mqtt.connection;
    this.topics = ctx.mqtt.topics;
    this.rawPublished = ctx.metrics.counter('clawling_gateway_mqtt_raw_frames_total', 'Raw frames published (QoS 0).');
    this.sends = new SendHandler({ ...ctx, connection: this.connection });
  }

  /** The outbox, for the controller's shutdown drain and the tests. */
  get queue(): MqttOutbox | undefined {
    return this.outbox;
  }

  override async start(): Promise<void> {
    const { config, store, logger, metrics, queues } = this.ctx;
    const outbox = new MqttOutbox(
      store,
      {
        clock: this.ctx.clock,
        capacity: config.mqtt.outbox_max_entries,
        dedupCapacity: Math.max(config.mesh.dedup_max_entries, config.mqtt.outbox_max_entries),
        inflight: config.mqtt.inflight,
        commitIntervalMs: config.mqtt.commit_interval_ms,
        properties: (id) => ({ contentType: 'application/json', userProperties: { message_id: id } }),
      },
      logger,
    );
    outbox.open();
    this.outbox = outbox;
    queues.register('mqtt', () => ({ depth: outbox.depth, dropped: outbox.dropped, inflight: outbox.inflight }));
    metrics.gauge('clawling_gateway_mqtt_published_total', 'Messages the broker acknowledged (PUBACK).', () => outbox.counters.published);
    metrics.gauge('clawling_gateway_mqtt_republished_total', 'Publishes repeated after a lost connection (possible duplicates).', () => outbox.counters.republished);
    metrics.gauge('clawling_gateway_mqtt_outbox_dropped_total', 'Messages dropped because the outbox was full.', () => outbox.dropped);
    metrics.gauge('clawling_gateway_mqtt_connected', '1 while connected to the broker.', () => (this.connection.connected ? 1 : 0));

    this.ctx.bus.on('meshMessage', this, (e) => this.onMeshMessage(e));
    this.connection.on('up', this.onUp);
    this.connection.on('down', this.onDown);
    this.connection.on('message', this.onMessage);
    this.connection.subscribe(this.topics.send, 1);
    if (this.connection.connected) this.connected();
  }

  override async stop(): Promise<void> {
    this.connection.off('up', this.onUp);
    this.connection.off('down', this.onDown);
    this.connection.off('message', this.onMessage);
    this.ctx.queues.unregister('mqtt');
    this.outbox?.close();
    await super.stop();
  }

  private connected(): void {
    const info = this.ctx.info;
    this.connection.publish(this.topics.bridgeState, 'online', { qos: 1, retain: true }, () => undefined);
    const body = {
      gateway_id: info.id,
      name: info.name,
      address: info.address,
      version: info.version,
      mqtt_protocol: this.connection.protocolVersion === 5 ? '5' : '3.1.1',
      base_topic: this.topics.base,
      radios: this.ctx.mesh.radios().map((r) => ({ id: r.radioId, kind: r.kind, state: r.state })),
      started_at: new Date(info.startedAt).toISOString(),
      site: siteOf(this.ctx.config),
      // What this gateway verifies and decodes, in the key package's terms (docs/mesh.md): a phone's app can tell
      // before it sends whether its v2 control signatures and binary frames will be taken.
      mesh: { wire_versions: [1], ctrl_versions: [1, 2] },
    };
    this.connection.publish(this.topics.bridgeInfo, JSON.stringify(body), { qos: 1, retain: true }, () => undefined);
    this.outbox?.attach(this.connection);
  }

  private onMeshMessage(e: MeshMessageEvent): void {
    const outbox = this.outbox;
    if (!outbox) return;
    const id = e.id;
    if (e.duplicate) {
      // Only the ACK question: is it still waiting for its PUBACK (then wait with it) or already out (ACK now)?
      if (e.delivery) outbox.whenPublished(id, e.delivery.claim(this.name));
      return;
    }
    const settle = e.delivery?.claim(this.name);
    outbox.accept(id, this.topics.messages, messagePayload(e, this.ctx.info.id), settle);
    if (this.ctx.config.mqtt.raw_frames && this.connection.connected) {
      this.rawPublished.inc();
      this.connection.publish(this.topics.raw(e.rx.radioId), Buffer.from(e.frame.buffer, e.frame.byteOffset, e.frame.byteLength), { qos: 0 }, () => undefined);
    }
  }

  private incoming(m: ConnectionEvents['message']): void {
    if (m.topic !== this.topics.send) return;
    void this.sends.handle(m.payload, SendHandler.target(m.properties, this.topics.sendResult));
  }
}

/** The site in `bridge/info`: its name and topics, or null for a gateway on its own. */
export function siteOf(config: ExtensionContext['config']): { id: string; topic: string; send_topic: string; share_group: string } | null {
  const site = config.mqtt.site;
  if (site.id === null) return null;
  const t = SiteTopics.of({ ...site, id: site.id });
  return { id: t.site, topic: t.base, send_topic: t.send, share_group: t.shareGroup };
}

export function createExtension(ctx: ExtensionContext): Extension {
  return new MqttBridge(ctx);
}
