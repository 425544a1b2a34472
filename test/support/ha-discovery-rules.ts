/**
 * The Home Assistant MQTT discovery rules docs/home-assistant.md says the gateway follows, as a check over retained
 * discovery messages: every test that sees discovery traffic runs it, so a config Home Assistant would refuse or
 * misread fails a test rather than a user's dashboard. Returns one line per broken rule, empty when all hold.
 */

const ID = /^[a-zA-Z0-9_-]+$/;
const ENTITY_ID = /^[a-z_]+\.[a-z0-9_]+$/;
/** Keys Home Assistant no longer honours (object_id, 2026.4) or never had in discovery. */
const REMOVED = ['object_id'];
/** Per platform, the keys without which Home Assistant sets up no working entity. */
const REQUIRED: Record<string, string[]> = {
  sensor: ['state_topic'],
  binary_sensor: ['state_topic'],
  event: ['state_topic', 'event_types'],
  notify: ['command_topic'],
  text: ['command_topic'],
  device_tracker: ['state_topic'],
  button: ['command_topic'],
  select: ['command_topic', 'options'],
  switch: ['command_topic'],
  device_automation: ['automation_type', 'topic', 'type', 'subtype'],
};

export interface Retained {
  topic: string;
  payload: Buffer | string;
}

function problemsOfComponent(where: string, key: string, c: Record<string, unknown>, uniqueIds: Map<string, string>): string[] {
  const out: string[] = [];
  if (!ID.test(key)) out.push(`${where}: component key "${key}" is not [a-zA-Z0-9_-]`);
  const platform = c.platform;
  if (typeof platform !== 'string' || !(platform in REQUIRED)) out.push(`${where}.${key}: platform ${JSON.stringify(platform)} is not one the docs name`);
  for (const k of REQUIRED[platform as string] ?? []) if (c[k] === undefined) out.push(`${where}.${key}: ${String(platform)} needs ${k}`);
  if (platform === 'device_automation') {
    // A trigger is no entity: no unique id, no entity id; its type and subtype together name it on the device.
    if (c.automation_type !== 'trigger') out.push(`${where}.${key}: automation_type must be trigger`);
    for (const k of ['unique_id', 'default_entity_id', 'name']) if (k in c) out.push(`${where}.${key}: a device trigger has no ${k}`);
    const id = `${where}#${String(c.type)}/${String(c.subtype)}`;
    const before = uniqueIds.get(id);
    if (before !== undefined && before !== `${where}.${key}`) out.push(`${where}.${key}: type and subtype ${String(c.type)}/${String(c.subtype)} used twice on the device`);
    uniqueIds.set(id, `${where}.${key}`);
    return out;
  }
  if (typeof c.unique_id !== 'string' || c.unique_id === '') out.push(`${where}.${key}: unique_id missing`);
  else {
    const seen = uniqueIds.get(c.unique_id);
    if (seen && seen !== `${where}.${key}`) out.push(`${where}.${key}: unique_id ${c.unique_id} also used by ${seen}`);
    uniqueIds.set(c.unique_id, `${where}.${key}`);
  }
  if (c.default_entity_id !== undefined) {
    const id = String(c.default_entity_id);
    if (!ENTITY_ID.test(id) || id.split('.')[0] !== platform) out.push(`${where}.${key}: default_entity_id ${id} is not ${String(platform)}.<slug>`);
  }
  for (const k of REMOVED) if (k in c) out.push(`${where}.${key}: removed option ${k}`);
  if (platform === 'sensor' && c.state_class !== undefined && c.device_class === 'enum') out.push(`${where}.${key}: an enum sensor has no state_class`);
  if (c.device_class === 'enum' && !Array.isArray(c.options)) out.push(`${where}.${key}: an enum sensor lists its options`);
  if (platform === 'event' && (!Array.isArray(c.event_types) || c.event_types.length === 0)) out.push(`${where}.${key}: event_types must be a non-empty list`);
  return out;
}

/** Checks every device-discovery config among `messages` (other topics are ignored; an empty payload is a removal). */
export function discoveryProblems(messages: Retained[], prefix = 'homeassistant'): string[] {
  const out: string[] = [];
  const uniqueIds = new Map<string, string>();
  for (const m of messages) {
    if (!m.topic.startsWith(`${prefix}/`) || !m.topic.endsWith('/config')) continue;
    const levels = m.topic.split('/');
    const text = m.payload.toString();
    if (text === '') continue;
    if (levels[1] !== 'device') {
      out.push(`${m.topic}: single-component discovery; this gateway publishes device discovery only`);
      continue;
    }
    if (levels.length !== 4 || !ID.test(levels[2]!)) out.push(`${m.topic}: topic is not ${prefix}/device/<[a-zA-Z0-9_-]>/config`);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      out.push(`${m.topic}: payload is not JSON`);
      continue;
    }
    const dev = body.device as Record<string, unknown> | undefined;
    if (!dev || !Array.isArray(dev.identifiers) || dev.identifiers.length === 0) out.push(`${m.topic}: device.identifiers missing`);
    if (dev && typeof dev.name !== 'string') out.push(`${m.topic}: device.name missing`);
    const origin = body.origin as Record<string, unknown> | undefined;
    if (!origin || typeof origin.name !== 'string') out.push(`${m.topic}: origin.name missing (required for device discovery)`);
    if (body.availability !== undefined) {
      if (!Array.isArray(body.availability) || body.availability.some((a) => typeof (a as { topic?: unknown }).topic !== 'string')) out.push(`${m.topic}: every availability entry needs a topic`);
    }
    const comps = body.components as Record<string, Record<string, unknown>> | undefined;
    if (!comps || typeof comps !== 'object' || Object.keys(comps).length === 0) {
      out.push(`${m.topic}: components missing`);
      continue;
    }
    for (const k of REMOVED) if (k in body) out.push(`${m.topic}: removed option ${k}`);
    for (const [key, c] of Object.entries(comps)) out.push(...problemsOfComponent(m.topic, key, c, uniqueIds));
  }
  return out;
}
