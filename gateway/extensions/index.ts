/**
 * The extension table, in start order (stop runs in reverse). Each extension is a folder with an `index.ts` that
 * exports its factory and, when it has a config section, `configSchema` and `checkConfig`; the index loads the
 * implementation only when the gateway creates the extension, so a gateway without MQTT never loads mqtt.js and
 * reading the schemas (every start, `--check`) stays cheap. An optional module that is not part of this build (a
 * trimmed install) is simply absent: it is an error only when its section is enabled.
 *
 * To add an extension: put `gateway/extensions/<name>/index.ts` and list it here once. An extension imports no other
 * extension (lint checks it); what two share lives below them (`gateway/mqtt/`, `gateway/mesh-nodes/`, the bus).
 */
import type { GatewayConfig } from '../gateway-config';
import type { ConfigProblem, JsonSchema } from '../../lib/schema';
import type { ExtensionFactory } from '../extension';
import type { OnlineOutcome } from '../online/outcome';

export interface ExtensionEntry {
  name: string;
  /** The extension's folder, relative to this one. */
  module: string;
  /** The factory's export name in the folder's index, when not `createExtension` (a folder holding two extensions). */
  factory?: string;
  enabled(config: GatewayConfig): boolean;
  /** A config section the module's `configSchema` describes (replacing the open placeholder in schema.ts). */
  section?: string;
  /** Absent from this build is fine unless enabled. */
  optional?: boolean;
}

export const EXTENSIONS: readonly ExtensionEntry[] = [
  { name: 'mqtt-bridge', module: './mqtt-bridge', enabled: (c) => c.mqtt.enabled },
  { name: 'bridge-control', module: './bridge-control', enabled: (c) => c.mqtt.enabled },
  { name: 'site', module: './site', enabled: (c) => c.mqtt.enabled && c.mqtt.site.id !== null },
  { name: 'availability', module: './availability', enabled: (c) => c.mqtt.enabled },
  { name: 'bridge-health', module: './availability', factory: 'createBridgeHealth', enabled: (c) => c.mqtt.enabled },
  { name: 'ha-discovery', module: './home-assistant', enabled: (c) => c.mqtt.enabled && c.mqtt.homeassistant.enabled },
  { name: 'ha-nodes', module: './home-assistant', factory: 'createNodesExtension', enabled: (c) => c.mqtt.enabled },
  { name: 'hub-bridge', module: './hub-bridge', section: 'hub', optional: true, enabled: (c) => c.hub.enabled === true },
  { name: 'status-http', module: './status', enabled: (c) => c.http.enabled },
  { name: 'daemon', module: './daemon', section: 'daemon', enabled: (c) => (c as { daemon?: { enabled?: boolean } }).daemon?.enabled === true },
];

/** What an extension checks in its section beyond the schema, once the schema passed. */
export type ExtensionCheck = (config: GatewayConfig) => ConfigProblem[];

export interface ExtensionModule {
  createExtension?: ExtensionFactory;
  configSchema?: JsonSchema;
  checkConfig?: ExtensionCheck;
  /** `--check --online`: reach the extension's service with the configured credentials. */
  checkOnline?: (config: GatewayConfig) => Promise<OnlineOutcome>;
  [factory: string]: unknown;
}

/** The entry's factory from its loaded module. */
export function factoryOf(entry: ExtensionEntry, mod: ExtensionModule): ExtensionFactory {
  const factory = mod[entry.factory ?? 'createExtension'];
  if (typeof factory !== 'function') throw new TypeError(`${entry.module} exports no ${entry.factory ?? 'createExtension'}`);
  return factory as ExtensionFactory;
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
 * Everything `loadConfig` needs from the extensions, through their indexes: each section's schema and each check
 * the schema cannot express (the hub bridge's token and rules). Spread into `loadConfig`'s options.
 */
export async function loadExtensionSections(): Promise<{ extensionSchemas: Record<string, JsonSchema>; extensionChecks: ExtensionCheck[] }> {
  const extensionSchemas: Record<string, JsonSchema> = {};
  const extensionChecks: ExtensionCheck[] = [];
  for (const entry of EXTENSIONS) {
    if (!entry.section) continue;
    const mod = await loadExtensionModule(entry);
    if (mod?.configSchema) extensionSchemas[entry.section] = mod.configSchema;
    if (mod?.checkConfig) extensionChecks.push(mod.checkConfig);
  }
  return { extensionSchemas, extensionChecks };
}
