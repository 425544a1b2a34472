import assert from 'node:assert/strict';
import { ManualClock } from '../../../lib/hub';
import { AckScheduler } from '../../../lib/hub/receive/ack-scheduler';

function setup(connected = true) {
  const clock = new ManualClock();
  const sent: Array<{ mode: string; value: number; epoch: string | undefined; at: number }> = [];
  const link = { up: connected };
  const ack = new AckScheduler(clock, { debounceMs: 200, resendMs: 30_000, eagerWindow: 128 }, (mode, value, epoch) => {
    if (!link.up) return false;
    sent.push({ mode, value, epoch, at: clock.now() });
    return true;
  });
  return { clock, sent, ack, link };
}

describe('AckScheduler', () => {
  it('acks the highest contiguous dseq 200 ms after it first advances, with the epoch', () => {
    const { clock, sent, ack } = setup();
    ack.begin('v2', 'EPOCH1');
    ack.persistedDseq(1);
    clock.advance(100);
    ack.persistedDseq(2);
    ack.persistedDseq(3);
    assert.equal(sent.length, 0);
    clock.advance(100);
    assert.deepEqual(sent.map((s) => [s.mode, s.value, s.epoch]), [['v2', 3, 'EPOCH1']]);
    clock.advance(1000);
    assert.equal(sent.length, 1, 'nothing new, nothing sent');
  });

  it('never acks past a hole', () => {
    const { clock, sent, ack } = setup();
    ack.begin('v2', 'E');
    ack.persistedDseq(1);
    ack.persistedDseq(3);
    clock.advance(200);
    assert.deepEqual(sent.map((s) => s.value), [1]);
    ack.persistedDseq(2);
    clock.advance(200);
    assert.deepEqual(sent.map((s) => s.value), [1, 3]);
  });

  it('flushes from the frame path when the debounce is overdue, even if no timer ever fires', () => {
    const { clock, sent, ack } = setup();
    ack.begin('v2', 'E');
    // A suspended process: time passes but timers do not run; frames keep arriving.
    const frozen = new ManualClock(clock.now());
    Object.defineProperty(clock, 'now', { value: () => frozen.now() });
    frozen.advance(250);
    ack.persistedDseq(1);
    ack.tick();
    assert.deepEqual(sent.map((s) => s.value), [1], 'the 200 ms since the last ack had passed');
    ack.persistedDseq(2);
    ack.tick();
    assert.deepEqual(sent.map((s) => s.value), [1], 'just acked: the debounce holds');
  });

  it('flushes at once when the unacked window passes the eager threshold', () => {
    const { sent, ack } = setup();
    ack.begin('v2', 'E');
    for (let d = 1; d <= 128; d++) ack.persistedDseq(d);
    ack.tick();
    assert.deepEqual(sent.map((s) => s.value), [128]);
  });

  it('resends the high-water mark every 30 s unconditionally while connected', () => {
    const { clock, sent, ack } = setup();
    ack.begin('v2', 'E');
    ack.persistedDseq(1);
    ack.flush();
    clock.advance(30_000);
    clock.advance(30_000);
    assert.deepEqual(sent.map((s) => s.value), [1, 1, 1]);
    assert.deepEqual(sent.map((s) => s.at - sent[0].at), [0, 30_000, 60_000]);
  });

  it('flush() sends at once (replay.done, graceful disconnect) and only when something advanced', () => {
    const { sent, ack } = setup();
    ack.begin('v2', 'E');
    ack.flush();
    assert.equal(sent.length, 0, 'nothing persisted yet');
    ack.persistedDseq(1);
    ack.flush();
    ack.flush();
    assert.equal(sent.length, 1);
  });

  it('restarts from zero with the new epoch on every hello-ok', () => {
    const { clock, sent, ack } = setup();
    ack.begin('v2', 'E1');
    for (let d = 1; d <= 5; d++) ack.persistedDseq(d);
    ack.flush();
    ack.begin('v2', 'E2');
    assert.equal(ack.highWater, 0);
    ack.persistedDseq(1);
    clock.advance(200);
    assert.deepEqual(sent.map((s) => [s.value, s.epoch]), [
      [5, 'E1'],
      [1, 'E2'],
    ]);
  });

  it('acks the highest v1 seq as an opaque high-water mark, holes and all', () => {
    const { clock, sent, ack } = setup();
    ack.begin('v1', undefined);
    ack.persistedSeq(10);
    ack.persistedSeq(57);
    ack.persistedSeq(31);
    ack.persistedDseq(3);
    clock.advance(200);
    assert.deepEqual(sent.map((s) => [s.mode, s.value]), [['v1', 57]]);
  });

  it('sends nothing on legacy, nothing after end(), and retries when a send fails', () => {
    const { clock, sent, ack, link } = setup();
    ack.begin('legacy', undefined);
    ack.persistedSeq(4);
    ack.persistedDseq(1);
    clock.advance(60_000);
    assert.equal(sent.length, 0);

    ack.begin('v2', 'E');
    link.up = false;
    ack.persistedDseq(1);
    clock.advance(200);
    assert.equal(ack.pending, 1, 'a failed send is not counted as acked');
    link.up = true;
    ack.tick();
    assert.deepEqual(sent.map((s) => s.value), [1]);
    ack.end();
    ack.persistedDseq(2);
    clock.advance(60_000);
    assert.equal(sent.length, 1);
    assert.equal(clock.pending(), 0, 'no timers left behind');
  });
});
