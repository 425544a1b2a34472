/**
 * Ajv's errors as the problems a person reads: one line per problem, with the setting's path as the YAML spells it
 * (`radios[1].queue_limit`), and none of the validator's own bookkeeping.
 *
 * With `allErrors`, a failed `oneOf`/`anyOf` reports every branch's errors plus "must match a schema in anyOf", and
 * a failed `if`/`then` adds "must match \"then\" schema". Those summary lines are dropped. Of the branches, the one
 * the value was evidently meant for is kept: the branch whose `type` the value has (an adapter given as a string is
 * checked against the string form only). Branches that each only miss a required setting become one problem,
 * "needs one of path, match".
 */
import type { ErrorObject } from 'ajv';
import { formatPath } from './json-schema';
import { nearestName } from './nearest';

export interface ConfigProblem {
  path: string;
  problem: string;
}

function pathParts(instancePath: string): Array<string | number> {
  return instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

const got = (data: unknown): string => (data === undefined ? '' : ` (got ${JSON.stringify(data)})`);

function describe(err: ErrorObject, at: ReadonlyArray<string | number>): ConfigProblem {
  // Ajv paths are JSON pointers (/mqtt/tls/ca, /radios/0/kind); ours read like the YAML (mqtt.tls.ca, radios[0].kind).
  const parts = [...at, ...pathParts(err.instancePath)];
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'additionalProperties': {
      const known = Object.keys(((err.parentSchema as { properties?: object } | undefined)?.properties ?? {}) as object);
      const meant = nearestName(String(p.additionalProperty), known);
      return { path: formatPath([...parts, String(p.additionalProperty)]), problem: meant === undefined ? 'is not a known setting' : `is not a known setting; did you mean ${meant}?` };
    }
    case 'required':
      return { path: formatPath([...parts, String(p.missingProperty)]), problem: 'is required' };
    case 'enum':
      return { path: formatPath(parts), problem: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}${got(err.data)}` };
    case 'const':
      return { path: formatPath(parts), problem: `must be ${JSON.stringify(p.allowedValue)}${got(err.data)}` };
    case 'type':
      return { path: formatPath(parts), problem: `must be ${String(p.type).replace(/,/g, ' or ')}${got(err.data)}` };
    case 'pattern':
      return { path: formatPath(parts), problem: `does not match ${String(p.pattern)}${got(err.data)}` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { path: formatPath(parts), problem: `must be ${String(p.comparison)} ${String(p.limit)}${got(err.data)}` };
    default:
      return { path: formatPath(parts), problem: err.message ?? err.keyword };
  }
}

/** The branch index of `err` under the combinator at `base` (`…/oneOf`), or undefined when it is not under it. */
function branchOf(err: ErrorObject, base: string): number | undefined {
  if (!err.schemaPath.startsWith(`${base}/`)) return undefined;
  const index = Number(err.schemaPath.slice(base.length + 1).split('/')[0]);
  return Number.isInteger(index) ? index : undefined;
}

function prune(errors: ErrorObject[], at: ReadonlyArray<string | number>): Array<ErrorObject | ConfigProblem> {
  let rest: Array<ErrorObject | ConfigProblem> = errors.filter((e) => e.keyword !== 'if');
  // Innermost combinators first, so an outer one sees its branches already reduced.
  const summaries = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf').sort((a, b) => b.schemaPath.length - a.schemaPath.length);
  for (const summary of summaries) {
    const branches = new Map<number, ErrorObject[]>();
    for (const e of rest) {
      if (!('schemaPath' in e)) continue;
      const i = branchOf(e, summary.schemaPath);
      if (i !== undefined && e.instancePath.startsWith(summary.instancePath)) branches.set(i, [...(branches.get(i) ?? []), e]);
    }
    const under = new Set([...branches.values()].flat());
    rest = rest.filter((e) => e !== summary && !under.has(e as ErrorObject));
    const all = [...branches.values()];
    if (all.length === 0) {
      // oneOf matched more than one branch.
      rest.push({ path: formatPath([...at, ...pathParts(summary.instancePath)]), problem: 'matches more than one of its allowed forms' });
      continue;
    }
    if (all.every((b) => b.every((e) => e.keyword === 'required' && e.instancePath === summary.instancePath))) {
      const names = [...new Set(all.flat().map((e) => String((e.params as { missingProperty?: unknown }).missingProperty)))];
      rest.push({ path: formatPath([...at, ...pathParts(summary.instancePath)]), problem: `needs one of ${names.join(', ')}` });
      continue;
    }
    const typed = all.filter((b) => !b.some((e) => e.keyword === 'type' && e.instancePath === summary.instancePath));
    const pool = typed.length > 0 ? typed : all;
    const chosen = pool.reduce((best, b) => (b.length < best.length ? b : best));
    rest.push(...chosen);
  }
  return rest;
}

/** Every problem of a failed validation, one per line-worthy fact, without duplicates; `at` prefixes every path. */
export function problemsOf(errors: ErrorObject[], at: ReadonlyArray<string | number> = []): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  const seen = new Set<string>();
  for (const e of prune(errors, at)) {
    const p = 'schemaPath' in e ? describe(e, at) : e;
    const key = `${p.path}\u0000${p.problem}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}
