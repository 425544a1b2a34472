/**
 * The site (`mqtt.site`, docs/scaling.md): several gateways on one broker behaving as one. Each request on the site
 * downlink `<site>/send` is taken by exactly one of them, because each subscribes through the MQTT 5 shared
 * subscription `$share/<group>/<site>/send` and the broker hands every message of a shared subscription to one
 * member of the group. The request then goes through the same send path and the same send policy as `<base>/send`
 * (send-handler.ts); its answers go to `<site>/send/result` (or its response topic) and name the gateway.
 *
 * MQTT 3.1.1 has no shared subscriptions: there only the gateway with `v311_owner: true` subscribes, plainly, and the
 * others leave the downlink alone (one owner instead of one of many; docs/scaling.md says how to choose it).
 *
 * Each gateway also announces itself on the retained `<site>/gateways/<id>` and reads the others' announcements
 * and bridge states, so the status page shows the site as this gateway sees it on the broker.
 */
import type { ConnectionEvents, MqttConnection } from '../../mqtt/connection';
import { SendHandler } from '../../mqtt/send-handler';
import { SiteTopics } from '../../mqtt/topics';
import { Extension, type ExtensionContext, type SiteGateway, type SiteSnapshot } from '../../extension';

/** Announcements kept at most: a broker full of stale ones must not grow the gateway without bound. */
const MAX_GATEWAYS = 256;
/** A bridge state topic taken from an announcement is subscribed to: it must be one plain topic, no wildcard. */
function plainTopic(topic: string): boolean {
  return topic.length > 0 && topic.length <= 512 && !/[#+]/.test(topic) && !topic.includes(String.fromCharCode(0));
}

interface Known {
  info: Omit<SiteGateway, 'state' | 'self'>;
  stateTopic?: string;
}

export class Site extends Extension {
  readonly name = 'site';
  private readonly connection: MqttConnection;
  private readonly topics: SiteTopics;
  private readonly sends: SendHandler;
  private readonly known = new Map<string, Known>();
  /** Bridge state topic → its last retained value. */
  private readonly states = new Map<string, 'online' | 'offline'>();
  private readonly subscribedStates = new Set<string>();
  private takesSends = false;
  private toldNotOwner = false;
  private readonly onUp = (e: ConnectionEvents['up']): void => this.connected(e.protocolVersion);
  private readonly onMessage = (m: ConnectionEvents['message']): void => this.incoming(m);

  constructor(ctx: ExtensionContext) {
    super(ctx);
    const site = ctx.config.mqtt.site;
    if (!ctx.mqtt || site.id === null) throw new Error('the site extension needs the MQTT connection and mqtt.site.id');
    this.connection = ctx.mqtt.connection;
    this.topics = SiteTopics.of({ ...site, id: site.id });
    this.sends = new SendHandler({ ...ctx, connection: this.connection }, { gateway: ctx.info.id, site: site.id });
  }

  override async start(): Promise<void> {
    const owner = this.ctx.config.mqtt.site.v311_owner;
    this.connection.on('up', this.onUp);
    this.connection.on('message', this.onMessage);
    this.connection.subscribeByProtocol('site-send', this.topics.share(this.topics.send, owner), 1);
    this.connection.subscribe(this.topics.gateways, 1);
    this.ctx.site.register(() => this.snapshot());
    if (this.connection.connected) this.connected(this.connection.protocolVersion);
  }

  override async stop(): Promise<void> {
    this.connection.off('up', this.onUp);
    this.connection.off('message', this.onMessage);
    this.ctx.site.unregister();
    await super.stop();
  }

  private connected(version: 4 | 5): void {
    this.takesSends = version === 5 || this.ctx.config.mqtt.site.v311_owner;
    if (!this.takesSends && !this.toldNotOwner) {
      this.toldNotOwner = true;
      this.ctx.logger.info({ site: this.topics.site }, 'MQTT 3.1.1 has no shared subscriptions: the site downlink is left to the gateway with mqtt.site.v311_owner');
    }
    const { info } = this.ctx;
    const topics = this.ctx.mqtt!.topics;
    const body = { gateway_id: info.id, name: info.name, address: info.address, base_topic: topics.base, bridge_state_topic: topics.bridgeState, version: info.version };
    this.connection.publish(this.topics.gateway(info.id), JSON.stringify(body), { qos: 1, retain: true }, () => undefined);
  }

  private incoming(m: ConnectionEvents['message']): void {
    if (m.topic === this.topics.send) {
      if (this.takesSends) void this.sends.handle(m.payload, SendHandler.target(m.properties, this.topics.sendResult));
      return;
    }
    if (this.subscribedStates.has(m.topic)) {
      const text = m.payload.toString('utf8');
      if (text === 'online' || text === 'offline') this.states.set(m.topic, text);
      return;
    }
    const prefix = `${this.topics.base}/gateways/`;
    if (m.topic.startsWith(prefix)) this.announced(m.topic.slice(prefix.length), m.payload);
  }

  /** A retained announcement of a gateway of the site; an empty payload (cleared by an operator) removes it. */
  private announced(level: string, payload: Buffer): void {
    if (payload.length === 0) {
      this.known.delete(level);
      return;
    }
    if (!this.known.has(level) && this.known.size >= MAX_GATEWAYS) return;
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(payload.toString('utf8'));
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return;
      body = parsed as Record<string, unknown>;
    } catch {
      return;
    }
    const text = (v: unknown): string | undefined => (typeof v === 'string' && v.length <= 512 ? v : undefined);
    const id = text(body.gateway_id) ?? level;
    const info: Known['info'] = { id };
    for (const key of ['name', 'address', 'base_topic'] as const) {
      const v = text(body[key]);
      if (v !== undefined) info[key] = v;
    }
    const self = this.ctx.info;
    if (id !== self.id && info.address === self.address) {
      // Two gateways with one identity: their ACKs, relays and hub device would be taken for each other's.
      info.conflict = 'the same mesh address as this gateway (a copied state folder?)';
      if (!this.known.get(level)?.info.conflict) this.ctx.logger.error({ other: id, address: self.address }, 'another gateway of the site has this gateway\'s mesh address: give each gateway its own state folder');
    }
    const known: Known = { info };
    const stateTopic = text(body.bridge_state_topic);
    if (stateTopic !== undefined && plainTopic(stateTopic)) {
      known.stateTopic = stateTopic;
      if (!this.subscribedStates.has(stateTopic) && this.subscribedStates.size < MAX_GATEWAYS) {
        this.subscribedStates.add(stateTopic);
        this.connection.subscribe(stateTopic, 1);
      }
    }
    this.known.set(level, known);
  }

  snapshot(): SiteSnapshot {
    const self = this.ctx.info.id;
    const gateways: SiteGateway[] = [...this.known.values()]
      .map((k): SiteGateway => ({ ...k.info, state: (k.stateTopic !== undefined ? this.states.get(k.stateTopic) : undefined) ?? 'unknown', self: k.info.id === self }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { id: this.topics.site, topic: this.topics.base, send_topic: this.topics.send, takes_sends: this.takesSends && this.connection.connected, gateways };
  }
}

export function createExtension(ctx: ExtensionContext): Extension {
  return new Site(ctx);
}
