/**
 * Which other gateways of the site hear each node, for the nodes table and the map: each gateway leaves its own view
 * of a node (connected, RSSI, last seen) on the retained `<nodes.topic>/<address>/via/<gateway>` (written by its
 * Home Assistant node devices, gateway/mqtt/node-topics.ts), and this reads them off the broker. Bounded like
 * Home Assistant's own copy, because any client of the broker can write such topics; an empty payload (a gateway
 * that forgot the node) removes the view.
 */
import type { MqttConnection } from '../../../mqtt/connection';
import type { NodeTopics } from '../../../mqtt/node-topics';

const MAX_VIEWS = 4096;
const MAX_PAYLOAD_BYTES = 4096;

export interface GatewayHearing {
  gateway: string;
  connected: boolean;
  rssi?: number;
  last_seen?: number;
}

export class SiteViews {
  private readonly views = new Map<string, Map<string, GatewayHearing>>();
  private count = 0;

  constructor(
    private readonly topics: NodeTopics,
    private readonly self: string,
  ) {}

  /** Subscribes on `conn` and returns the function that stops listening. */
  attach(conn: MqttConnection): () => void {
    const onMessage = (m: { topic: string; payload: Buffer }): void => this.take(m.topic, m.payload);
    conn.on('message', onMessage);
    conn.subscribe(this.topics.viaFilter, 1);
    return () => conn.off('message', onMessage);
  }

  of(address: string): GatewayHearing[] {
    return [...(this.views.get(address)?.values() ?? [])];
  }

  private take(topic: string, payload: Buffer): void {
    const via = this.topics.parseVia(topic);
    if (!via || via.gatewayId === this.self) return;
    const hearing = parse(via.gatewayId, payload);
    let byGateway = this.views.get(via.address);
    const had = byGateway?.has(via.gatewayId) ?? false;
    if (!hearing) {
      if (!had) return;
      byGateway!.delete(via.gatewayId);
      this.count -= 1;
      if (byGateway!.size === 0) this.views.delete(via.address);
      return;
    }
    if (!had && this.count >= MAX_VIEWS) return;
    if (!byGateway) this.views.set(via.address, (byGateway = new Map()));
    if (!had) this.count += 1;
    byGateway.set(via.gatewayId, hearing);
  }
}

function parse(gateway: string, payload: Buffer): GatewayHearing | undefined {
  if (payload.length === 0 || payload.length > MAX_PAYLOAD_BYTES) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const body = v as Record<string, unknown>;
  const out: GatewayHearing = { gateway, connected: body.connected === true };
  if (typeof body.rssi === 'number' && Number.isFinite(body.rssi)) out.rssi = body.rssi;
  const seen = typeof body.last_seen === 'string' ? Date.parse(body.last_seen) : NaN;
  if (Number.isFinite(seen)) out.last_seen = seen;
  return out;
}
