/**
 * The core sections as `loadConfig` returns them, derived from `CORE_CONFIG_SCHEMA` so that a setting is typed where
 * it is declared and nowhere else: a setting with a default is always present. `GatewayConfig`
 * (gateway/gateway-config.ts) adds the radios' and the mesh nodes' sections.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { CORE_CONFIG_SCHEMA } from './schema';

type AsValidated = FromSchema<typeof CORE_CONFIG_SCHEMA>;

/** What `loadConfig` resolves beyond the schema: the state folder always has a path once loaded. */
export type CoreConfig = Omit<AsValidated, 'gateway'> & { gateway: AsValidated['gateway'] & { state_dir: string } };
