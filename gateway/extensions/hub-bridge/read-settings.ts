/**
 * The `hub:` section checked and completed against `HUB_CONFIG_SCHEMA` by the bridge itself. The gateway's loader
 * already does this when it knows the extension's schema; a configuration built another way (tests, a program that
 * embeds the gateway) gets the same checks and defaults here, with errors that name the path.
 */
import Ajv, { type ErrorObject } from 'ajv';
import { HUB_CONFIG_SCHEMA, type HubSettings } from './config-schema';
import { HubBridgeError } from './errors';

function describe(err: ErrorObject): string {
  const where = ['hub', ...err.instancePath.split('/').slice(1)].map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '');
  const p = err.params as Record<string, unknown>;
  if (err.keyword === 'additionalProperties') return `${where}.${String(p.additionalProperty)}: is not a known setting`;
  if (err.keyword === 'required') return `${where}.${String(p.missingProperty)}: is required`;
  return `${where}: ${err.message ?? err.keyword}`;
}

export function readHubSettings(section: unknown): HubSettings {
  const copy = structuredClone(section ?? {}) as Record<string, unknown>;
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strictSchema: true, strictTypes: false, strictRequired: false, allowUnionTypes: true });
  // The section's own `default` only means something inside the whole gateway schema.
  const { default: _ignored, ...schema } = HUB_CONFIG_SCHEMA;
  const validate = ajv.compile(schema);
  if (!validate(copy)) {
    const problems = (validate.errors ?? []).map(describe);
    throw new HubBridgeError('HUB_CONFIG_INVALID', `invalid hub bridge configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`, { problems });
  }
  return copy as unknown as HubSettings;
}
