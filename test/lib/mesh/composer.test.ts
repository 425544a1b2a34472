import { strict as assert } from 'node:assert';
import { composeMessage, isReservedMetadataKey, RESERVED_METADATA_KEYS } from '../../../lib/mesh/composer';
import { MeshEncodeError } from '../../../lib/mesh/errors';
import { MessageId } from '../../../lib/mesh/message-id';
import { expectCode } from './fixtures';

const FIXED_ID = MessageId.parse('11111111-2222-4333-8444-555555555555');
const options = { now: () => 1700000000000, newId: () => FIXED_ID };

describe('lib/mesh/composer', () => {
  it('fills in id, priority medium, ttl 8, hop 0, the current time and the reference defaults', () => {
    const m = composeMessage({ sender: 'alice', recipient: 'bob', app_id: 'chat', content: 'hi' }, options);
    assert.equal(m.id.toString(), FIXED_ID.toString());
    assert.equal(m.priority, 'medium');
    assert.equal(m.ttl, 8);
    assert.equal(m.hop_count, 0);
    assert.equal(m.timestamp, 1700000000000n);
    assert.equal(m.lamport_clock, 0n);
    assert.equal(m.content_type, 'text');
    assert.equal(m.requires_ack, true);
  });

  it('keeps what the application gives', () => {
    const m = composeMessage(
      { id: '{AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE}', sender: 's', recipient: 'r', app_id: 'a', content: 'c', priority: 'high', ttl: 3, timestamp: new Date(5), metadata: { room: 'kitchen' } },
      options,
    );
    assert.equal(m.id.toString(), 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee');
    assert.equal(m.priority, 'high');
    assert.equal(m.ttl, 3);
    assert.equal(m.timestamp, 5n);
    assert.equal(m.metadata.get('room'), 'kitchen');
  });

  it('refuses each reserved metadata key with RESERVED_METADATA_KEY', () => {
    assert.deepEqual([...RESERVED_METADATA_KEYS], ['ack_for', 'ack_hop_count', 'ack_transport', 'transport_preference', 'original_content_type', '__ctrl_sig', '__ctrl_pk']);
    for (const key of RESERVED_METADATA_KEYS) {
      assert.ok(isReservedMetadataKey(key));
      expectCode(() => composeMessage({ sender: 's', recipient: 'r', app_id: 'a', content: '', metadata: { ok: '1', [key]: 'x' } }, options), MeshEncodeError, 'RESERVED_METADATA_KEY');
      expectCode(() => composeMessage({ sender: 's', recipient: 'r', app_id: 'a', content: '', metadata: new Map([[key, 'x']]) }, options), MeshEncodeError, 'RESERVED_METADATA_KEY');
    }
    assert.ok(!isReservedMetadataKey('ACK_FOR'));
  });

  it('never accepts a transport peer identity or a codec stamp from input', () => {
    expectCode(() => composeMessage({ sender: 's', recipient: 'r', app_id: 'a', content: '', transport_peer_id: 's' }, options), MeshEncodeError, 'TRANSPORT_PEER_ID_REFUSED');
    expectCode(() => composeMessage({ sender: 's', recipient: 'r', app_id: 'a', content: '', wire_codec: 'binary' }, options), MeshEncodeError, 'WIRE_CODEC_REFUSED');
  });

  it('reports bad fields as MeshEncodeError with the validator’s code', () => {
    expectCode(() => composeMessage({ sender: 'a/b', recipient: 'r', app_id: 'a', content: '' }, options), MeshEncodeError, 'BAD_IDENTIFIER');
    expectCode(() => composeMessage({ recipient: 'r', app_id: 'a', content: '' }, options), MeshEncodeError, 'MISSING_FIELD');
    expectCode(() => composeMessage({ sender: 's', recipient: 'r', app_id: 'a' }, options), MeshEncodeError, 'MISSING_FIELD');
    expectCode(() => composeMessage(null, options), MeshEncodeError, 'BAD_FIELD_TYPE');
  });

  it('uses a random id and the wall clock by default', () => {
    const before = Date.now();
    const a = composeMessage({ sender: 's', recipient: 'r', app_id: 'a', content: '' });
    const b = composeMessage({ sender: 's', recipient: 'r', app_id: 'a', content: '' });
    assert.notEqual(a.id.toString(), b.id.toString());
    assert.ok(a.timestamp >= BigInt(before));
  });
});
