export { formatPath, nullableString, type JsonSchema } from './json-schema';
export { problemsOf, type ConfigProblem } from './problems';
export { validateAgainst } from './validator';
