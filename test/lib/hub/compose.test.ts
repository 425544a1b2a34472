import assert from 'node:assert/strict';
import { HubError } from '../../../lib/hub';
import { composeMessage, composeReaction } from '../../../lib/hub/send/compose';

const mint = () => 'msg-01HVB6S7K8L9M0N1P2Q3R4S5T6';
const code = (c: string) => (e: unknown) => e instanceof HubError && e.code === c;

describe('composeMessage', () => {
  it('builds a send that sets chat_id and never sender, chat_type or streaming', () => {
    const c = composeMessage({ chatId: 'chat-ab', text: 'hi', mentions: ['usr_b'] }, 'any', mint, 'trc-1');
    assert.equal(c.event, 'message.send');
    assert.deepEqual(c.frame, {
      version: '2',
      event: 'message.send',
      trace_id: 'trc-1',
      chat_id: 'chat-ab',
      payload: {
        message_id: 'msg-01HVB6S7K8L9M0N1P2Q3R4S5T6',
        message_mode: 'normal',
        message: { body: { fragments: [{ kind: 'text', text: 'hi' }] }, context: { mentions: [{ kind: 'mention', user_id: 'usr_b' }], reply: null } },
      },
    });
  });

  it('builds a reply with its context, and takes a caller message id only in the binding format', () => {
    const c = composeMessage(
      { chatId: 'c', fragments: [{ kind: 'image', url: 'https://x/y.png' }], replyTo: { messageId: 'msg-x', preview: { id: 'usr_a', nickName: 'A', fragments: [{ kind: 'text', text: 'q' }] } }, messageId: 'msg-01HVB6S7K8L9M0N1P2Q3R4S5T7', to: { id: 'c', type: 'group' } },
      'any',
      mint,
      't',
    );
    assert.equal(c.event, 'message.reply');
    assert.equal(c.messageId, 'msg-01HVB6S7K8L9M0N1P2Q3R4S5T7');
    const payload = c.frame.payload as { message: { context: { reply: unknown } } };
    assert.deepEqual(payload.message.context.reply, { reply_to_msg_id: 'msg-x', reply_preview: { id: 'usr_a', nick_name: 'A', fragments: [{ kind: 'text', text: 'q' }] } });
    assert.deepEqual(c.frame.to, { id: 'c', type: 'group' });
    assert.throws(() => composeMessage({ chatId: 'c', text: 'x', messageId: 'agent-1' }, 'any', mint, 't'), code('BAD_MESSAGE_ID'));
  });

  it('refuses what the hub would refuse or drop', () => {
    assert.throws(() => composeMessage({ chatId: '', text: 'x' }, 'any', mint, 't'), code('BAD_CHAT_ID'));
    assert.throws(() => composeMessage({ chatId: 'chat-ab', text: 'x' }, 'cnv', mint, 't'), code('BAD_CHAT_ID'));
    assert.throws(() => composeMessage({ chatId: 'c' }, 'any', mint, 't'), code('BAD_ARGUMENT'));
    assert.throws(() => composeMessage({ chatId: 'c', text: 'x', to: { id: 1 } as never }, 'any', mint, 't'), code('BAD_ARGUMENT'));
  });
});

describe('composeReaction', () => {
  it('sets only target, emoji and removed, and predicts the slot id', () => {
    const c = composeReaction({ chatId: 'c', targetMessageId: 'msg-t', emoji: '👍' }, 'any', 'usr_me', 'rxn-1');
    assert.deepEqual(c.frame.payload, { target_message_id: 'msg-t', emoji: '👍', removed: false });
    assert.equal(c.messageId, 'rxn:msg-t:usr_me');
    assert.equal((composeReaction({ chatId: 'c', targetMessageId: 't', emoji: '', removed: true }, 'any', 'u', 'r').frame.payload as { removed: boolean }).removed, true);
  });

  it('refuses empty, invalid or oversized emoji', () => {
    const zwj = '👩‍👩‍👧‍👦';
    assert.doesNotThrow(() => composeReaction({ chatId: 'c', targetMessageId: 't', emoji: zwj }, 'any', 'u', 'r'));
    for (const emoji of ['', '\uD800', '😀'.repeat(17)]) {
      assert.throws(() => composeReaction({ chatId: 'c', targetMessageId: 't', emoji }, 'any', 'u', 'r'), code('BAD_EMOJI'));
    }
  });
});
