/** Small assertion helpers beside the applyCommit tests. */
import assert from 'node:assert/strict';
export { applyCommit } from '../../../lib/dictionary';

export function bytesEqualCheck(actual: Uint8Array | undefined, expected: Uint8Array, what: string): void {
  assert.ok(actual !== undefined, `${what} is missing`);
  assert.equal(Buffer.compare(Buffer.from(actual), Buffer.from(expected)), 0, `${what} changed`);
}
