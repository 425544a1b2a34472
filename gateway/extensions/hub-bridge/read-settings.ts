/**
 * The `hub:` section checked and completed against `HUB_CONFIG_SCHEMA` by the bridge itself. The gateway's loader
 * already does this when it knows the extension's schema; a configuration built another way (tests, a program that
 * embeds the gateway) gets the same checks, defaults and problem lines here, through the one validator.
 */
import { validateAgainst } from '../../../lib/schema';
import { HUB_CONFIG_SCHEMA, type HubSettings } from './config-schema';
import { HubBridgeError } from './errors';

// The section's own `default` only means something inside the whole gateway schema.
const { default: _ignored, ...SECTION_SCHEMA } = HUB_CONFIG_SCHEMA;

export function readHubSettings(section: unknown): HubSettings {
  const copy = structuredClone(section ?? {}) as Record<string, unknown>;
  const problems = validateAgainst(SECTION_SCHEMA, copy, ['hub']);
  if (problems.length > 0) {
    throw new HubBridgeError('HUB_CONFIG_INVALID', `invalid hub bridge configuration:\n${problems.map((p) => `  ${p.path}: ${p.problem}`).join('\n')}`, { problems });
  }
  return copy as unknown as HubSettings;
}
