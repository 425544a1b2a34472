/**
 * Typed readings: a node's message matched against the `devices:` mappings and turned into values. Compiling
 * happens once at start (and in `--check`, which reports every bad setting with its path); a message that matches a
 * mapping but yields no value is a mismatch, counted and reported, never thrown.
 */
import type { MeshMessage } from '../../lib/mesh/message';
import type { ConfigProblem } from '../../lib/schema';
import type { DeviceMapping, EntityMapping } from './types';

export type ReadingValue = number | string | boolean;

export interface CompiledEntity {
  mapping: EntityMapping;
  /** Index of the device mapping, for paths in messages. */
  device: number;
  extract(message: MeshMessage): ReadingValue | { mismatch: string };
}

export interface CompiledDevice {
  index: number;
  mapping: DeviceMapping;
  /** The sender address this mapping binds to, when it names one (directly or through nodes.names). */
  sender?: string;
  content?: RegExp;
  entities: CompiledEntity[];
}

export interface ReadingResult {
  device: CompiledDevice;
  values: Record<string, ReadingValue>;
  mismatches: Array<{ key: string; reason: string }>;
}

function textOf(message: MeshMessage): string | undefined {
  return typeof message.content === 'string' ? message.content : undefined;
}

/** RFC 6901: `''` is the whole document, otherwise `/`-separated tokens with `~1` for `/` and `~0` for `~`. */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  const tokens = pointer.slice(1).split('/');
  if (tokens.some((t) => /~[^01]|~$/.test(t))) return undefined;
  return tokens.map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function resolvePointer(doc: unknown, tokens: string[]): unknown {
  let at: unknown = doc;
  for (const t of tokens) {
    if (Array.isArray(at)) {
      if (!/^(0|[1-9]\d*)$/.test(t)) return undefined;
      at = at[Number(t)];
    } else if (at !== null && typeof at === 'object' && Object.prototype.hasOwnProperty.call(at, t)) {
      at = (at as Record<string, unknown>)[t];
    } else return undefined;
  }
  return at;
}

function convert(raw: unknown, m: EntityMapping): ReadingValue | { mismatch: string } {
  if (m.type === 'boolean' || m.platform === 'binary_sensor') {
    if (typeof raw === 'boolean') return raw;
    const text = String(raw).trim().toLowerCase();
    return m.true_values.some((v) => v.toLowerCase() === text);
  }
  if (m.type === 'string') return typeof raw === 'string' ? raw : JSON.stringify(raw);
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim().replace(',', '.')) : NaN;
  if (!Number.isFinite(n)) return { mismatch: `${JSON.stringify(raw)} is not a number` };
  const value = n * m.scale + m.offset;
  return m.type === 'integer' ? Math.round(value) : value;
}

function extractor(m: EntityMapping): CompiledEntity['extract'] {
  const src = m.from;
  if (src.regex !== undefined) {
    const re = new RegExp(src.regex, 'u');
    const group = src.group ?? 1;
    return (message) => {
      const text = textOf(message);
      if (text === undefined) return { mismatch: 'the content is not text' };
      const hit = re.exec(text);
      if (!hit || hit[group] === undefined) return { mismatch: `the content does not match ${src.regex}` };
      return convert(hit[group], m);
    };
  }
  if (src.metadata !== undefined) {
    const key = src.metadata;
    return (message) => {
      const value = message.metadata?.get(key);
      if (value === undefined) return { mismatch: `no metadata key ${key}` };
      return convert(value, m);
    };
  }
  const tokens = parsePointer(src.json_pointer ?? '')!;
  return (message) => {
    const text = textOf(message);
    if (text === undefined) return { mismatch: 'the content is not text' };
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return { mismatch: 'the content is not JSON' };
    }
    const value = resolvePointer(doc, tokens);
    if (value === undefined || value === null || typeof value === 'object') return { mismatch: `nothing usable at ${src.json_pointer}` };
    return convert(value, m);
  };
}

/** The component keys of the entities every node device has (gateway/extensions/ha-nodes.ts). */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([
  'connectivity', 'rssi', 'last_seen', 'last_message', 'send', 'forget', 'last_send', 'message', 'send_result',
  'message_received', 'send_acked', 'send_failed', 'messages_per_min', 'duplicates', 'delivery_ratio', 'gateways_hearing',
  'ble_battery', 'ble_load',
]);

function groupCount(re: RegExp): number {
  return (new RegExp(`${re.source}|`, re.flags).exec('') ?? []).length - 1;
}

