/**
 * `CLAWLING_*` environment variables override the configuration file, one variable per setting, found by walking the
 * schema: the rest of the name, lowercased, is split on `_` and matched greedily against the property names at each
 * level, so `CLAWLING_MQTT_BASE_TOPIC` is `mqtt.base_topic` and `CLAWLING_MQTT_TLS_CA` is `mqtt.tls.ca`. Array
 * items take their index (`CLAWLING_RADIOS_0_KIND`), down to any depth (`CLAWLING_RADIOS_0_PEERS_1_MTU`, through the
 * settings of that radio's kind); a whole object or array takes YAML or JSON
 * (`CLAWLING_RADIOS='[{id: sim0, kind: simulated}]'`). The value is converted to the type the schema asks for.
 */
import YAML from 'yaml';
import { formatPath, type JsonSchema } from '../../lib/schema';

const PREFIX = 'CLAWLING_';
/** Variables of the process itself, not settings. */
const RESERVED = new Set(['CLAWLING_CONFIG']);

export interface EnvOverride {
  variable: string;
  path: Array<string | number>;
}

export interface EnvOverrideResult {
  applied: EnvOverride[];
  /** Variables that start with CLAWLING_ but name no setting (probably a typo). */
  unknown: string[];
  /** Variables whose value cannot be the setting's type: `{ variable, path, problem }`. */
  invalid: Array<{ variable: string; path: string; problem: string }>;
}

function typesOf(schema: JsonSchema): string[] {
  const t = schema.type;
  if (Array.isArray(t)) return t as string[];
  if (typeof t === 'string') return [t];
  if (Array.isArray(schema.enum)) return [...new Set((schema.enum as unknown[]).map((v) => (v === null ? 'null' : typeof v)))];
  return [];
}

/** Whether `value` satisfies an `if` of the plain form the schemas use: `{ properties: { key: { const } } }`. */
function conditionHolds(condition: JsonSchema, value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const props = (condition.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(props).every(([key, rule]) => !('const' in rule) || (value as Record<string, unknown>)[key] === rule.const);
}

/**
 * The properties a value of `node` may have, with the branches of `allOf: [{ if, then }]` (a radio's kind-specific
 * settings) merged in: the branch whose `if` the value already satisfies, or every branch while it says nothing
 * (then the first one naming a property decides its type). `closed` when that effective schema allows nothing else.
 */
function effectiveProperties(node: JsonSchema, value: unknown): { props: Record<string, JsonSchema>; closed: boolean } {
  const props: Record<string, JsonSchema> = { ...((node.properties ?? {}) as Record<string, JsonSchema>) };
  let closed = node.additionalProperties === false;
  const branches = ((node.allOf ?? []) as JsonSchema[]).filter((b) => b.if && b.then);
  const chosen = branches.filter((b) => conditionHolds(b.if as JsonSchema, value));
  for (const branch of chosen.length > 0 ? chosen : branches) {
    const then = branch.then as JsonSchema;
    for (const [name, child] of Object.entries((then.properties ?? {}) as Record<string, JsonSchema>)) {
      // A branch's own `kind: { const }` is no better a guide than the enum beside it.
      if (!(name in props) || chosen.length > 0) props[name] = child;
    }
    if (then.additionalProperties === false) closed = true;
  }
  return { props, closed };
}

/**
 * Resolves the tokens of a variable name to a path and the schema found there, reading `current` (the
 * configuration as it stands) to pick the kind-specific branch of a list item.
 */
function resolve(schema: JsonSchema, tokens: string[], current: unknown): { path: Array<string | number>; schema: JsonSchema } | undefined {
  const path: Array<string | number> = [];
  let node: JsonSchema = schema;
  let value: unknown = current;
  let i = 0;
  while (i < tokens.length) {
    const types = typesOf(node);
    if (types.includes('array') && node.items) {
      const index = tokens[i]!;
      if (!/^\d+$/.test(index)) return undefined;
      path.push(Number(index));
      node = node.items as JsonSchema;
      value = Array.isArray(value) ? value[Number(index)] : undefined;
      i += 1;
      continue;
    }
    const { props, closed } = effectiveProperties(node, value);
    let matched = false;
    for (let j = tokens.length; j > i; j -= 1) {
      const name = tokens.slice(i, j).join('_');
      if (Object.prototype.hasOwnProperty.call(props, name)) {
        path.push(name);
        node = props[name]!;
        value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
        i = j;
        matched = true;
        break;
      }
    }
    if (matched) continue;
    // An open object (the hub section before its extension loads) takes the rest of the name as one key.
    if (!closed && (types.includes('object') || node.properties)) {
      path.push(tokens.slice(i).join('_'));
      return { path, schema: {} };
    }
    return undefined;
  }
  return { path, schema: node };
}

function convert(raw: string, schema: JsonSchema): { ok: true; value: unknown } | { ok: false; problem: string } {
  const types = typesOf(schema);
  if (types.includes('null') && (raw === '' || raw === 'null')) return { ok: true, value: null };
  if (types.includes('object') || types.includes('array')) {
    try {
      return { ok: true, value: YAML.parse(raw) as unknown };
    } catch (err) {
      return { ok: false, problem: `is not YAML/JSON: ${(err as Error).message.split('\n')[0]}` };
    }
  }
  if (types.includes('boolean')) {
    const v = raw.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(v)) return { ok: true, value: true };
    if (['false', '0', 'no', 'off'].includes(v)) return { ok: true, value: false };
    return { ok: false, problem: `must be true or false, got '${raw}'` };
  }
  if (types.includes('integer') || types.includes('number')) {
    if (/^-?\d+(\.\d+)?$/.test(raw.trim())) return { ok: true, value: Number(raw.trim()) };
    if (!types.includes('string')) return { ok: false, problem: `must be a number, got '${raw}'` };
  }
  if (types.length === 0) {
    // Unknown (open) setting: let YAML pick the scalar type, as it would have in the file.
    try {
      return { ok: true, value: YAML.parse(raw) as unknown };
    } catch {
      return { ok: true, value: raw };
    }
  }
  return { ok: true, value: raw };
}

