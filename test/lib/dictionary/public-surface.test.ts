import assert from 'node:assert/strict';
import * as direct from '../../../lib/dictionary';

describe('@clawling/node-red-mesh/dictionary', () => {
  it('resolves through the package exports map to the same module, with applyCommit', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const viaPackage = require('@clawling/node-red-mesh/dictionary') as typeof direct;
    assert.equal(typeof viaPackage.applyCommit, 'function');
    assert.equal(viaPackage.applyCommit, direct.applyCommit);
    assert.equal(viaPackage.DictionaryError, direct.DictionaryError);
  });

  it('exposes the well-known table and the key-space ranges as data', () => {
    assert.equal(direct.WELL_KNOWN_COMPONENTS.find((c) => c.name === 'GROUP_NAME')?.maxBytes, 100);
    assert.equal(direct.WELL_KNOWN_COMPONENTS.find((c) => c.id === 0x8009)?.fieldName, 'app_data');
    assert.equal(direct.WELL_KNOWN_COMPONENTS.filter((c) => c.mutability === 'immutable').length, 4);
    assert.deepEqual(
      direct.COMPONENT_RANGES.map((r) => [r.from, r.to, r.range]),
      [
        [0x0000, 0x7fff, 'outside'],
        [0x8000, 0xbdff, 'well-known-mutable'],
        [0xbe00, 0xbfff, 'well-known-immutable'],
        [0xc000, 0xfcff, 'application-mutable'],
        [0xfd00, 0xfeff, 'application-immutable'],
        [0xff00, 0xffff, 'reserved'],
      ],
    );
    assert.equal(direct.componentRange(0xbfff), 'well-known-immutable');
  });
});
