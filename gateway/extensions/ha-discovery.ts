/**
 * Home Assistant MQTT discovery: one device per gateway, with sensors for messages/s, neighbours, outbox depth and
 * the state of each radio, all marked unavailable through the gateway's `bridge/state` (its last will). The
 * configs are retained and published again whenever Home Assistant announces itself (`online` on its status
 * topic, its birth message after a restart) and on every reconnection to the broker.
 */
import { Extension, type ExtensionContext } from '../extension';
import type { ConnectionEvents } from '../mqtt/connection';

interface SensorConfig {
  objectId: string;
  name: string;
  stateTopic: string;
  valueTemplate: string;
  unit?: string;
  stateClass?: 'measurement';
  deviceClass?: string;
  options?: string[];
  entityCategory?: 'diagnostic';
  icon?: string;
}

const RADIO_STATES = ['starting', 'ready', 'degraded', 'unsupported', 'error', 'stopped'];

/** Home Assistant's node id and object id allow `[a-zA-Z0-9_-]` only. */
function haId(text: string): string {
  return text.replace(/[^a-zA-Z0-9_-]/g, '_');
}

export class HaDiscovery extends Extension {
  readonly name = 'ha-discovery';
  private readonly onUp = (): void => this.publishAll();
  private readonly onMessage = (m: ConnectionEvents['message']): void => {
    if (m.topic === this.ctx.config.mqtt.homeassistant.status_topic && m.payload.toString('utf8').trim() === 'online') this.publishAll();
  };
  /** Times the discovery was published (a test and metrics hook). */
  published = 0;

  constructor(ctx: ExtensionContext) {
    super(ctx);
  }

  override async start(): Promise<void> {
    const conn = this.ctx.mqtt?.connection;
    if (!conn) return;
    conn.on('up', this.onUp);
    conn.on('message', this.onMessage);
    conn.subscribe(this.ctx.config.mqtt.homeassistant.status_topic, 1);
    if (conn.connected) this.publishAll();
  }

  override async stop(): Promise<void> {
    this.ctx.mqtt?.connection.off('up', this.onUp);
    this.ctx.mqtt?.connection.off('message', this.onMessage);
    await super.stop();
  }

  sensors(): SensorConfig[] {
    const topics = this.ctx.mqtt!.topics;
    const list: SensorConfig[] = [
      { objectId: 'messages_per_s', name: 'Messages per second', stateTopic: topics.bridgeHealth, valueTemplate: '{{ value_json.messages_per_s }}', unit: 'msg/s', stateClass: 'measurement', icon: 'mdi:message-fast' },
      { objectId: 'peers', name: 'Mesh neighbours', stateTopic: topics.bridgeHealth, valueTemplate: '{{ value_json.peers }}', stateClass: 'measurement', icon: 'mdi:access-point-network' },
      { objectId: 'outbox', name: 'MQTT outbox', stateTopic: topics.bridgeHealth, valueTemplate: '{{ value_json.outbox_depth }}', unit: 'messages', stateClass: 'measurement', entityCategory: 'diagnostic', icon: 'mdi:tray-full' },
    ];
    for (const r of this.ctx.mesh.radios()) {
      list.push({
        objectId: `radio_${haId(r.radioId)}_state`,
        name: `Radio ${r.radioId}`,
        stateTopic: topics.radioState(r.radioId),
        valueTemplate: '{{ value_json.state }}',
        deviceClass: 'enum',
        options: RADIO_STATES,
        entityCategory: 'diagnostic',
        icon: 'mdi:radio-tower',
      });
    }
    return list;
  }

  publishAll(): void {
    const mqtt = this.ctx.mqtt;
    if (!mqtt?.connection.connected) return;
    const info = this.ctx.info;
    const prefix = this.ctx.config.mqtt.homeassistant.discovery_prefix;
    const node = `clawling_${haId(info.id)}`;
    const device = {
      identifiers: [node],
      name: info.name,
      manufacturer: 'Clawling',
      model: 'Mesh gateway',
      sw_version: info.version,
    };
    for (const s of this.sensors()) {
      const body: Record<string, unknown> = {
        name: s.name,
        unique_id: `${node}_${s.objectId}`,
        object_id: `${node}_${s.objectId}`,
        state_topic: s.stateTopic,
        value_template: s.valueTemplate,
        availability_topic: mqtt.topics.bridgeState,
        payload_available: 'online',
        payload_not_available: 'offline',
        device,
      };
      if (s.unit) body.unit_of_measurement = s.unit;
      if (s.stateClass) body.state_class = s.stateClass;
      if (s.deviceClass) body.device_class = s.deviceClass;
      if (s.options) body.options = s.options;
      if (s.entityCategory) body.entity_category = s.entityCategory;
      if (s.icon) body.icon = s.icon;
      mqtt.connection.publish(`${prefix}/sensor/${node}/${s.objectId}/config`, JSON.stringify(body), { qos: 1, retain: true }, () => undefined);
    }
    this.published += 1;
  }
}

export function createExtension(ctx: ExtensionContext): Extension {
  return new HaDiscovery(ctx);
}
