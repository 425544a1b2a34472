/**
 * Home Assistant's device-based MQTT discovery: one retained message on `<prefix>/device/<object id>/config` describes a
 * device, its availability and all its entities (docs/home-assistant.md lists the rules followed). Full key names, no
 * abbreviations: the payloads stay readable in an MQTT explorer and a test can check them against the documented keys.
 */

/** The platforms this gateway discovers; each has the keys docs/home-assistant.md says it needs. */
export type HaPlatform = 'sensor' | 'binary_sensor' | 'notify' | 'text' | 'event' | 'button' | 'select' | 'switch' | 'device_automation';

export interface HaComponent {
  platform: HaPlatform;
  /** The component's key in `components`, unique within its device, `[a-zA-Z0-9_-]`. */
  key: string;
  /** Everything but `platform`, `unique_id` and `default_entity_id`, which `devicePayload` derives. */
  config: Record<string, unknown>;
}

export interface HaDeviceInfo {
  identifiers: string[];
  name: string;
  manufacturer?: string;
  model?: string;
  sw_version?: string;
  serial_number?: string;
  via_device?: string;
  configuration_url?: string;
}

export interface HaAvailability {
  topic: string;
  payload_available?: string;
  payload_not_available?: string;
  value_template?: string;
}

export interface HaDevice {
  /** The object id of the discovery topic, and the prefix of every unique id and entity id of the device. */
  objectId: string;
  /** The object part of the proposed entity ids (`sensor.<entityBase>_<key>`); default: the object id. */
  entityBase?: string;
  device: HaDeviceInfo;
  availability: HaAvailability[];
  /** `all`: available only while every topic says so; `any`: while one does (a node heard by several gateways). */
  availabilityMode?: 'all' | 'any' | 'latest';
  components: HaComponent[];
}

export interface HaOrigin {
  name: string;
  sw_version: string;
  support_url: string;
}

/** Home Assistant's discovery topic levels allow `[a-zA-Z0-9_-]` only. */
export function haObjectId(text: string): string {
  return text.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** An entity id's object part: lower-case letters, digits and single underscores (Home Assistant's slug rule). */
export function entitySlug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
}

export function deviceDiscoveryTopic(prefix: string, objectId: string): string {
  return `${prefix}/device/${objectId}/config`;
}

export function devicePayload(dev: HaDevice, origin: HaOrigin): Record<string, unknown> {
  const components: Record<string, unknown> = {};
  for (const c of dev.components) {
    // A device trigger is no entity: it has neither a unique id nor an entity id.
    if (c.platform === 'device_automation') {
      components[c.key] = { platform: c.platform, ...c.config };
      continue;
    }
    components[c.key] = {
      platform: c.platform,
      unique_id: `${dev.objectId}_${c.key}`,
      // `object_id` is no longer honoured (Home Assistant 2026.4): the entity id is proposed in full.
      default_entity_id: `${c.platform}.${entitySlug(`${dev.entityBase ?? dev.objectId}_${c.key}`)}`,
      ...c.config,
    };
  }
  const payload: Record<string, unknown> = { device: dev.device, origin, availability: dev.availability, components };
  if (dev.availabilityMode && dev.availabilityMode !== 'latest') payload.availability_mode = dev.availabilityMode;
  return payload;
}
