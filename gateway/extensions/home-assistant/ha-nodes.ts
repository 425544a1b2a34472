/**
 * Every mesh node the gateway hears becomes a Home Assistant device (docs/home-assistant.md): connectivity, RSSI,
 * last seen, the last message, a notify entity that sends it a text message through the mesh (and a sensor with what
 * became of the last one), and the typed readings the `devices:` mappings take from its messages. Its retained state
 * and discovery are keyed by the node's address, never by the gateway, so several gateways make one device.
 *
 * State is published at most every `PUBLISH_EVERY_MS` per node: a chatty node costs a few retained publishes a
 * second, not one per frame. Each gateway also keeps its own view of a node on a retained `via` topic, reads the other
 * gateways' views, and lists every such gateway in the device's availability. Nodes not heard for
 * `nodes.forget_after_s`, or named on `<nodes.topic>/forget`, have their retained configs and state cleared.
 */
import { composeMessage } from '../../../lib/mesh/composer';
import type { MeshAckEvent, MeshMessageEvent, PeerChangeEvent } from '../../bus';
import { Extension, type ExtensionContext } from '../../extension';
import type { Counter } from '../../metrics';
import type { ConnectionEvents } from '../../mqtt/connection';
import { SiteTopics } from '../../mqtt/topics';
import { sharedSendPolicy, type SendPolicy } from '../../mqtt/send-policy';
import { compileMappings, readingsOf, type CompiledDevice } from '../../mesh-nodes/readings';
import { NodeRegistry, type NodeRecord } from '../../mesh-nodes/registry';
import { NodeTopics } from '../../mqtt/node-topics';
import { gatewayObjectId, haOrigin } from './ha-discovery';
import { deviceDiscoveryTopic, devicePayload, entitySlug, type HaComponent, type HaDevice } from './ha-device';

const PUBLISH_EVERY_MS = 250;
const SEND_STATUSES = ['sent', 'acked', 'ack_timeout', 'no_route', 'rejected'];

/** Another gateway's view of a node, from its retained `via` topic. */
interface ViaInfo {
  bridgeState: string;
  connected: boolean;
  rssi: number | null;
  lastSeen: number;
}

/** A device trigger on `topic`; with `valueTemplate`, it fires only when the template renders its `key`. */
function trigger(key: string, topic: string, type: string, subtype: string, valueTemplate?: string): HaComponent {
  const config: Record<string, unknown> = { automation_type: 'trigger', topic, type, subtype };
  if (valueTemplate !== undefined) Object.assign(config, { value_template: valueTemplate, payload: key });
  return { platform: 'device_automation', key, config };
}

/** An app id as an event type Home Assistant shows: lower case, `_` for anything else, bounded. */
function appEventType(appId: string): string {
  return `app_${appId.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 48) || 'unnamed'}`;
}

/** App ids whose event type is remembered (three regular expressions per message otherwise); past it, started over. */
const EVENT_TYPES_CACHED = 1024;

/** Bounds what hostile or stale retained `via` topics can make this gateway hold. */
const MAX_OTHER_VIEWS = 4096;

interface LastSend {
  id?: string;
  status: string;
  at: number;
  error?: string;
}

/** How many node devices a republish announces per step, and the pause between steps. */
const REPUBLISH_BATCH = 50;
const REPUBLISH_PACE_MS = 250;

export class HaNodes extends Extension {
  readonly name = 'ha-nodes';
  readonly registry: NodeRegistry;
  private readonly topics: NodeTopics;
  private readonly mappings: CompiledDevice[];
  private readonly names: Record<string, string>;
  private readonly dirty = new Set<string>();
  private readonly announced = new Map<string, string>();
  private readonly lastSend = new Map<string, LastSend>();
  private readonly wasConnected = new Map<string, boolean>();
  /** Other gateways' views by node address, then gateway id; and whether each gateway's bridge is online. */
  private readonly others = new Map<string, Map<string, ViaInfo>>();
  private otherViews = 0;
  private readonly bridgeOnline = new Map<string, boolean>();
  private flushTimer: unknown;
  private sweepTimer: unknown;
  private readonly mismatches: Counter;
  private readonly readings: Counter;
  /** The gateway's one send policy: a notify entity is a door into the mesh like `<base>/send`. */
  private readonly policy: SendPolicy;
  /** Node addresses waiting for their paced republish (a Set: a second trigger does not announce a device twice). */
  private readonly pending = new Set<string>();
  private paceTimer: unknown;
  private readonly eventTypes = new Map<string, string>();
  private readonly onUp = (): void => this.republish();
  private readonly onMessage = (m: ConnectionEvents['message']): void => this.incoming(m);

