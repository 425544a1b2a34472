/**
 * Home Assistant MQTT discovery: the gateway is one device (one retained device-discovery message), with sensors for
 * messages/s, neighbours, outbox depth and the state of each radio, all marked unavailable through the gateway's
 * `bridge/state` (its last will). The config is retained and published again whenever Home Assistant announces itself (`online` on its status
 * topic, its birth message after a restart) and on every reconnection to the broker.
 */
import { Extension, type ExtensionContext } from '../../extension';
import type { ConnectionEvents } from '../../mqtt/connection';
import { LOG_LEVELS } from '../../logger';
import { requestAllowed } from '../../mqtt/send-policy';
import { deviceDiscoveryTopic, devicePayload, haObjectId, type HaComponent, type HaDevice, type HaOrigin } from './ha-device';

const RADIO_STATES = ['starting', 'ready', 'degraded', 'unsupported', 'error', 'stopped'];

const ORIGIN_NAME = '@clawling/node-red-mesh';
const SUPPORT_URL = 'https://github.com/clawling/node-red-mesh';

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

  /** The gateway itself: its throughput, neighbours, outbox and the state of each radio. */
  gatewayDevice(): HaDevice {
    const topics = this.ctx.mqtt!.topics;
    const info = this.ctx.info;
    const sensor = (key: string, config: Record<string, unknown>): HaComponent => ({ platform: 'sensor', key, config });
    const components: HaComponent[] = [
      sensor('messages_per_s', { name: 'Messages per second', state_topic: topics.bridgeHealth, value_template: '{{ value_json.messages_per_s }}', unit_of_measurement: 'msg/s', state_class: 'measurement', icon: 'mdi:message-fast' }),
      sensor('peers', { name: 'Mesh neighbours', state_topic: topics.bridgeHealth, value_template: '{{ value_json.peers }}', state_class: 'measurement', icon: 'mdi:access-point-network' }),
      sensor('outbox', { name: 'MQTT outbox', state_topic: topics.bridgeHealth, value_template: '{{ value_json.outbox_depth }}', unit_of_measurement: 'messages', state_class: 'measurement', entity_category: 'diagnostic', icon: 'mdi:tray-full' }),
    ];
    components.push({
      platform: 'binary_sensor',
      key: 'problem',
      config: {
        name: 'Problem',
        state_topic: topics.bridgeHealth,
        value_template: "{{ 'ON' if value_json.problem else 'OFF' }}",
        json_attributes_topic: topics.bridgeHealth,
        json_attributes_template: '{{ {"health": value_json.health, "causes": value_json.causes} | tojson }}',
        device_class: 'problem',
        entity_category: 'diagnostic',
      },
    });
    // The gateway's controls, as Zigbee2MQTT's bridge device offers them (requests: extensions/bridge-control), each
    // only where the gateway would carry it out.
    const policy = this.ctx.config.mqtt.send_policy;
    if (requestAllowed(policy, 'log_level')) components.push({
      platform: 'select',
      key: 'log_level',
      config: {
        name: 'Log level',
        command_topic: topics.bridgeRequest('log_level'),
        state_topic: topics.bridgeOptions,
        value_template: '{{ value_json.log_level }}',
        options: [...LOG_LEVELS],
        entity_category: 'config',
        icon: 'mdi:math-log',
      },
    });
    if (this.ctx.control.restartable && requestAllowed(policy, 'restart')) {
      components.push({ platform: 'button', key: 'restart', config: { name: 'Restart', command_topic: topics.bridgeRequest('restart'), payload_press: 'restart', device_class: 'restart', entity_category: 'config' } });
    }
    if (this.ctx.control.pairing !== undefined && requestAllowed(policy, 'pairing')) {
      components.push({
        platform: 'switch',
        key: 'pairing',
        config: {
          name: 'Pairing window',
          command_topic: topics.bridgeRequest('pairing'),
          state_topic: topics.bridgeOptions,
          value_template: '{{ value_json.pairing }}',
          payload_on: 'ON',
          payload_off: 'OFF',
          json_attributes_topic: topics.bridgeOptions,
          json_attributes_template: '{{ {"until": value_json.pairing_until, "admitted": value_json.pairing_admitted} | tojson }}',
          entity_category: 'config',
          icon: 'mdi:link-plus',
        },
      });
    }
    components.push(sensor('version', { name: 'Version', state_topic: topics.bridgeInfo, value_template: '{{ value_json.version }}', entity_category: 'diagnostic', icon: 'mdi:tag' }));
    for (const r of this.ctx.mesh.radios()) {
      components.push(sensor(`radio_${haObjectId(r.radioId)}_state`, {
        name: `Radio ${r.radioId}`,
        state_topic: topics.radioState(r.radioId),
        value_template: '{{ value_json.state }}',
        device_class: 'enum',
        options: RADIO_STATES,
        entity_category: 'diagnostic',
        icon: 'mdi:radio-tower',
      }));
    }
    const objectId = gatewayObjectId(info.id);
    return {
      objectId,
      device: { identifiers: [objectId], name: info.name, manufacturer: 'Clawling', model: 'Mesh gateway', sw_version: info.version, serial_number: info.address },
      availability: [{ topic: topics.bridgeState, payload_available: 'online', payload_not_available: 'offline' }],
      components,
    };
  }

  publishAll(): void {
    const mqtt = this.ctx.mqtt;
    if (!mqtt?.connection.connected) return;
    const prefix = this.ctx.config.mqtt.homeassistant.discovery_prefix;
    const dev = this.gatewayDevice();
    mqtt.connection.publish(deviceDiscoveryTopic(prefix, dev.objectId), JSON.stringify(devicePayload(dev, haOrigin(this.ctx.info.version))), { qos: 1, retain: true }, () => undefined);
    this.published += 1;
  }
}

/** Who published a discovery message (Home Assistant asks integrations for it; required by device discovery). */
export function haOrigin(version: string): HaOrigin {
  return { name: ORIGIN_NAME, sw_version: version, support_url: SUPPORT_URL };
}

/** The gateway's device id in Home Assistant; mesh nodes it hears name it as their `via_device`. */
export function gatewayObjectId(gatewayId: string): string {
  return `clawling_${haObjectId(gatewayId)}`;
}

export function createExtension(ctx: ExtensionContext): Extension {
  return new HaDiscovery(ctx);
}
