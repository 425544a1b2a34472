import assert from 'node:assert/strict';
import { decodeTime } from 'ulid';
import { checkChatId, HubError, isMessageId, MESSAGE_ID_PATTERN } from '../../../lib/hub';
import { checkMessageId, createIdMinter, mintDeviceId } from '../../../lib/hub/ids';

describe('ids', () => {
  it('mints msg- + ULID ids that match the binding format and sort by time', () => {
    let now = 1_700_000_000_000;
    const minter = createIdMinter(() => now);
    const ids = Array.from({ length: 100 }, () => minter.messageId());
    for (const id of ids) {
      assert.match(id, MESSAGE_ID_PATTERN);
      assert.equal(id.length, 30);
    }
    assert.deepEqual([...ids].sort(), ids, 'monotonic within one millisecond');
    now += 1;
    assert.ok(minter.messageId() > ids[99]);
    assert.equal(new Set(ids).size, 100);
    assert.match(minter.traceId(), /^trc-[0-9A-Z]{26}$/);
    assert.match(mintDeviceId(() => now), /^dev-[0-9A-Z]{26}$/);
  });

  it('checks caller-supplied message ids against the format contract', () => {
    assert.equal(isMessageId('msg-01HVB6S7K8L9M0N1P2Q3R4S5T6'), true);
    for (const bad of ['msg-01hvb6s7k8l9m0n1p2q3r4s5t6', 'msg-01HVB6S7K8L9M0N1P2Q3R4S5T', 'agent-stream-01K', 'msg-01HVB6S7K8L9M0N1P2Q3R4S5TI', 5]) {
      assert.equal(isMessageId(bad), false);
      assert.throws(() => checkMessageId(bad), (e: unknown) => e instanceof HubError && e.code === 'BAD_MESSAGE_ID');
    }
  });

  it('applies the cnv_ chat id rule only when asked', () => {
    assert.equal(checkChatId('chat-ab', 'any'), 'chat-ab');
    assert.equal(checkChatId('cnv_01HXYZ5K3MNPQRSTVWXYZ0ABCD', 'cnv'), 'cnv_01HXYZ5K3MNPQRSTVWXYZ0ABCD');
    for (const bad of ['chat-ab', 'usr_alice', 'agt_bot', 'direct:usr_A:usr_B', 'cnv_', 'cnv_!!']) {
      assert.throws(() => checkChatId(bad, 'cnv'), (e: unknown) => e instanceof HubError && e.code === 'BAD_CHAT_ID');
    }
    assert.throws(() => checkChatId('', 'any'), HubError);
  });
  it('keeps ids unique and sorted when the clock stands still or steps back', () => {
    let now = 1_700_000_000_500;
    const minter = createIdMinter(() => now);
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) {
      // Mostly the same millisecond, now and then a step back by up to 100 ms, now and then forward.
      if (i % 50 === 49) now -= 100;
      else if (i % 70 === 69) now += 3;
      ids.push(minter.traceId());
    }
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
    // The time part is the clock's, encoded as the ulid package encodes it.
    assert.equal(decodeTime(minter.messageId().slice(4)), Math.max(now, 1_700_000_000_500));
  });
});
