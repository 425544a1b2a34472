/**
 * Fuzz of the transport-rule decoders through the shared targets of test/support/fuzz (the ones `npm run fuzz` runs
 * at 10^6): BLE fragments (alone and through a long-lived reassembler, whose completed frames go on to
 * `decodeFrame`), file chunks (binary payloads, legacy JSON contents and whole `file_chunk` frames into a long-lived
 * file reassembler) and addresses. The rule under test: nothing but `MeshDecodeError` ever escapes, nothing hangs,
 * and the stateful parts stay inside their bounds after every input (the targets check the bounds).
 */
import { strict as assert } from 'node:assert';
import { failureSummary, runFuzz, type FuzzReport } from '../../support/fuzz/runner';
import { addressesTarget } from '../../support/fuzz/targets/addresses';
import { bleFragmentsTarget } from '../../support/fuzz/targets/ble-fragments';
import { fileChunksTarget } from '../../support/fuzz/targets/file-chunks';

function assertClean(report: FuzzReport): void {
  assert.equal(report.foreign + report.invariant, 0, failureSummary(report));
}

describe('fuzz: fragments, chunk payloads and addresses', function () {
  this.timeout(60_000);

  it('survives 130 000 mutated and hostile-header fragments with nothing but MeshDecodeError, inside its bounds', () => {
    const report = runFuzz(bleFragmentsTarget(), { count: 130_000, seed: 0x5eed });
    assertClean(report);
    const f = report.figures;
    assert.ok(f.refused > 0 && f.completed > 0, 'the corpus reaches both the refusal and the completion paths');
    assert.ok(f.evicted + f.expired + f.oversize > 0);
  });

  it('survives 50 000 mutated chunk payloads, legacy contents and file_chunk frames with nothing but MeshDecodeError', () => {
    const report = runFuzz(fileChunksTarget, { count: 50_000, seed: 0xc0ffee });
    assertClean(report);
    assert.ok(report.figures.chunks > 0 && report.figures.refused > 0, 'chunks are taken and refused');
    assert.ok(Object.keys(report.codes).length >= 8, `rejections reach many codes: ${Object.keys(report.codes).join(', ')}`);
  });

  it('survives 20 000 mutated addresses with nothing but MeshDecodeError; whatever parses is canonical', () => {
    const report = runFuzz(addressesTarget, { count: 20_000, seed: 0xadd7 });
    assertClean(report);
    for (const code of ['ADDRESS_NOT_BECH32M', 'ADDRESS_NOT_LOWERCASE']) assert.ok(code in report.codes, `the mutations reached ${code}`);
  });
});
