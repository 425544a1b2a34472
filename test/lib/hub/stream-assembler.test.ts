import assert from 'node:assert/strict';
import { StreamAssembler, type StreamFrame } from '../../../lib/hub/receive/stream-assembler';

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
    const s = new StreamAssembler(() => now, { maxStreams: 3, idleMs: 1000 });
    for (let i = 0; i < 5; i++) s.created({ ...frame({}), messageId: `m${i}` });
    assert.equal(s.size, 3);
    now = 5000;
    s.created({ ...frame({}), messageId: 'fresh' });
    assert.equal(s.size, 1);
  });

  describe('memory bounds', () => {
    const grow = (id: string, sequence: number, text: string, delta: string): StreamFrame => ({ ...add(sequence, text, delta), messageId: id });

    it('cuts a stream over its own bound once, lets its text go, and does not let later frames regrow it', () => {
      const s = new StreamAssembler(() => 0, { maxStreamChars: 10, maxTotalChars: 1000 });
      s.created(frame({}));
      assert.equal(s.add(add(0, 'abcdefgh', 'abcdefgh')).cut, undefined);
      assert.equal(s.heldChars, 8);
      assert.deepEqual(s.takeCuts(), []);
      const over = s.add(add(1, 'abcdefghijk', 'ijk'));
      assert.deepEqual([over.cut, over.consistent, over.text, s.heldChars, s.size], ['STREAM_TOO_LARGE', false, 'abcdefghijk', 0, 1]);
      const [cut, ...more] = s.takeCuts();
      assert.deepEqual([cut?.code, cut?.details, more.length], ['STREAM_TOO_LARGE', { messageId: 'm1', chatId: 'c', chars: 11, limit: 10 }, 0]);
      const later = s.add(add(2, 'abcdefghijk' + 'x'.repeat(50), 'x'.repeat(50)));
      assert.deepEqual([later.cut, later.delta?.length, s.heldChars, s.takeCuts().length], ['STREAM_TOO_LARGE', 50, 0, 0]);
      const done = s.end(frame({ fragments: [{ kind: 'text', text: 'final' }], streaming: { status: 'done', sequence: 2 } }), 'done');
      assert.deepEqual([done.cut, done.text, s.size, s.heldChars], ['STREAM_TOO_LARGE', 'final', 0, 0]);
    });

    it('cuts the largest streams when all together hold more than the total bound', () => {
      const s = new StreamAssembler(() => 0, { maxStreamChars: 100, maxTotalChars: 25 });
      s.add(grow('a', 0, 'x'.repeat(5), 'x'.repeat(5)));
      s.add(grow('b', 0, 'x'.repeat(15), 'x'.repeat(15)));
      assert.equal(s.heldChars, 20);
      const c = s.add(grow('c', 0, 'x'.repeat(8), 'x'.repeat(8)));
      assert.equal(c.cut, undefined);
      const cuts = s.takeCuts();
      assert.deepEqual(cuts.map((e) => [e.code, e.details?.messageId, e.details?.chars, e.details?.limit]), [['STREAMS_OVER_BUDGET', 'b', 15, 25]]);
      assert.equal(s.heldChars, 13);
      assert.equal(s.add(grow('b', 1, 'x'.repeat(16), 'x')).cut, 'STREAMS_OVER_BUDGET');
      assert.equal(s.add(grow('a', 1, 'x'.repeat(6), 'x')).consistent, true);
      assert.equal(s.heldChars, 14);
    });

    it('holds no more than the total bound while 300 streams keep growing', () => {
      const s = new StreamAssembler(() => 0, { maxStreams: 512, maxStreamChars: 1000, maxTotalChars: 5000 });
      let peak = 0;
      const texts = new Map<string, string>();
      for (let round = 0; round < 20; round++) {
        for (let i = 0; i < 300; i++) {
          const id = `s${i}`;
          const before = texts.get(id) ?? '';
          const text = before + 'y'.repeat(50);
          texts.set(id, text);
          s.add(grow(id, round, text, 'y'.repeat(50)));
          peak = Math.max(peak, s.heldChars);
        }
      }
      assert.ok(peak <= 5000, `peak ${peak}`);
      assert.ok(s.takeCuts().length > 0);
    });
  });
});
