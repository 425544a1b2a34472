import assert from 'node:assert/strict';
import { MessageId } from '../../lib/mesh/message-id';
import { idText } from '../../gateway/mesh-id-text';

describe('gateway idText', () => {
  it('spells a mesh id exactly as MessageId.toString() does', () => {
    for (let i = 0; i < 500; i++) {
      const id = MessageId.random();
      assert.equal(idText(id), id.toString());
    }
    const upper = MessageId.parse('0B6C2D0E-3F43-4A43-9D0C-4D1C9B0F2A11');
    assert.equal(idText(upper), '0b6c2d0e-3f43-4a43-9d0c-4d1c9b0f2a11');
    assert.equal(idText(MessageId.fromBytes(new Uint8Array(16).fill(255))), 'ffffffff-ffff-ffff-ffff-ffffffffffff');
  });
});
