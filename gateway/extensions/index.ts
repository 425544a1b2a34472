/**
 * The extension table, in start order (stop runs in reverse). Modules load lazily, so a gateway without MQTT never
 * loads mqtt.js, and an optional module that is not part of this build (the hub bridge before it lands, or a
 * trimmed install) is simply absent: it is an error only when its section is enabled.
 *
 * To add an extension: put `gateway/extensions/<name>.ts` exporting `createExtension(ctx)` (and `configSchema` when it
 * has its own config section) and list it here once. The hub bridge is listed already.
 *
 * An extension with a config section may name a small module that holds only its schema (`schema`): the config is
 * validated on every start, and loading the whole extension for that (the hub bridge brings the hub client, the
 * WebSocket library and the media code, about 6 MB of RSS) would cost memory on every gateway that leaves it off.
 */
import type { GatewayConfig } from '../config/types';
import type { JsonSchema } from '../config/schema';
import type { ExtensionFactory } from '../extension';

export interface ExtensionEntry {
  name: string;
  /** Module path relative to this folder. */
  module: string;
  enabled(config: GatewayConfig): boolean;
  /** A config section the module's `configSchema` describes (replacing the open placeholder in schema.ts). */
  section?: string;
  /** Absent from this build is fine unless enabled. */
  optional?: boolean;
  /** Where the section's schema lives without the rest of the extension: module (relative to this folder), export. */
  schema?: { module: string; export: string };
}

export const EXTENSIONS: readonly ExtensionEntry[] = [
  { name: 'mqtt-bridge', module: './mqtt-bridge', enabled: (c) => c.mqtt.enabled },
  { name: 'site', module: './site', enabled: (c) => c.mqtt.enabled && c.mqtt.site.id !== null },
  { name: 'availability', module: './availability', enabled: (c) => c.mqtt.enabled },
  { name: 'bridge-health', module: './bridge-health', enabled: (c) => c.mqtt.enabled },
  { name: 'ha-discovery', module: './ha-discovery', enabled: (c) => c.mqtt.enabled && c.mqtt.homeassistant.enabled },
  { name: 'ha-nodes', module: './ha-nodes', enabled: (c) => c.mqtt.enabled },
  {
    name: 'hub-bridge',
    module: './hub-bridge',
    section: 'hub',
    optional: true,
    schema: { module: '../hub/config-schema', export: 'HUB_CONFIG_SCHEMA' },
    enabled: (c) => c.hub.enabled === true,
  },
  { name: 'status-http', module: './status-http', enabled: (c) => c.http.enabled },
  {
    name: 'daemon',
    module: './daemon/index',
    section: 'daemon',
    schema: { module: './daemon/config-schema', export: 'DAEMON_CONFIG_SCHEMA' },
    enabled: (c) => (c as { daemon?: { enabled?: boolean } }).daemon?.enabled === true,
  },
];

export interface ExtensionModule {
  createExtension: ExtensionFactory;
  configSchema?: JsonSchema;
}

function isMissing(err: unknown, module: string): boolean {
  const e = err as NodeJS.ErrnoException;
  return e?.code === 'MODULE_NOT_FOUND' && String(e.message).includes(module.replace('./', '/'));
}

async function importOptional<T>(module: string, optional: boolean | undefined): Promise<T | undefined> {
  try {
    // A computed specifier: the compiler must not insist that optional modules exist at build time.
    const specifier: string = module;
    return (await import(specifier)) as T;
  } catch (err) {
    if (optional && isMissing(err, module)) return undefined;
    throw err;
  }
}

/** Loads one extension module; `undefined` when an optional one is not in this build. */
export async function loadExtensionModule(entry: ExtensionEntry): Promise<ExtensionModule | undefined> {
  return importOptional<ExtensionModule>(entry.module, entry.optional);
}

/**
 * The config schemas optional extensions bring, by section (for `loadConfig`): from the schema module when the entry
 * names one, otherwise from the extension's `configSchema`. An optional extension absent from the build brings none.
 */
export async function loadExtensionSchemas(): Promise<Record<string, JsonSchema>> {
  const out: Record<string, JsonSchema> = {};
  for (const entry of EXTENSIONS) {
    if (!entry.section) continue;
    let schema: JsonSchema | undefined;
    if (entry.schema) {
      const mod = await importOptional<Record<string, JsonSchema | undefined>>(entry.schema.module, entry.optional);
      schema = mod?.[entry.schema.export];
    } else schema = (await loadExtensionModule(entry))?.configSchema;
    if (schema) out[entry.section] = schema;
  }
  return out;
}
