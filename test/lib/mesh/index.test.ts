import { strict as assert } from 'node:assert';

describe('@clawling/node-red-mesh/mesh (the package subpath)', () => {
  it('resolves through package.json exports and carries the codec surface', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mesh = require('@clawling/node-red-mesh/mesh') as Record<string, unknown>;
    for (const name of [
      'decodeFrame',
      'decodeFrameWithFormat',
      'encodeFrame',
      'sniffFrame',
      'createMessage',
      'MessageId',
      'composeMessage',
      'RESERVED_METADATA_KEYS',
      'toPlain',
      'fromPlain',
      'parseJsonPlain',
      'frameBytesFromInput',
      'MeshDecodeError',
      'MeshEncodeError',
      'DEFAULT_TTL',
      'LAMPORT_CLOCK_MAX',
    ]) {
      assert.ok(mesh[name] !== undefined, name);
    }
    const { decodeFrame, encodeFrame, composeMessage } = mesh as typeof import('../../../lib/mesh');
    const m = composeMessage({ sender: 'a', recipient: 'b', app_id: 'c', content: 'through the subpath' });
    assert.equal(decodeFrame(encodeFrame(m, 'binary')).content, 'through the subpath');
  });
});