  constructor(ctx: ExtensionContext) {
    super(ctx);
    const n = ctx.config.nodes;
    this.names = n.names;
    this.topics = new NodeTopics(n.topic);
    this.registry = new NodeRegistry({ self: ctx.info.address, heardWindowMs: n.heard_window_s * 1000, forgetAfterMs: n.forget_after_s * 1000 });
    this.mappings = compileMappings(ctx.config.devices, n.names);
    this.readings = ctx.metrics.counter('clawling_gateway_node_readings_total', 'Typed readings taken from node messages, by device mapping.');
    this.policy = sharedSendPolicy(ctx.mqtt!.connection, ctx.config.mqtt.send_policy, () => ctx.clock.now());
    this.mismatches = ctx.metrics.counter('clawling_gateway_node_mapping_mismatches_total', 'Messages that matched a device mapping but gave no value, by mapping and entity.');
  }

  override async start(): Promise<void> {
    const conn = this.ctx.mqtt!.connection;
    this.ctx.bus.on('meshMessage', this, (e) => this.onMesh(e));
    this.ctx.bus.on('meshAck', this, (e) => this.onAck(e));
    this.ctx.bus.on('peerChange', this, (e) => this.onPeer(e));
    conn.on('up', this.onUp);
    conn.on('message', this.onMessage);
    // A site shares the notify topics as it shares its downlink: one gateway transmits each text, not every one.
    const site = this.ctx.config.mqtt.site;
    if (site.id === null) conn.subscribe(this.topics.sendFilter, 1);
    else conn.subscribeByProtocol('node-send', SiteTopics.of({ ...site, id: site.id }).share(this.topics.sendFilter, site.v311_owner), 1);
    conn.subscribe(this.topics.forget, 1);
    conn.subscribe(this.topics.viaFilter, 1);
    // Home Assistant's birth message after its restart: it has forgotten every device it was not told again.
    if (this.ctx.config.mqtt.homeassistant.enabled) conn.subscribe(this.ctx.config.mqtt.homeassistant.status_topic, 1);
    for (const n of this.ctx.mesh.neighbours()) this.onPeer({ radioId: n.radioId, peer: n.peer, change: 'up' });
    this.scheduleSweep();
  }

  override async stop(): Promise<void> {
    const conn = this.ctx.mqtt!.connection;
    conn.off('up', this.onUp);
    conn.off('message', this.onMessage);
    this.ctx.clock.clearTimeout(this.flushTimer);
    this.ctx.clock.clearTimeout(this.sweepTimer);
    this.ctx.clock.clearTimeout(this.paceTimer);
    this.paceTimer = undefined;
    this.pending.clear();
    await super.stop();
  }

  private get now(): number {
    return this.ctx.clock.now();
  }

  private onMesh(e: MeshMessageEvent): void {
    const m = e.message;
    const heard = this.registry.record(e);
    if (!heard) return;
    const { node } = heard;
    // A new app id is a new event type: the device's discovery changes with it.
    if (heard.newAppId) this.announced.delete(node.address);
    this.publishEvent(node, m.app_id, {
      app_id: m.app_id,
      content: node.lastMessage?.content ?? '',
      id: e.id,
      sender_verified: e.senderVerified,
      hop_count: m.hop_count,
      gateway: this.ctx.info.id,
    });
    for (const r of readingsOf(this.mappings, m, e.senderVerified)) {
      Object.assign(node.readings, r.values);
      if (Object.keys(r.values).length) this.readings.inc({ device: String(r.device.index) });
      for (const miss of r.mismatches) {
        node.mismatches += 1;
        node.lastMismatch = { key: miss.key, reason: miss.reason, at: e.rx.receivedAt };
        this.mismatches.inc({ device: String(r.device.index), entity: miss.key });
        this.ctx.logger.debug({ sender: m.sender, device: r.device.index, entity: miss.key, reason: miss.reason }, 'message did not give its mapped reading');
      }
    }
    this.touch(node);
  }

