import { strict as assert } from 'node:assert';
import { toHex } from '../../../lib/bytes';
import { canonicalControlPayload, canonicalPayload, CONTROL_SIGNING_DOMAIN, SIGNING_DOMAINS } from '../../../lib/mesh/canonical-payload';
import { createMessage } from '../../../lib/mesh/message';

describe('canonical-payload', () => {
  it('matches the reference vector canonical_payload("dom", ["ab", "c"])', () => {
    assert.equal(toHex(canonicalPayload('dom', ['ab', 'c'])), '646f6d' + '00000002' + '6162' + '00000001' + '63');
  });

  it('distinguishes field splits that concatenate to the same bytes', () => {
    assert.notEqual(toHex(canonicalPayload('dom', ['ab', 'c'])), toHex(canonicalPayload('dom', ['a', 'bc'])));
  });

  it('counts lengths in UTF-8 bytes and accepts raw byte fields', () => {
    assert.equal(toHex(canonicalPayload('d', ['é'])), '64' + '00000002' + 'c3a9');
    assert.equal(toHex(canonicalPayload(new Uint8Array([1]), [new Uint8Array([2, 3])])), '01' + '00000002' + '0203');
    assert.equal(toHex(canonicalPayload('d', [''])), '64' + '00000000');
  });

  it('spells the six domains as the reference does, none a prefix of another', () => {
    assert.deepEqual(Object.values(SIGNING_DOMAINS), [
      'offline-ctrl-v1',
      'offline-ctrl-v2',
      'offline-disc-v1',
      'offline-invite-v1',
      'offline-relay-addr-v1',
      'offline-gateway-addr-v1',
    ]);
    for (const a of Object.values(SIGNING_DOMAINS)) {
      for (const b of Object.values(SIGNING_DOMAINS)) if (a !== b) assert.ok(!a.startsWith(b), `${a} starts with ${b}`);
    }
  });

  describe('canonicalControlPayload', () => {
    const message = createMessage({
      id: '67E55044-10B1-426F-9247-BB680E5FE0C8',
      sender: 'alice',
      recipient: 'bob',
      app_id: 'app',
      priority: 'high',
      ttl: 3,
      hop_count: 2,
      timestamp: 1700000000000n,
      content: '__CONN_REQ__{}',
      metadata: { unsigned: 'rewritten in flight' },
    });

    it('writes the bare 15-byte domain, then sender, lowercase id, recipient and content, each u32be-prefixed', () => {
      const expected =
        Buffer.from('offline-ctrl-v1').toString('hex') +
        '00000005' +
        Buffer.from('alice').toString('hex') +
        '00000024' +
        Buffer.from('67e55044-10b1-426f-9247-bb680e5fe0c8').toString('hex') +
        '00000003' +
        Buffer.from('bob').toString('hex') +
        '0000000e' +
        Buffer.from('__CONN_REQ__{}').toString('hex');
      assert.equal(toHex(canonicalControlPayload(message)), expected);
      assert.equal(CONTROL_SIGNING_DOMAIN.length, 15);
    });

    it('ignores metadata, ttl, hop count, timestamps and priority', () => {
      const other = { ...message, metadata: new Map(), ttl: 8, hop_count: 0, timestamp: 0n, lamport_clock: 99n, priority: 'low' as const };
      assert.equal(toHex(canonicalControlPayload(other)), toHex(canonicalControlPayload(message)));
    });
  });
});
