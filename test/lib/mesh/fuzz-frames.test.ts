/**
 * Mutation fuzzing of whole frames and their BLE fragments, through the shared targets of test/support/fuzz (the
 * ones `npm run fuzz` runs at 10^6). The property is the decoder contract: whatever the bytes, the only exception is
 * `MeshDecodeError` with a string `code`, and the call returns (mocha's timeout is the hang detector). Whatever a
 * decoder accepts must be a message this side can encode, so the targets re-encode every accepted mutant. A seeded
 * generator makes any failure reproducible: the assertion message carries the seed, the index and the input's hex.
 */
import { strict as assert } from 'node:assert';
import { decodeFrame } from '../../../lib/mesh/frame';
import { FuzzRng } from '../../support/fuzz/engine';
import { failureSummary, runFuzz, type FuzzReport } from '../../support/fuzz/runner';
import { bleFragmentsTarget } from '../../support/fuzz/targets/ble-fragments';
import { frameBinaryTarget, frameJsonTarget } from '../../support/fuzz/targets/mesh-frames';

const SEED = 0x5eed2;

function assertClean(report: FuzzReport): void {
  assert.equal(report.foreign + report.invariant, 0, failureSummary(report));
}

describe('lib/mesh fuzz: mutated frames and fragments', function () {
  this.timeout(60_000);

  // Mocha raises Error.stackTraceLimit to Infinity, which makes each of the ~100 000 rejections capture the whole
  // mocha stack; Node's own default (10) is what a gateway runs with, so the loop runs with it too.
  let savedLimit: number;
  before(() => {
    savedLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 10;
  });
  after(() => {
    Error.stackTraceLimit = savedLimit;
  });

  it('60 000 mutated binary v1 frames: only MeshDecodeError, and every accepted mutant re-encodes', () => {
    const report = runFuzz(frameBinaryTarget, { count: 60_000, seed: SEED });
    assertClean(report);
    // Some mutations land in content bytes and stay valid; none at all would mean the corpus never decodes.
    assert.ok(report.accepted > 0);
    assert.ok(Object.keys(report.codes).length >= 5, `rejections reach many codes: ${Object.keys(report.codes).join(', ')}`);
  });

  it('40 000 mutated JSON floor frames: only MeshDecodeError, and every accepted mutant re-encodes', () => {
    const report = runFuzz(frameJsonTarget, { count: 40_000, seed: SEED + 1 });
    assertClean(report);
    assert.ok(report.accepted > 0);
    // The structural JSON mutations reach the parser's bounds and the floor's field checks.
    for (const code of ['JSON_TOO_DEEP', 'JSON_DUPLICATE_KEY']) assert.ok(code in report.codes, `the mutations reached ${code}: ${Object.keys(report.codes).join(', ')}`);
  });

  it('5 000 random byte strings of every length up to 64: only MeshDecodeError', () => {
    const rng = new FuzzRng(SEED + 2);
    let n = 0;
    const report = runFuzz(
      {
        name: 'frame-random',
        about: 'decodeFrame on random bytes',
        own: frameBinaryTarget.own,
        start: () => ({
          next: () => {
            const bytes = rng.bytes(n++ % 65);
            if (n % 2 === 0 && bytes.length) bytes[0] = 0xf5;
            return bytes;
          },
          feed: (input: Uint8Array) => {
            decodeFrame(input);
            return { accepted: true };
          },
          show: (input: Uint8Array) => input,
        }),
      },
      { count: 5_000, seed: SEED + 2 },
    );
    assertClean(report);
  });

  it('20 000 mutated BLE fragments through decodeFragment and a 16-assembly FragmentReassembler: only MeshDecodeError', () => {
    const report = runFuzz(bleFragmentsTarget({ maxAssemblies: 16 }), { count: 20_000, seed: SEED + 3 });
    assertClean(report);
    assert.ok(report.figures.completed > 0, 'unmutated fragments complete some messages');
    assert.ok(report.figures.openAtEnd <= 16);
  });
});
