/** The resolved `nodes` and `devices` sections, derived from their schemas in config-schema.ts (defaults filled in). */
import type { FromSchema } from 'json-schema-to-ts';
import type { DEVICES_CONFIG_SCHEMA, NODES_CONFIG_SCHEMA } from './config-schema';

export type NodesConfig = FromSchema<typeof NODES_CONFIG_SCHEMA>;
export type DeviceMapping = FromSchema<typeof DEVICES_CONFIG_SCHEMA>[number];
export type EntityMapping = DeviceMapping['entities'][number];
export type ValueSource = EntityMapping['from'];
