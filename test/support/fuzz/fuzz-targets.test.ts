/**
 * The shared fuzz runner itself, and the targets that have no older suite: the control gate and the hub's
 * `parseFrame`. The runner must tell a foreign exception from the decoder's own error, report it with its seed,
 * index and hex, and its mutations must reach a decoder that allocates from an unchecked length field.
 */
import { strict as assert } from 'node:assert';
import { FuzzRng, mutateBytes } from './engine';
import { failureSummary, formatReport, runFuzz, type FuzzReport, type FuzzTarget } from './runner';
import { controlGateTarget } from './targets/control-gate';
import { FUZZ_TARGETS } from './targets';
import { hubFramesTarget } from './targets/hub-frames';

class ToyError extends Error {
  readonly code = 'TOY';
}

/** A length-prefixed toy format whose decoder trusts its u32 length: the bug the length mutations must find. */
const trustingDecoder: FuzzTarget<Uint8Array> = {
  name: 'toy',
  about: 'a decoder that allocates before checking the length',
  own: (err) => (err instanceof ToyError ? err.code : undefined),
  start(rng: FuzzRng) {
    const corpus = [Uint8Array.of(3, 0, 0, 0, 1, 2, 3), Uint8Array.of(0, 0, 0, 0)];
    return {
      next: () => mutateBytes(rng, rng.pick(corpus), corpus),
      feed: (input: Uint8Array) => {
        if (input.length < 4) throw new ToyError('short');
        const length = new DataView(input.buffer, input.byteOffset, input.byteLength).getUint32(0, true);
        // The bug: the body is viewed before its length is checked against what arrived (a RangeError past the end).
        new DataView(input.buffer, input.byteOffset + 4, length);
        return { accepted: true };
      },
      show: (input: Uint8Array) => input,
    };
  },
};

function assertClean(report: FuzzReport): void {
  assert.equal(report.foreign + report.invariant, 0, failureSummary(report));
}

describe('test/support/fuzz', function () {
  this.timeout(60_000);

  it('reports a foreign exception with its index, hex and the seed to replay, apart from own-error rejections', () => {
    const report = runFuzz(trustingDecoder, { count: 5_000, seed: 7 });
    assert.ok(report.foreign > 0, 'the length mutations reach the unchecked allocation');
    assert.ok(report.rejected > 0 && report.codes.TOY > 0);
    assert.equal(report.inputs, 5_000);
    assert.equal(report.accepted + report.rejected + report.foreign, 5_000);
    assert.match(report.failures[0].error, /RangeError/);
    assert.match(report.failures[0].input, /^[0-9a-f]+(…)? \(\d+ bytes\)$/);
    assert.match(failureSummary(report), /--seed 7 --count \d+/);
    assert.match(formatReport(report), /foreign +\d+/);
    // The same seed gives the same run: a failure replays.
    assert.deepEqual(runFuzz(trustingDecoder, { count: 5_000, seed: 7 }).failures, report.failures);
  });

  it('lists every decoder the issue names, once', () => {
    const names = FUZZ_TARGETS.map((t) => t.name);
    assert.deepEqual(new Set(names).size, names.length);
    for (const n of ['frame-binary', 'frame-json', 'ble-fragments', 'file-chunks', 'control-gate', 'addresses', 'apply-commit', 'hub-frames']) assert.ok(names.includes(n), n);
  });

  it('control gate: 20 000 mutated signed control frames, only MeshDecodeError and no accepted forgery', () => {
    const report = runFuzz(controlGateTarget, { count: 20_000, seed: 0xc7a1 });
    assertClean(report);
    assert.ok(report.figures.signed > 0 && report.figures.exempt > 0, 'untouched signed fields and the relay exemption still pass');
    for (const reason of ['BAD_SIGNATURE', 'BAD_SIGNATURE_ENCODING', 'UNSIGNED_CONTROL', 'TRANSPORT_IDENTITY_MISMATCH']) assert.ok(reason in report.codes, `reached ${reason}`);
  });

  it('hub frames: 50 000 mutated downlinks, parseFrame never throws and keeps its field types', () => {
    const report = runFuzz(hubFramesTarget, { count: 50_000, seed: 0x4b0b });
    assertClean(report);
    assert.ok(report.accepted > 0 && report.codes.NOT_JSON > 0 && report.codes.NOT_AN_OBJECT > 0);
    assert.ok(report.figures.dseqRecovered > 0, 'broken frames still give up their dseq');
  });
});