function setPath(target: Record<string, unknown>, path: Array<string | number>, value: unknown): void {
  let node: Record<string | number, unknown> = target;
  for (let i = 0; i < path.length - 1; i += 1) {
    const key = path[i]!;
    const nextIsIndex = typeof path[i + 1] === 'number';
    let child = node[key];
    if (child === null || typeof child !== 'object') {
      child = nextIsIndex ? [] : {};
      node[key] = child;
    }
    node = child as Record<string | number, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

/** Applies every `CLAWLING_*` variable of `env` onto `raw` (the parsed file, before validation), in name order. */
export function applyEnvOverrides(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, schema: JsonSchema): EnvOverrideResult {
  const result: EnvOverrideResult = { applied: [], unknown: [], invalid: [] };
  const names = Object.keys(env)
    .filter((n) => n.startsWith(PREFIX) && !RESERVED.has(n))
    // Whole objects first, then the single settings inside them, so that the more specific variable wins.
    .sort((a, b) => a.length - b.length || a.localeCompare(b));
  for (const variable of names) {
    const value = env[variable];
    if (value === undefined) continue;
    const tokens = variable.slice(PREFIX.length).toLowerCase().split('_').filter((t) => t.length > 0);
    const found = tokens.length ? resolve(schema, tokens, raw) : undefined;
    if (!found || found.path.length === 0) {
      result.unknown.push(variable);
      continue;
    }
    const converted = convert(value, found.schema);
    if (!converted.ok) {
      result.invalid.push({ variable, path: formatPath(found.path), problem: converted.problem });
      continue;
    }
    setPath(raw, found.path, converted.value);
    result.applied.push({ variable, path: found.path });
  }
  return result;
}

/** Every setting's variable name, for `docs/gateway.md` and `--help`. */
export function listEnvVariables(schema: JsonSchema, prefix: string[] = []): Array<{ variable: string; path: string }> {
  const out: Array<{ variable: string; path: string }> = [];
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, child] of Object.entries(props)) {
    const path = [...prefix, name];
    const variable = PREFIX + path.join('_').toUpperCase();
    if (child.properties) out.push(...listEnvVariables(child, path));
    else out.push({ variable, path: path.join('.') });
  }
  return out;
}
