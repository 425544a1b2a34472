import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fromCrockfordBase32, toCrockfordBase32 } from '../../../../lib/bytes';
import { MESSAGE_ID_PATTERN } from '../../../../lib/hub/ids';
import { MessageId } from '../../../../lib/mesh/message-id';
import { fileIdForHubMedia, hubMessageIdFor, meshIdForHubMessage, meshIdFromHubMessageId } from '../../../../gateway/extensions/hub-bridge/message-ids';

describe('gateway/hub/message-ids', () => {
  describe('hubMessageIdFor', () => {
    it('is msg- + the 16 id bytes in Crockford base32 (the hub contract shape)', () => {
      const id = MessageId.parse('67e55044-10b1-426f-9247-bb680e5fe0c8');
      // 0x67e5…c8 as a 128-bit number in base 32, most significant symbol first.
      assert.equal(hubMessageIdFor(id), 'msg-37WN84845H89QS4HXVD075ZR68');
      assert.match(hubMessageIdFor(id), MESSAGE_ID_PATTERN);
      assert.equal(hubMessageIdFor(MessageId.fromBytes(new Uint8Array(16))), 'msg-00000000000000000000000000');
      assert.equal(hubMessageIdFor(MessageId.fromBytes(new Uint8Array(16).fill(0xff))), 'msg-7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
    });

    it('spells the id as one 128-bit number in base 32 (checked against BigInt)', () => {
      const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
          const n = BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
          const expected = [...n.toString(32).padStart(26, '0')].map((d) => crockford[Number.parseInt(d, 32)]).join('');
          assert.equal(hubMessageIdFor(MessageId.fromBytes(bytes)), `msg-${expected}`);
        }),
      );
    });

    it('round-trips through meshIdFromHubMessageId for every id', () => {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
          const id = MessageId.fromBytes(bytes);
          const hubId = hubMessageIdFor(id);
          assert.match(hubId, MESSAGE_ID_PATTERN);
          assert.ok(meshIdFromHubMessageId(hubId)?.equals(id));
        }),
      );
    });
  });

  describe('meshIdFromHubMessageId', () => {
    it('refuses what no 128-bit value spells', () => {
      assert.equal(meshIdFromHubMessageId('msg-80000000000000000000000000'), undefined, 'above 2^128');
      assert.equal(meshIdFromHubMessageId('msg-0000000000000000000000000'), undefined, 'too short');
      assert.equal(meshIdFromHubMessageId('msg-0000000000000000000000000u'), undefined, 'lower case');
      assert.equal(meshIdFromHubMessageId('rxn:msg-x:usr'), undefined);
    });
  });

  describe('fromCrockfordBase32', () => {
    it('inverts toCrockfordBase32 for any length', () => {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 0, maxLength: 40 }), (bytes) => {
          assert.deepEqual(fromCrockfordBase32(toCrockfordBase32(bytes), bytes.length), bytes);
        }),
      );
    });
  });

  describe('meshIdForHubMessage', () => {
    it('is the same for one (hub message, recipient), different per recipient, and a version 8 UUID', () => {
      const a = meshIdForHubMessage('msg-01J0000000000000000000000A', 'off1a');
      assert.ok(a.equals(meshIdForHubMessage('msg-01J0000000000000000000000A', 'off1a')));
      assert.ok(!a.equals(meshIdForHubMessage('msg-01J0000000000000000000000A', 'off1b')));
      assert.ok(!a.equals(meshIdForHubMessage('msg-01J0000000000000000000000B', 'off1a')));
      assert.equal(a.toString()[14], '8');
      assert.match(a.toString()[19]!, /[89ab]/);
    });
  });

  describe('fileIdForHubMedia', () => {
    it('is a stable file_<uuid> per fragment and recipient', () => {
      const f = fileIdForHubMedia('msg-01J0000000000000000000000A', 0, 'off1a');
      assert.match(f, /^file_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(f, fileIdForHubMedia('msg-01J0000000000000000000000A', 0, 'off1a'));
      assert.notEqual(f, fileIdForHubMedia('msg-01J0000000000000000000000A', 1, 'off1a'));
    });
  });
});
