import { strict as assert } from 'node:assert';
import { encodeFragments, isFragment } from '../../../lib/mesh/ble-fragment';
import { encodeFrame } from '../../../lib/mesh/frame';
import { senderVerifiedFromPeer } from '../../../lib/mesh/sender-verified';
import { baseMessage } from './fixtures';

const ADDRESS = 'off1qysluvwl5922yctzd0u9gpr06gn3k7ldfvgtwgvn';

describe('lib/mesh senderVerifiedFromPeer', () => {
  it("trusts a direct frame's sender only when the link authenticated that very address", () => {
    const direct = baseMessage({ sender: ADDRESS, hop_count: 0 });
    assert.equal(senderVerifiedFromPeer(direct, ADDRESS), true);
    assert.equal(senderVerifiedFromPeer(direct, undefined), false);
    assert.equal(senderVerifiedFromPeer(direct, ''), false);
    assert.equal(senderVerifiedFromPeer(direct, 42), false);
    assert.equal(senderVerifiedFromPeer(baseMessage({ sender: ADDRESS, hop_count: 1 }), ADDRESS), false, 'a relayed frame proves nothing of its sender');
  });
});

describe('lib/mesh isFragment', () => {
  it('tells a BLE fragment from a whole frame of either codec', () => {
    const frame = encodeFrame(baseMessage(), 'binary');
    for (const f of encodeFragments(frame, 'abc', 40)) assert.equal(isFragment(f), true);
    assert.equal(isFragment(frame), false);
    assert.equal(isFragment(encodeFrame(baseMessage(), 'json')), false);
    assert.equal(isFragment(new Uint8Array([0x4f, 0x50])), false, 'too short to be one');
  });
});
