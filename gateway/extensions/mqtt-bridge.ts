/**
 * The MQTT bridge: every mesh message the gateway receives goes to `<base>/messages` through the durable outbox
 * (QoS 1, in order, kept on disk while the broker is away); the mesh ACK of a message addressed to the gateway
 * waits for its PUBACK. Messages for the mesh come in on `<base>/send` and each gets one answer on
 * `<base>/send/result` (or the MQTT 5 response topic), after the send policy (`mqtt.send_policy`) let it through. On every connection it announces `online` on the retained
 * `bridge/state` (whose last will is `offline`) and the retained `bridge/info`.
 */
import { MqttOutbox } from '../mqtt/outbox';
import { parseSendRequest } from '../mqtt/send-request';
import { sharedSendPolicy, type SendPolicy } from '../mqtt/send-policy';
import { messagePayload } from '../mqtt/payload';
import type { MeshMessageEvent } from '../bus';
import type { ConnectionEvents, MqttConnection } from '../mqtt/connection';
import type { Topics } from '../mqtt/topics';
import { Extension, type ExtensionContext } from '../extension';
import type { Counter } from '../metrics';

interface ResultTarget {
  topic: string;
  correlationData?: Buffer;
}

export class MqttBridge extends Extension {
  readonly name = 'mqtt-bridge';
  private readonly connection: MqttConnection;
  private readonly topics: Topics;
  private outbox: MqttOutbox | undefined;
  private readonly onUp = (): void => this.connected();
  private readonly onDown = (): void => this.outbox?.detach();
  private readonly onMessage = (m: ConnectionEvents['message']): void => this.incoming(m);
  private readonly sendRequests: Counter;
  private readonly rawPublished: Counter;
  private readonly policy: SendPolicy;

  constructor(ctx: ExtensionContext) {
    super(ctx);
    if (!ctx.mqtt) throw new Error('mqtt-bridge needs the MQTT connection');
    this.connection = ctx.mqtt.connection;
    this.topics = ctx.mqtt.topics;
    this.sendRequests = ctx.metrics.counter('clawling_gateway_mqtt_send_requests_total', 'Requests on the send topic, by outcome.');
    this.rawPublished = ctx.metrics.counter('clawling_gateway_mqtt_raw_frames_total', 'Raw frames published (QoS 0).');
    this.policy = sharedSendPolicy(this.connection, ctx.config.mqtt.send_policy, () => ctx.clock.now());
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
        capacity: config.mqtt.outbox_max_entries,
        dedupCapacity: Math.max(config.mesh.dedup_max_entries, config.mqtt.outbox_max_entries),
        inflight: config.mqtt.inflight,
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
    const props = m.properties ?? {};
    const target: ResultTarget =
      typeof props.responseTopic === 'string'
        ? { topic: props.responseTopic, ...(Buffer.isBuffer(props.correlationData) ? { correlationData: props.correlationData } : {}) }
        : { topic: this.topics.sendResult };
    void this.handleSend(m.payload, target);
  }

  private async handleSend(payload: Buffer, target: ResultTarget): Promise<void> {
    const { info, config, mesh, clock } = this.ctx;
    let requestId: string | undefined;
    let id: string | undefined;
    try {
      const request = parseSendRequest(payload, { address: info.address, appId: config.gateway.app_id, now: () => clock.now(), defaults: this.policy.defaults });
      requestId = request.requestId;
      id = request.message.id.toString();
      this.policy.check(request.message);
      const outcome = await mesh.send(request.message);
      this.sendRequests.inc({ outcome: 'sent' });
      this.answer(target, { request_id: requestId, id, status: 'sent', via: outcome.via });
      if (outcome.ack) {
        const ack = await outcome.ack;
        if (ack) this.answer(target, { request_id: requestId, id, status: 'acked', ack: { from: ack.from, hop_count: ack.hopCount, transport: ack.transport } });
        else this.answer(target, { request_id: requestId, id, status: 'ack_timeout' });
      }
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'SEND_FAILED';
      const details = (err as { details?: { requestId?: string; retryAfterMs?: number } }).details;
      requestId ??= details?.requestId;
      this.sendRequests.inc({ outcome: outcomeOf(code) });
      this.ctx.logger.debug({ code, requestId }, 'send request refused');
      const error = { code, message: (err as Error).message, ...(details?.retryAfterMs !== undefined ? { retry_after_ms: details.retryAfterMs } : {}) };
      this.answer(target, { request_id: requestId, id, status: code === 'NO_ROUTE' ? 'no_route' : 'rejected', error });
    }
  }

  private answer(target: ResultTarget, body: Record<string, unknown>): void {
    const clean = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
    const properties = target.correlationData ? { correlationData: target.correlationData } : undefined;
    this.connection.publish(target.topic, JSON.stringify(clean), properties ? { qos: 1, properties } : { qos: 1 }, () => undefined);
  }
}

/** The metric label: policy and rate refusals apart from malformed requests, so an operator sees which it was. */
function outcomeOf(code: string): string {
  if (code === 'NO_ROUTE') return 'no_route';
  if (code === 'SEND_RATE_LIMITED') return 'rate_limited';
  if (code.startsWith('SEND_POLICY_')) return 'policy';
  return 'rejected';
}

export function createExtension(ctx: ExtensionContext): Extension {
  return new MqttBridge(ctx);
}