/** Every problem of the mappings, with the path of the setting (for `--check` and the start). */
export function mappingProblems(devices: DeviceMapping[], names: Record<string, string>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const byName = new Set(Object.values(names));
  devices.forEach((d, i) => {
    const at = `devices[${i}]`;
    if (d.match.name !== undefined && !byName.has(d.match.name)) problems.push({ path: `${at}.match.name`, problem: `'${d.match.name}' is not a name in nodes.names` });
    if (d.match.content !== undefined) {
      try {
        new RegExp(d.match.content, 'u');
      } catch (err) {
        problems.push({ path: `${at}.match.content`, problem: `is not a valid regular expression (${(err as Error).message})` });
      }
    }
    const keys = new Set<string>();
    d.entities.forEach((e, j) => {
      const ep = `${at}.entities[${j}]`;
      if (RESERVED_KEYS.has(e.key)) problems.push({ path: `${ep}.key`, problem: `'${e.key}' is one of the entities every node has (${[...RESERVED_KEYS].join(', ')})` });
      if (keys.has(e.key)) problems.push({ path: `${ep}.key`, problem: `'${e.key}' is used by another entity of this device` });
      keys.add(e.key);
      const sources = ['regex', 'metadata', 'json_pointer'].filter((k) => (e.from as Record<string, unknown>)[k] !== undefined);
      if (sources.length !== 1) problems.push({ path: `${ep}.from`, problem: 'needs exactly one of regex, metadata, json_pointer' });
      if (e.from.group !== undefined && e.from.regex === undefined) problems.push({ path: `${ep}.from.group`, problem: 'applies to regex only' });
      if (e.from.regex !== undefined) {
        try {
          const re = new RegExp(e.from.regex, 'u');
          const groups = groupCount(re);
          if ((e.from.group ?? 1) > groups) problems.push({ path: `${ep}.from.regex`, problem: `has ${groups} capture group(s); the value needs group ${e.from.group ?? 1}` });
        } catch (err) {
          problems.push({ path: `${ep}.from.regex`, problem: `is not a valid regular expression (${(err as Error).message})` });
        }
      }
      if (e.from.json_pointer !== undefined && parsePointer(e.from.json_pointer) === undefined) {
        problems.push({ path: `${ep}.from.json_pointer`, problem: 'is not a JSON pointer (RFC 6901: empty, or starting with /)' });
      }
      if (e.platform === 'binary_sensor' && e.type !== 'boolean' && e.type !== 'number') {
        problems.push({ path: `${ep}.type`, problem: 'a binary_sensor reads a boolean' });
      }
      if (e.platform === 'sensor' && e.type === 'boolean') problems.push({ path: `${ep}.type`, problem: 'boolean readings are binary_sensor entities' });
      if (e.state_class !== null && e.type !== 'number' && e.type !== 'integer') problems.push({ path: `${ep}.state_class`, problem: 'needs a numeric reading' });
    });
  });
  return problems;
}

/** Compiles valid mappings (call `mappingProblems` first: this assumes they passed). */
export function compileMappings(devices: DeviceMapping[], names: Record<string, string>): CompiledDevice[] {
  const addressOf = new Map(Object.entries(names).map(([address, name]) => [name, address]));
  return devices.map((mapping, index) => {
    const sender = mapping.match.sender ?? (mapping.match.name !== undefined ? addressOf.get(mapping.match.name) : undefined);
    const entities = mapping.entities.map((m) => ({ mapping: m, device: index, extract: extractor(m) }));
    const out: CompiledDevice = { index, mapping, entities };
    if (sender !== undefined) out.sender = sender;
    if (mapping.match.content !== undefined) out.content = new RegExp(mapping.match.content, 'u');
    return out;
  });
}

function matches(d: CompiledDevice, message: MeshMessage): boolean {
  const m = d.mapping.match;
  if (d.sender !== undefined && message.sender !== d.sender) return false;
  if (m.name !== undefined && d.sender === undefined) return false;
  if (m.app_id !== undefined && message.app_id !== m.app_id) return false;
  if (m.metadata) for (const [k, v] of Object.entries(m.metadata)) if (message.metadata?.get(k) !== v) return false;
  if (d.content) {
    const text = textOf(message);
    if (text === undefined || !d.content.test(text)) return false;
  }
  return true;
}

/** The readings `message` yields under each mapping it matches (a mapping it does not match yields nothing). */
export function readingsOf(devices: CompiledDevice[], message: MeshMessage, senderVerified: boolean): ReadingResult[] {
  const out: ReadingResult[] = [];
  for (const d of devices) {
    if (!matches(d, message)) continue;
    const result: ReadingResult = { device: d, values: {}, mismatches: [] };
    if (!senderVerified && !d.mapping.accept_claimed_sender) {
      result.mismatches.push({ key: '*', reason: 'the sender is claimed, not verified (devices[].accept_claimed_sender allows it)' });
      out.push(result);
      continue;
    }
    for (const e of d.entities) {
      const v = e.extract(message);
      if (typeof v === 'object') result.mismatches.push({ key: e.mapping.key, reason: v.mismatch });
      else result.values[e.mapping.key] = v;
    }
    out.push(result);
  }
  return out;
}
