/**
 * The one Ajv set-up of the project, for every configuration it reads (the gateway's file and its sections, the dev
 * hub's): every error at once, defaults filled in from the schema, strict about the schema itself (a misspelt keyword
 * is a bug of ours) but not about unions of types, and the offending value kept so a problem can quote it.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import type { JsonSchema } from './json-schema';
import { problemsOf, type ConfigProblem } from './problems';

let ajv: Ajv | undefined;
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function compile(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    ajv ??= new Ajv({ allErrors: true, verbose: true, useDefaults: true, strictSchema: true, strictTypes: false, strictRequired: false, allowUnionTypes: true });
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
