/**
 * The whole configuration, put together from the sections' owners: the core (`config/`), the radios (`radios/`) and
 * the mesh nodes (`mesh-nodes/`); extensions add theirs at load time (`withExtensionSchemas`). Sitting above those
 * owners is what keeps `config/` free of them, so that every owner can use the core's schema helpers.
 */
import { CORE_CONFIG_SCHEMA, type JsonSchema } from './config/schema';
import type { CoreConfig } from './config/types';
import { DEVICES_CONFIG_SCHEMA, NODES_CONFIG_SCHEMA } from './mesh-nodes/config-schema';
import type { DeviceMapping, NodesConfig } from './mesh-nodes/types';
import { RADIO_CONFIG_SCHEMA, type RadioConfig } from './radios';

export type RadioSettings = RadioConfig;

/** The resolved configuration: every default filled in, paths absolute, secrets read from their files. */
export interface GatewayConfig extends CoreConfig {
  radios: RadioSettings[];
  nodes: NodesConfig;
  devices: DeviceMapping[];
}

const RADIOS_SECTION: JsonSchema = {
  type: 'array',
  default: [],
  description: 'The radios to open; options beside id and kind belong to the radio kind (docs/gateway.md).',
  items: RADIO_CONFIG_SCHEMA as unknown as JsonSchema,
};

function assemble(): JsonSchema {
  const core = CORE_CONFIG_SCHEMA.properties as Record<string, JsonSchema>;
  // The sections in the order a person reads them (`--print-config`, the env variable list).
  const { gateway, log, mesh, mqtt, http, hub, ...rest } = core;
  return {
    ...CORE_CONFIG_SCHEMA,
    properties: { gateway, log, radios: RADIOS_SECTION, mesh, mqtt, nodes: NODES_CONFIG_SCHEMA, devices: DEVICES_CONFIG_SCHEMA, http, hub, ...rest },
  };
}

export const GATEWAY_CONFIG_SCHEMA: JsonSchema = assemble();
