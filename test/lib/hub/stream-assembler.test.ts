import assert from 'node:assert/strict';
import { StreamAssembler, type StreamFrame } from '../../../lib/hub/stream-assembler';

const frame = (payload: Record<string, unknown>): StreamFrame => ({
  messageId: 'm1',
  chatId: 'c',
  sender: { id: 'agt_bot', type: 'direct', nickName: 'Bot' },
  originDeviceId: undefined,
  fromSelf: false,
  payload: { message_id: 'm1', ...payload },
});
const add = (sequence: number, text: string, delta: string | undefined) => frame({ sequence, fragments: [{ kind: 'text', text, ...(delta === undefined ? {} : { delta }) }] });

describe('StreamAssembler', () => {
  it('follows a stream that keeps the delta invariant', () => {
    const s = new StreamAssembler(() => 0);
    assert.equal(s.created(frame({ message_mode: 'thinking' })).mode, 'thinking');
    const a0 = s.add(add(0, 'Thinking ', 'Thinking '));
    const a1 = s.add(add(1, 'Thinking hard', 'hard'));
    assert.deepEqual([a0.consistent, a1.consistent, a1.text, a1.delta, a1.isNormalMode], [true, true, 'Thinking hard', 'hard', false]);
    const done = s.end(frame({ fragments: [{ kind: 'text', text: 'Thinking hard' }], streaming: { status: 'done', sequence: 1 } }), 'done');
    assert.deepEqual([done.phase, done.text, done.sequence, done.consistent], ['done', 'Thinking hard', 1, true]);
    assert.equal(s.size, 0);
  });

  it('flags a broken delta, a missing delta and a skipped sequence', () => {
    const s = new StreamAssembler(() => 0);
    s.created(frame({}));
    assert.equal(s.add(add(0, 'ab', 'a')).consistent, false);
    s.created(frame({}));
    assert.equal(s.add(add(0, 'a', undefined)).consistent, false);
    s.created(frame({}));
    s.add(add(0, 'a', 'a'));
    assert.equal(s.add(add(2, 'ab', 'b')).consistent, false);
  });

  it('joins a stream already under way without judging what came before', () => {
    const s = new StreamAssembler(() => 0);
    const late = s.add(add(5, 'Hello, world', ', world'));
    assert.equal(late.consistent, true);
    assert.equal(s.add(add(6, 'Hello, world!', '!')).consistent, true);
    assert.equal(s.add(add(7, 'Hello, world!?', 'x')).consistent, false);
  });

  it('stays bounded and forgets idle streams', () => {
    let now = 0;
    const s = new StreamAssembler(() => now, 3, 1000);
    for (let i = 0; i < 5; i++) s.created({ ...frame({}), messageId: `m${i}` });
    assert.equal(s.size, 3);
    now = 5000;
    s.created({ ...frame({}), messageId: 'fresh' });
    assert.equal(s.size, 1);
  });
});