  /** One event per message on the node's event topic: the event entity's `event_type` and the trigger's `trigger`. */
  private publishEvent(node: NodeRecord, appId: string, body: Record<string, unknown>): void {
    const eventType = node.appIds.includes(appId) ? this.eventType(appId) : 'message';
    const payload = JSON.stringify({ event_type: eventType, trigger: 'message_received', ...body });
    this.ctx.mqtt!.connection.publish(this.topics.event(node.address), payload, { qos: this.ctx.config.mqtt.homeassistant.event_qos }, () => undefined);
  }

  private eventType(appId: string): string {
    let type = this.eventTypes.get(appId);
    if (type === undefined) {
      if (this.eventTypes.size >= EVENT_TYPES_CACHED) this.eventTypes.clear();
      type = appEventType(appId);
      this.eventTypes.set(appId, type);
    }
    return type;
  }

  private onAck(e: MeshAckEvent): void {
    const node = this.registry.heard(e.from, e.rx.receivedAt, e.hopCount === 0 ? e.rx.rssi : undefined);
    if (node) this.touch(node);
  }

  private onPeer(e: PeerChangeEvent): void {
    if (e.peer.address === undefined) return;
    const node = this.registry.link(e.peer.address, `${e.radioId}/${e.peer.id}`, e.change !== 'down' && e.peer.connected, this.now, e.peer);
    if (node) this.touch(node);
  }

  private touch(node: NodeRecord): void {
    this.dirty.add(node.address);
    if (this.flushTimer === undefined) {
      this.flushTimer = this.ctx.clock.setTimeout(() => {
        this.flushTimer = undefined;
        this.flush();
      }, PUBLISH_EVERY_MS);
    }
  }

  private flush(): void {
    const conn = this.ctx.mqtt!.connection;
    if (!conn.connected) return; // everything is republished on the next 'up'
    for (const address of this.dirty) {
      const node = this.registry.get(address);
      if (node) this.publishNode(node, false);
    }
    this.dirty.clear();
  }

  /**
   * Every node device again, once, paced: after a reconnection (the broker may have lost its retained store) and when
   * Home Assistant announces itself. Hundreds of retained configs at once would flood Home Assistant's MQTT queue.
   */
  private republish(): void {
    this.announced.clear();
    for (const node of this.registry.list()) this.pending.add(node.address);
    this.drainRepublish();
  }

  private drainRepublish(): void {
    if (this.paceTimer !== undefined) return;
    let sent = 0;
    for (const address of this.pending) {
      if (sent === REPUBLISH_BATCH) break;
      this.pending.delete(address);
      const node = this.registry.get(address);
      if (!node) continue;
      this.publishNode(node, true);
      this.dirty.delete(address);
      sent += 1;
    }
    if (this.pending.size === 0) return;
    this.paceTimer = this.ctx.clock.setTimeout(() => {
      this.paceTimer = undefined;
      this.drainRepublish();
    }, REPUBLISH_PACE_MS);
  }

  private scheduleSweep(): void {
    const every = Math.min(this.ctx.config.nodes.heard_window_s * 250, 30000);
    this.sweepTimer = this.ctx.clock.setTimeout(() => {
      this.sweep();
      this.scheduleSweep();
    }, every);
  }

  /** Nodes whose heard window ran out change to not connected; nodes past the forget time are forgotten. */
  sweep(): void {
    const now = this.now;
    for (const node of this.registry.forgettable(now)) this.forget(node.address, 'timeout');
    for (const node of this.registry.list()) if (this.wasConnected.get(node.address) !== this.siteConnected(node, now)) this.touch(node);
  }

  displayName(address: string): string {
    return this.names[address] ?? `Mesh node ${address.slice(4, 12)}`;
  }

