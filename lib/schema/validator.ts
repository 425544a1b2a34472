/**
 * The one Ajv set-up of the project, for every configuration it reads (the gateway's file and its sections, the dev
 * hub's): every error at once, defaults filled in from the schema, strict about the schema itself (a misspelt keyword
 * is a bug of ours) but not about unions of types, and the offending value kept so a problem can quote it.
 */
import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import type { JsonSchema } from './json-schema';
import { problemsOf, type ConfigProblem } from './problems';

let ajv: Ajv | undefined;
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function compile(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    // Required on first use, not imported: a gateway process whose configuration was read elsewhere
    // (gateway/read-apart.ts) never needs Ajv's 63 modules, and they would stay in its memory for good.
    if (!ajv) {
      // A plain require: validation is synchronous, and `await import` would make every caller async.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const AjvClass = (require('ajv') as { default: typeof Ajv }).default;
      ajv = new AjvClass({ allErrors: true, verbose: true, useDefaults: true, strictSchema: true, strictTypes: false, strictRequired: false, allowUnionTypes: true });
    }
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * Checks `value` against `schema`, filling in defaults in place, and returns every problem (empty when valid).
 * `at` prefixes the paths when `value` is one section of a larger file (`hub` → `hub.url`).
 */
export function validateAgainst(schema: JsonSchema, value: unknown, at: ReadonlyArray<string | number> = []): ConfigProblem[] {
  const validate = compile(schema);
  return validate(value) ? [] : problemsOf(validate.errors ?? [], at);
}
