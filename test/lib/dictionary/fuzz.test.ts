/**
 * Mutation fuzzing of every decoder and of applyCommit through the shared `apply-commit` target of
 * test/support/fuzz (the one `npm run fuzz` runs at 10^6): 102 000 mutated payloads, proposal lists and dictionaries
 * from a fixed seed. Only the library's own error type may escape a decoder, applyCommit never throws for hostile
 * bytes, an accepted commit still yields a dictionary a joiner accepts (the target checks both), and the heap stays
 * bounded across the run.
 */
import assert from 'node:assert/strict';
import { decodeComponentMetadata, decodeDictionary, decodeSnapshot, DictionaryError, SHAPES } from '../../../lib/dictionary';
import { failureSummary, runFuzz } from '../../support/fuzz/runner';
import { applyCommitTarget } from '../../support/fuzz/targets/apply-commit';
import { hex } from './fixtures';

function onlyOurs(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof DictionaryError)) throw new Error(`a foreign error escaped: ${String(err)}`, { cause: err });
  }
}

describe('lib/dictionary fuzz', function () {
  this.timeout(120_000);

  it('survives 102 000 mutated inputs with only DictionaryError and bounded memory', () => {
    const report = runFuzz(applyCommitTarget, { count: 102_000, seed: 0xd1c7 });
    assert.equal(report.foreign + report.invariant, 0, failureSummary(report));
    const f = report.figures;
    // Each input is a few hundred bytes; a decoder that allocated from a hostile length would blow far past this.
    assert.ok(report.heapPeakGrowth < 256 * 1024 * 1024, `heap grew by ${Math.round(report.heapPeakGrowth / 1048576)} MiB`);
    assert.ok(f.commitsApplied > 1000, `some mutated commits still apply (${f.commitsApplied})`);
    assert.ok(f.commitsRejected > 10_000, `most are rejected (${f.commitsRejected})`);
    assert.ok(f.distinctReasons >= 10, `many distinct reasons are reached (${f.distinctReasons})`);
  });

  it('rejects a hostile length prefix without allocating it', () => {
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 1000; i++) {
      onlyOurs(() => decodeDictionary(hex('bfffffff 8004')));
      onlyOurs(() => decodeSnapshot(hex('bfffffff 00'), SHAPES.mapBytesBytes, 'h'));
      onlyOurs(() => decodeComponentMetadata(hex('12ffffffff0f')));
    }
    assert.ok(process.memoryUsage().arrayBuffers - before < 16 * 1024 * 1024);
  });
});