  private device(node: NodeRecord): HaDevice {
    const state = this.topics.state(node.address);
    const c = (platform: HaComponent['platform'], key: string, config: Record<string, unknown>): HaComponent => ({ platform, key, config: { state_topic: state, ...config } });
    const components: HaComponent[] = [
      c('binary_sensor', 'connectivity', { name: 'Connectivity', device_class: 'connectivity', value_template: "{{ 'ON' if value_json.connected else 'OFF' }}" }),
      c('sensor', 'rssi', { name: 'RSSI', device_class: 'signal_strength', unit_of_measurement: 'dBm', state_class: 'measurement', entity_category: 'diagnostic', value_template: '{{ value_json.rssi }}' }),
      c('sensor', 'last_seen', { name: 'Last seen', device_class: 'timestamp', entity_category: 'diagnostic', value_template: '{{ value_json.last_seen }}' }),
      c('sensor', 'last_message', {
        name: 'Last message',
        icon: 'mdi:message-text',
        value_template: '{{ value_json.last_message.content if value_json.last_message else None }}',
        json_attributes_topic: state,
        json_attributes_template: '{{ (value_json.last_message or {}) | tojson }}',
      }),
      { platform: 'notify', key: 'send', config: { name: 'Send message', command_topic: this.topics.send(node.address), icon: 'mdi:message-arrow-right' } },
      { platform: 'button', key: 'forget', config: { name: 'Forget', command_topic: this.topics.forget, payload_press: node.address, entity_category: 'config', icon: 'mdi:delete-clock' } },
      c('sensor', 'last_send', { name: 'Last send', device_class: 'enum', options: SEND_STATUSES, entity_category: 'diagnostic', value_template: '{{ value_json.last_send.status if value_json.last_send else None }}' }),
      // Automations on every message, even when the text repeats: an event entity and device triggers.
      { platform: 'event', key: 'message', config: { name: 'Message', state_topic: this.topics.event(node.address), event_types: ['message', ...node.appIds.map(appEventType)], icon: 'mdi:message-badge' } },
      { platform: 'event', key: 'send_result', config: { name: 'Send result', state_topic: this.topics.sendResult(node.address), event_types: SEND_STATUSES, icon: 'mdi:message-check' } },
      trigger('message_received', this.topics.event(node.address), 'message', 'received'),
      trigger('send_acked', this.topics.sendResult(node.address), 'send', 'acked', '{{ value_json.trigger }}'),
      trigger('send_failed', this.topics.sendResult(node.address), 'send', 'failed', '{{ value_json.trigger }}'),
      // Per-node health, diagnostic and off until someone turns it on (as Zigbee2MQTT does with its diagnostics).
      c('sensor', 'messages_per_min', { name: 'Messages per minute', unit_of_measurement: 'msg/min', state_class: 'measurement', entity_category: 'diagnostic', enabled_by_default: false, value_template: '{{ value_json.health.messages_per_min }}', icon: 'mdi:message-fast' }),
      c('sensor', 'duplicates', { name: 'Duplicates', state_class: 'total_increasing', entity_category: 'diagnostic', enabled_by_default: false, value_template: '{{ value_json.health.duplicates }}', icon: 'mdi:content-duplicate' }),
      c('sensor', 'delivery_ratio', { name: 'Delivery ratio', unit_of_measurement: '%', state_class: 'measurement', entity_category: 'diagnostic', enabled_by_default: false, value_template: '{{ value_json.health.delivery_ratio }}', icon: 'mdi:check-network' }),
      c('sensor', 'gateways_hearing', { name: 'Gateways hearing it', state_class: 'measurement', entity_category: 'diagnostic', enabled_by_default: false, value_template: '{{ value_json.health.rssi_by_gateway | length }}', json_attributes_topic: state, json_attributes_template: '{{ value_json.health.rssi_by_gateway | tojson }}', icon: 'mdi:access-point-network' }),
    ];
    // From the node's signed BLE advertisement, once a link reported them (a mains-powered node has no battery).
    // Battery is on by default and load off, as Zigbee2MQTT treats its battery and its link quality.
    if (node.battery !== undefined) components.push(c('sensor', 'ble_battery', { name: 'Battery', device_class: 'battery', unit_of_measurement: '%', state_class: 'measurement', entity_category: 'diagnostic', value_template: '{{ value_json.health.battery }}' }));
    if (node.load !== undefined) components.push(c('sensor', 'ble_load', { name: 'Load', state_class: 'measurement', entity_category: 'diagnostic', enabled_by_default: false, value_template: '{{ value_json.health.load }}', icon: 'mdi:gauge' }));
    for (const d of this.mappings) {
      if (d.sender !== undefined && d.sender !== node.address) continue;
      if (d.sender === undefined && !d.entities.some((e) => e.mapping.key in node.readings)) continue;
      for (const e of d.entities) {
        const m = e.mapping;
        const config: Record<string, unknown> = { name: m.name ?? m.key.replace(/_/g, ' '), value_template: `{{ value_json.readings.${m.key} }}` };
        if (m.platform === 'binary_sensor') config.value_template = `{{ None if value_json.readings.${m.key} is none else ('ON' if value_json.readings.${m.key} else 'OFF') }}`;
        if (m.unit !== null) config.unit_of_measurement = m.unit;
        if (m.device_class !== null) config.device_class = m.device_class;
        if (m.state_class !== null) config.state_class = m.state_class;
        if (m.icon !== null) config.icon = m.icon;
        components.push(c(m.platform, m.key, config));
      }
    }
    const name = this.displayName(node.address);
    return {
      objectId: nodeObjectId(node.address),
      entityBase: this.names[node.address] !== undefined ? entitySlug(name) : `mesh_${node.address.slice(4, 12)}`,
      device: {
        identifiers: [nodeObjectId(node.address)],
        name,
        manufacturer: 'Offline Protocol mesh',
        model: 'Mesh node',
        serial_number: node.address,
        via_device: gatewayObjectId(this.ctx.info.id),
      },
      // Available while any gateway that hears the node is up: the same list whichever gateway publishes it.
      availability: this.bridgesOf(node.address).map((topic) => ({ topic, payload_available: 'online', payload_not_available: 'offline' })),
      availabilityMode: 'any',
      components,
    };
  }

