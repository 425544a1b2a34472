/**
 * The package root re-exports the shared error type; each protocol has its own subpath
 * (`@clawling/node-red-mesh/mesh`, `/dictionary`, `/hub`, `/media`, `/store`).
 */
export { CodedError, isCodedError } from './coded-error';
