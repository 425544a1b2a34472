/**
 * One send path for every MQTT topic that asks the gateway to transmit (`<base>/send`, the site downlink): parse the
 * request (send-request.ts), ask the gateway's one send policy (send-policy.ts), hand the message to the mesh, and
 * answer each request on its result topic (or its MQTT 5 response topic, with the correlation data): `sent`, then
 * `acked` or `ack_timeout`, or `no_route` / `rejected` with a coded error.
 */
import type { Clock } from '../../lib/clock';
import type { MeshApi } from '../router';
import type { CoreConfig } from '../config/types';
import type { GatewayInfo } from '../gateway-info';
import type { Counter, Metrics } from '../metrics';
import type { Logger } from 'pino';
import type { MqttConnection } from './connection';
import { parseSendRequest } from './send-request';
import { sharedSendPolicy, type SendPolicy } from './send-policy';

export interface ResultTarget {
  topic: string;
  correlationData?: Buffer;
}

export interface SendHandlerContext {
  connection: MqttConnection;
  config: CoreConfig;
  info: GatewayInfo;
  mesh: MeshApi;
  clock: Clock;
  metrics: Metrics;
  logger: Logger;
}

export class SendHandler {
  private readonly policy: SendPolicy;
  private readonly requests: Counter;

  /** `stamp`: fields added to every answer (the site downlink names the gateway that took the request). */
  constructor(
    private readonly ctx: SendHandlerContext,
    private readonly stamp: Record<string, unknown> = {},
  ) {
    this.policy = sharedSendPolicy(ctx.connection, ctx.config.mqtt.send_policy, () => ctx.clock.now());
    this.requests = ctx.metrics.counter('clawling_gateway_mqtt_send_requests_total', 'Requests on the send topics, by outcome.');
  }

  /** Where the answers of a request go: its MQTT 5 response topic when it names one, else `resultTopic`. */
  static target(properties: Record<string, unknown> | undefined, resultTopic: string): ResultTarget {
    const props = properties ?? {};
    if (typeof props.responseTopic !== 'string') return { topic: resultTopic };
    return { topic: props.responseTopic, ...(Buffer.isBuffer(props.correlationData) ? { correlationData: props.correlationData } : {}) };
  }

  async handle(payload: Buffer, target: ResultTarget): Promise<void> {
    const { info, config, mesh, clock } = this.ctx;
    let requestId: string | undefined;
    let id: string | undefined;
    try {
      const request = parseSendRequest(payload, { address: info.address, appId: config.gateway.app_id, now: () => clock.now(), defaults: this.policy.defaults });
      requestId = request.requestId;
      id = request.message.id.toString();
      this.policy.check(request.message);
      const outcome = await mesh.send(request.message);
      this.requests.inc({ outcome: 'sent' });
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
      this.requests.inc({ outcome: outcomeOf(code) });
      this.ctx.logger.debug({ code, requestId }, 'send request refused');
      const error = { code, message: (err as Error).message, ...(details?.retryAfterMs !== undefined ? { retry_after_ms: details.retryAfterMs } : {}) };
      this.answer(target, { request_id: requestId, id, status: code === 'NO_ROUTE' ? 'no_route' : 'rejected', error });
    }
  }

  private answer(target: ResultTarget, body: Record<string, unknown>): void {
    const clean = Object.fromEntries(Object.entries({ ...body, ...this.stamp }).filter(([, v]) => v !== undefined));
    const properties = target.correlationData ? { correlationData: target.correlationData } : undefined;
    this.ctx.connection.publish(target.topic, JSON.stringify(clean), properties ? { qos: 1, properties } : { qos: 1 }, () => undefined);
  }
}

/** The metric label: policy and rate refusals apart from malformed requests, so an operator sees which it was. */
function outcomeOf(code: string): string {
  if (code === 'NO_ROUTE') return 'no_route';
  if (code === 'SEND_RATE_LIMITED') return 'rate_limited';
  if (code.startsWith('SEND_POLICY_')) return 'policy';
  return 'rejected';
}