  /** The last RSSI each gateway of the site heard the node at (this one's own, and each other's `via` view). */
  private rssiByGateway(node: NodeRecord): Record<string, number | null> {
    const out: Record<string, number | null> = { [this.ctx.info.id]: node.rssi ?? null };
    for (const [gatewayId, v] of this.others.get(node.address) ?? []) out[gatewayId] = v.rssi;
    return out;
  }

  private bridgesOf(address: string): string[] {
    const own = this.ctx.mqtt!.topics.bridgeState;
    const all = new Set([own, ...[...(this.others.get(address)?.values() ?? [])].map((v) => v.bridgeState)]);
    return [...all].sort();
  }

  /** Connected as the site sees it: here, or at another gateway whose bridge is online. */
  private siteConnected(node: NodeRecord, now: number): boolean {
    if (this.registry.connected(node, now)) return true;
    for (const v of this.others.get(node.address)?.values() ?? []) if (v.connected && this.bridgeOnline.get(v.bridgeState) === true) return true;
    return false;
  }

  /** The keys every mapped entity of this node reads, null until a message gave it (Home Assistant shows unknown). */
  private readingsOf(node: NodeRecord): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const d of this.mappings) {
      if (d.sender !== undefined && d.sender !== node.address) continue;
      for (const e of d.entities) if (d.sender !== undefined || e.mapping.key in node.readings) out[e.mapping.key] = node.readings[e.mapping.key] ?? null;
    }
    return out;
  }

  statePayload(node: NodeRecord): Record<string, unknown> {
    const now = this.now;
    const connected = this.siteConnected(node, now);
    this.wasConnected.set(node.address, connected);
    const last = this.lastSend.get(node.address);
    return {
      address: node.address,
      name: this.displayName(node.address),
      connected,
      neighbour: node.links.size > 0,
      rssi: node.rssi ?? null,
      last_seen: new Date(node.lastSeen).toISOString(),
      messages: node.messages,
      last_message: node.lastMessage ? { ...node.lastMessage, at: new Date(node.lastMessage.at).toISOString() } : null,
      last_send: last ? { ...last, at: new Date(last.at).toISOString() } : null,
      readings: this.readingsOf(node),
      mapping_mismatches: node.mismatches,
      health: {
        messages_per_min: this.registry.perMinute(node, now),
        duplicates: node.duplicates,
        delivery_ratio: node.sends.total === 0 ? null : Math.round((node.sends.acked / node.sends.total) * 1000) / 10,
        rssi_by_gateway: this.rssiByGateway(node),
        battery: node.battery ?? null,
        load: node.load ?? null,
      },
      last_mismatch: node.lastMismatch ? { ...node.lastMismatch, at: new Date(node.lastMismatch.at).toISOString() } : null,
      gateway: this.ctx.info.id,
    };
  }

  private publishNode(node: NodeRecord, force: boolean): void {
    const conn = this.ctx.mqtt!.connection;
    if (this.ctx.config.nodes.discovery && this.ctx.config.mqtt.homeassistant.enabled) {
      const dev = this.device(node);
      const body = JSON.stringify(devicePayload(dev, haOrigin(this.ctx.info.version)));
      if (force || this.announced.get(node.address) !== body) {
        conn.publish(deviceDiscoveryTopic(this.ctx.config.mqtt.homeassistant.discovery_prefix, dev.objectId), body, { qos: 1, retain: true }, () => undefined);
        this.announced.set(node.address, body);
      }
    }
    conn.publish(this.topics.state(node.address), JSON.stringify(this.statePayload(node)), { qos: 1, retain: true }, () => undefined);
    const via = {
      gateway: this.ctx.info.id,
      bridge_state_topic: this.ctx.mqtt!.topics.bridgeState,
      connected: this.registry.connected(node, this.now),
      neighbour: node.links.size > 0,
      rssi: node.rssi ?? null,
      last_seen: new Date(node.lastSeen).toISOString(),
    };
    conn.publish(this.topics.via(node.address, this.ctx.info.id), JSON.stringify(via), { qos: 1, retain: true }, () => undefined);
  }

  /**
   * Forgets the node here and clears this gateway's `via` topic. The device itself (discovery and state) is cleared
   * too unless it is the timeout and another gateway that is online still has a view of the node.
   */
  forget(address: string, why: 'timeout' | 'command'): boolean {
    const heardElsewhere = [...(this.others.get(address)?.values() ?? [])].some((v) => this.bridgeOnline.get(v.bridgeState) === true);
    const clearDevice = why === 'command' || !heardElsewhere;
    const known = this.registry.forget(address);
    this.dirty.delete(address);
    this.lastSend.delete(address);
    this.wasConnected.delete(address);
    this.announced.delete(address);
    const conn = this.ctx.mqtt!.connection;
    if (conn.connected) {
      conn.publish(this.topics.via(address, this.ctx.info.id), '', { qos: 1, retain: true }, () => undefined);
      if (clearDevice && this.ctx.config.mqtt.homeassistant.enabled) {
        conn.publish(deviceDiscoveryTopic(this.ctx.config.mqtt.homeassistant.discovery_prefix, nodeObjectId(address)), '', { qos: 1, retain: true }, () => undefined);
      }
      if (clearDevice) conn.publish(this.topics.state(address), '', { qos: 1, retain: true }, () => undefined);
    }
    if (known) this.ctx.logger.info({ address, why }, 'mesh node forgotten');
    return known;
  }

  private incoming(m: ConnectionEvents['message']): void {
    if (m.topic === this.ctx.config.mqtt.homeassistant.status_topic) {
      if (m.payload.toString('utf8').trim() === 'online') this.republish();
      return;
    }
    const via = this.topics.parseVia(m.topic);
    if (via) {
      this.otherView(via.address, via.gatewayId, m.payload);
      return;
    }
    if (this.bridgeOnline.has(m.topic)) {
      this.bridgeOnline.set(m.topic, m.payload.toString('utf8') === 'online');
      for (const [address, views] of this.others) {
        const node = this.registry.get(address);
        if (node && [...views.values()].some((v) => v.bridgeState === m.topic)) this.touch(node);
      }
      return;
    }
    if (m.topic === this.topics.forget) {
      const text = m.payload.toString('utf8').trim();
      let address = text;
      if (text.startsWith('{')) {
        try {
          const given = (JSON.parse(text) as { address?: unknown }).address;
          address = typeof given === 'string' ? given : '';
        } catch {
          address = '';
        }
      }
      const known = address !== '' && this.forget(address, 'command');
      this.ctx.mqtt!.connection.publish(`${this.topics.forget}/result`, JSON.stringify({ gateway: this.ctx.info.id, address, status: known ? 'forgotten' : 'unknown' }), { qos: 1 }, () => undefined);
      return;
    }
    const address = this.topics.addressOfSend(m.topic);
    if (address !== undefined) void this.sendTo(address, m.payload.toString('utf8'));
  }

  /** Another gateway's retained view of a node: kept (bounded), its bridge state followed, the node republished. */
  private otherView(address: string, gatewayId: string, payload: Buffer): void {
    if (gatewayId === this.ctx.info.id) return;
    let views = this.others.get(address);
    const had = views?.has(gatewayId) ?? false;
    let info: ViaInfo | undefined;
    if (payload.length > 0 && payload.length < 4096) {
      try {
        const v = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
        if (typeof v.bridge_state_topic === 'string' && v.bridge_state_topic.length > 0 && !/[#+]/.test(v.bridge_state_topic)) {
          info = {
            bridgeState: v.bridge_state_topic,
            connected: v.connected === true,
            rssi: typeof v.rssi === 'number' ? v.rssi : null,
            lastSeen: typeof v.last_seen === 'string' ? Date.parse(v.last_seen) || 0 : 0,
          };
        }
      } catch {
        info = undefined;
      }
    }
    if (!info) {
      if (had) {
        views!.delete(gatewayId);
        this.otherViews -= 1;
        if (views!.size === 0) this.others.delete(address);
      }
    } else {
      if (!had && this.otherViews >= MAX_OTHER_VIEWS) return;
      if (!views) this.others.set(address, (views = new Map()));
      if (!had) this.otherViews += 1;
      views.set(gatewayId, info);
      if (!this.bridgeOnline.has(info.bridgeState)) {
        this.bridgeOnline.set(info.bridgeState, false);
        this.ctx.mqtt!.connection.subscribe(info.bridgeState, 1);
      }
    }
    const node = this.registry.get(address);
    if (node) this.touch(node);
  }

  private async sendTo(address: string, text: string): Promise<void> {
    const { info, config, mesh, clock } = this.ctx;
    const report = (r: LastSend): void => {
      this.lastSend.set(address, r);
      const failed = r.status === 'ack_timeout' || r.status === 'no_route' || r.status === 'rejected';
      const trig = r.status === 'acked' ? 'send_acked' : failed ? 'send_failed' : `send_${r.status}`;
      this.ctx.mqtt!.connection.publish(this.topics.sendResult(address), JSON.stringify({ ...r, event_type: r.status, trigger: trig, at: new Date(r.at).toISOString() }), { qos: 1 }, () => undefined);
      const node = this.registry.get(address);
      if (node) {
        if (r.status === 'sent') node.sends.total += 1;
        if (r.status === 'acked') node.sends.acked += 1;
        if (failed && r.status !== 'ack_timeout') node.sends.total += 1;
        this.touch(node);
      }
    };
    let id: string | undefined;
    try {
      const { ttl, priority } = this.policy.defaults;
      const message = composeMessage({ sender: info.address, recipient: address, app_id: config.gateway.app_id, content: text, ttl, priority }, { now: () => clock.now() });
      id = message.id.toString();
      this.policy.check(message);
      const outcome = await mesh.send(message);
      report({ id, status: 'sent', at: clock.now() });
      if (outcome.ack) report({ id, status: (await outcome.ack) ? 'acked' : 'ack_timeout', at: clock.now() });
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'SEND_FAILED';
      report({ ...(id !== undefined ? { id } : {}), status: code === 'NO_ROUTE' ? 'no_route' : 'rejected', at: clock.now(), error: `${code}: ${(err as Error).message}` });
    }
  }
}

export function nodeObjectId(address: string): string {
  return `mesh_${address}`;
}

export function createExtension(ctx: ExtensionContext): Extension {
  return new HaNodes(ctx);
}
