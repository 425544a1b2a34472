/**
 * Secrets out of anything printed: the schema marks them `writeOnly`; in open sections (radio options, a hub section
 * whose extension is not loaded) keys that look like secrets are hidden too, because there is no schema to ask.
 */
import { REDACTED, redactUrl, urlPasswords } from '../../lib/redact';
import type { JsonSchema } from './schema';

export { REDACTED };
const SECRET_KEY = /(password|passphrase|token|secret|credential|private_?key)/i;
/** The URL's password replaced by `[redacted]`; any other string as it is (lib/redact.ts, the one URL redactor). */
export const hideUrlPassword = redactUrl;

function redactNode(value: unknown, schema: JsonSchema | undefined): unknown {
  if (Array.isArray(value)) {
    const items = schema?.items as JsonSchema | undefined;
    return value.map((v) => redactNode(v, items));
  }
  if (value === null || typeof value !== 'object') {
    if (schema?.writeOnly === true && value !== null && value !== undefined) return REDACTED;
    return typeof value === 'string' ? hideUrlPassword(value) : value;
  }
  const props = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const childSchema = props[key];
    if (childSchema) out[key] = redactNode(child, childSchema);
    else if (SECRET_KEY.test(key) && child !== null && child !== undefined && typeof child !== 'object') out[key] = REDACTED;
    else out[key] = redactNode(child, undefined);
  }
  return out;
}

/** A deep copy of `config` with every secret replaced by `[redacted]` (null stays null: "no secret set" is not one). */
export function redactConfig<T>(config: T, schema: JsonSchema): T {
  return redactNode(config, schema) as T;
}

/** Every string value that is a secret in `config`, so that a logger can refuse to print them anywhere. */
export function collectSecrets(config: unknown, schema: JsonSchema): string[] {
  const secrets: string[] = [];
  const walk = (value: unknown, node: JsonSchema | undefined, key?: string): void => {
    if (Array.isArray(value)) {
      for (const v of value) walk(v, node?.items as JsonSchema | undefined);
      return;
    }
    if (value !== null && typeof value === 'object') {
      const props = (node?.properties ?? {}) as Record<string, JsonSchema>;
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) walk(v, props[k], k);
      return;
    }
    if (typeof value !== 'string' || value.length === 0) return;
    if (node?.writeOnly === true || (!node && key && SECRET_KEY.test(key))) secrets.push(value);
    secrets.push(...urlPasswords(value));
  };
  walk(config, schema);
  return secrets;
}
