import { strict as assert } from 'node:assert';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { createMessage, DEFAULT_TTL, LAMPORT_CLOCK_MAX, type MessageFields } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { baseFields, expectCode } from './fixtures';

function without(key: keyof MessageFields): MessageFields {
  const f = baseFields();
  delete f[key];
  return f;
}

describe('lib/mesh/message', () => {
  describe('createMessage', () => {
    it('applies the reference defaults: lamport 0, content type text, empty metadata, requires_ack true', () => {
      const f = baseFields();
      delete f.lamport_clock;
      delete f.content_type;
      delete f.requires_ack;
      const m = createMessage(f);
      assert.equal(m.lamport_clock, 0n);
      assert.equal(m.content_type, 'text');
      assert.equal(m.metadata.size, 0);
      assert.equal(m.requires_ack, true);
      assert.equal(DEFAULT_TTL, 8);
    });

    it('clamps the Lamport clock to 2^63 − 1 and keeps values below it', () => {
      assert.equal(createMessage(baseFields({ lamport_clock: 2n ** 64n - 1n })).lamport_clock, LAMPORT_CLOCK_MAX);
      assert.equal(createMessage(baseFields({ lamport_clock: 2n ** 63n })).lamport_clock, LAMPORT_CLOCK_MAX);
      assert.equal(createMessage(baseFields({ lamport_clock: LAMPORT_CLOCK_MAX - 1n })).lamport_clock, LAMPORT_CLOCK_MAX - 1n);
      expectCode(() => createMessage(baseFields({ lamport_clock: 2n ** 64n })), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
      expectCode(() => createMessage(baseFields({ lamport_clock: -1n })), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
    });

    it('requires the fields the reference requires', () => {
      for (const key of ['id', 'sender', 'recipient', 'app_id', 'priority', 'ttl', 'hop_count', 'timestamp', 'content'] as const) {
        expectCode(() => createMessage(without(key)), MeshDecodeError, 'MISSING_FIELD');
      }
    });

    it('checks ranges and types of every scalar', () => {
      expectCode(() => createMessage(baseFields({ ttl: 256 })), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
      expectCode(() => createMessage(baseFields({ hop_count: 1.5 })), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => createMessage(baseFields({ timestamp: 2n ** 63n })), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
      expectCode(() => createMessage(baseFields({ timestamp: 1 as unknown as bigint })), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => createMessage(baseFields({ priority: 'urgent' as never })), MeshDecodeError, 'UNKNOWN_PRIORITY');
      expectCode(() => createMessage(baseFields({ content_type: 'hologram' as never })), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => createMessage(baseFields({ requires_ack: 'yes' as never })), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => createMessage(baseFields({ binary_content: [1, 2] as never })), MeshDecodeError, 'BAD_FIELD_TYPE');
    });

    it('runs the identifier rule on sender, recipient, app_id and the nested user ids', () => {
      expectCode(() => createMessage(baseFields({ sender: '' })), MeshDecodeError, 'BAD_IDENTIFIER');
      expectCode(() => createMessage(baseFields({ recipient: 'r'.repeat(257) })), MeshDecodeError, 'IDENTIFIER_TOO_LONG');
      expectCode(() => createMessage(baseFields({ app_id: '..' })), MeshDecodeError, 'BAD_IDENTIFIER');
      expectCode(() => createMessage(baseFields({ reply_context: { sender: 'a/b', text: '' } })), MeshDecodeError, 'BAD_IDENTIFIER');
      expectCode(
        () => createMessage(baseFields({ forwarded_from: { original_sender: 'a:b', original_message_id: MessageId.random().toString(), original_timestamp: 0n, forward_count: 0 } })),
        MeshDecodeError,
        'BAD_IDENTIFIER',
      );
    });

    it('refuses lone surrogates in any text field, which no wire can carry', () => {
      expectCode(() => createMessage(baseFields({ content: 'a\uD800' })), MeshDecodeError, 'BAD_UNICODE');
      expectCode(() => createMessage(baseFields({ metadata: { k: '\uDFFF' } })), MeshDecodeError, 'BAD_UNICODE');
      assert.equal(createMessage(baseFields({ content: 'ok 😀' })).content, 'ok 😀');
    });

    it('takes ids as MessageId, any byte holder, or any UUID spelling, and canonicalizes the forwarded id', () => {
      const m = createMessage(
        baseFields({
          id: { bytes: new Uint8Array(16).fill(1), toString: () => 'ignored' },
          reply_to_msg: '{00112233-4455-6677-8899-AABBCCDDEEFF}',
          forwarded_from: { original_sender: 'c', original_message_id: '00112233445566778899AABBCCDDEEFF', original_timestamp: 1n, forward_count: 1 },
        }),
      );
      assert.ok(m.id instanceof MessageId);
      assert.equal(m.id.toString(), '01010101-0101-0101-0101-010101010101');
      assert.equal(m.reply_to_msg?.toString(), '00112233-4455-6677-8899-aabbccddeeff');
      assert.equal(m.forwarded_from?.original_message_id, '00112233-4455-6677-8899-aabbccddeeff');
      expectCode(() => createMessage(baseFields({ id: 'nope' })), MeshDecodeError, 'BAD_UUID');
    });

    it('takes metadata as a Map or a plain object, values strings only', () => {
      assert.equal(createMessage(baseFields({ metadata: { a: '1' } })).metadata.get('a'), '1');
      assert.equal(createMessage(baseFields({ metadata: new Map([['b', '2']]) })).metadata.get('b'), '2');
      expectCode(() => createMessage(baseFields({ metadata: { a: 1 } as never })), MeshDecodeError, 'BAD_FIELD_TYPE');
    });

    it('treats null as absent for the optional structures and copies only known nested keys', () => {
      const m = createMessage(
        baseFields({
          binary_content: null,
          reply_to_msg: null,
          forwarded_from: null,
          reply_context: null,
          media_metadata: { mime_type: 'a', file_name: 'b', file_size: 3n, extra: 'dropped' } as never,
        }),
      );
      assert.deepEqual(Object.keys(m).sort(), ['app_id', 'content', 'content_type', 'hop_count', 'id', 'lamport_clock', 'media_metadata', 'metadata', 'priority', 'recipient', 'requires_ack', 'sender', 'timestamp', 'ttl']);
      assert.deepEqual(m.media_metadata, { mime_type: 'a', file_name: 'b', file_size: 3n });
    });

    it('never carries a transport peer identity, even when one is passed in', () => {
      const m = createMessage({ ...baseFields(), transport_peer_id: 'mallory' } as MessageFields);
      assert.ok(!('transport_peer_id' in m));
    });
  });
});
