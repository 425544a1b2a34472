import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HubError, ManualClock } from '../../../lib/hub';
import { Outbox, OUTBOX_QUEUE, wireText } from '../../../lib/hub/send/outbox';
import { openStore } from '../../../lib/store';

const record = (n: number, extra: { expiresAt?: number } = {}) => ({
  messageId: `msg-${String(n).padStart(26, '0')}`,
  traceId: `trc-${n}`,
  event: 'message.send',
  chatId: 'c',
  frame: { version: '2', event: 'message.send', trace_id: `trc-${n}`, chat_id: 'c', payload: { message_id: `m${n}` } },
  createdAt: 1000 + n,
  expiresAt: extra.expiresAt,
});

describe('Outbox', () => {
  const options = { capacity: 5, ackTimeoutMs: 1000, maxInFlight: 2 };

  it('sends oldest first within the in-flight window, and re-sends overdue ones with the same ids', () => {
    const clock = new ManualClock();
    const outbox = new Outbox(openStore(':memory:'), clock, options);
    for (let n = 1; n <= 3; n++) outbox.add(record(n));
    const first = outbox.takeSendable();
    assert.deepEqual(first.map((e) => e.traceId), ['trc-1', 'trc-2']);
    assert.deepEqual(outbox.takeSendable(), [], 'window full');
    assert.equal(outbox.nextDeadline(), clock.now() + 1000);
    clock.advance(999);
    assert.deepEqual(outbox.requeueOverdue(), []);
    clock.advance(1);
    assert.deepEqual(outbox.requeueOverdue().map((e) => e.traceId), ['trc-1', 'trc-2']);
    const again = outbox.takeSendable();
    assert.deepEqual(again.map((e) => [e.traceId, e.messageId, e.attempts]), [
      ['trc-1', first[0].messageId, 2],
      ['trc-2', first[1].messageId, 2],
    ]);
  });

  it('settles by trace id or message id, and frees the window', () => {
    const clock = new ManualClock();
    const store = openStore(':memory:');
    const outbox = new Outbox(store, clock, options);
    for (let n = 1; n <= 3; n++) outbox.add(record(n));
    outbox.takeSendable();
    const e1 = outbox.byTrace('trc-1');
    assert.ok(e1);
    assert.equal(outbox.byMessageId(record(2).messageId)?.traceId, 'trc-2');
    outbox.removeDurable(e1);
    outbox.forget(e1);
    assert.equal(outbox.size, 2);
    assert.equal(outbox.inFlight, 1);
    assert.deepEqual(outbox.takeSendable().map((e) => e.traceId), ['trc-3']);
    assert.equal(store.queue(OUTBOX_QUEUE).size(), 2);
  });

  it('refuses a send when full, keeping what it has', () => {
    const outbox = new Outbox(openStore(':memory:'), new ManualClock(), options);
    for (let n = 1; n <= 5; n++) outbox.add(record(n));
    assert.throws(() => outbox.add(record(6)), (e: unknown) => e instanceof HubError && e.code === 'OUTBOX_FULL');
    assert.equal(outbox.size, 5);
  });

  it('puts everything back to sendable when the connection ends', () => {
    const outbox = new Outbox(openStore(':memory:'), new ManualClock(), options);
    for (let n = 1; n <= 3; n++) outbox.add(record(n));
    outbox.takeSendable();
    outbox.requeueAll();
    assert.equal(outbox.inFlight, 0);
    assert.deepEqual(outbox.takeSendable().map((e) => e.traceId), ['trc-1', 'trc-2']);
  });

  it('reports expired entries in order', () => {
    const clock = new ManualClock(0);
    const outbox = new Outbox(openStore(':memory:'), clock, options);
    outbox.add(record(1, { expiresAt: 500 }));
    outbox.add(record(2, { expiresAt: 900 }));
    assert.equal(outbox.nextDeadline(), 500);
    clock.advance(600);
    assert.deepEqual(outbox.expired().map((e) => e.traceId), ['trc-1']);
  });

  it('survives a restart of the process with the same ids, dropping unreadable rows', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawling-outbox-'));
    try {
      const file = path.join(dir, 'o.sqlite');
      let store = openStore(file);
      const before = new Outbox(store, new ManualClock(), options);
      before.add(record(1));
      before.add(record(2));
      store.queue(OUTBOX_QUEUE).push('not json');
      store.close();
      store = openStore(file);
      const after = new Outbox(store, new ManualClock(), options);
      assert.equal(after.unreadable, 1);
      assert.deepEqual(after.list().map((e) => [e.traceId, e.messageId, e.frame.trace_id]), [
        ['trc-1', record(1).messageId, 'trc-1'],
        ['trc-2', record(2).messageId, 'trc-2'],
      ]);
      store.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it('puts on the wire, before and after a restart, the very text of the frame with emitted_at last', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawling-outbox-wire-'));
    try {
      const file = path.join(dir, 'o.sqlite');
      const frame = { version: '2', event: 'message.send', trace_id: 'trc-9', payload: { message_id: 'm9', text: 'é "q" \u2028' }, chat_id: 'c', to: { id: 'c', type: 'group' } };
      const expected = (at: number): string => JSON.stringify({ ...frame, emitted_at: at });
      const first = openStore(file);
      const outbox = new Outbox(first, new ManualClock(), options);
      // The caller's JSON of the frame is what is stored and stamped; without it, the outbox makes it.
      const entry = outbox.add({ ...record(9, { expiresAt: 5000 }), frame, frameJson: JSON.stringify(frame), tag: { n: 1, s: null } });
      const bare = outbox.add({ ...record(10), frame: { ...frame, trace_id: 'trc-10' } });
      assert.equal(wireText(entry, 1_764_700_000_123), expected(1_764_700_000_123));
      assert.equal(wireText(bare, 7), JSON.stringify({ ...frame, trace_id: 'trc-10', emitted_at: 7 }));
      await first.sync();
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(outbox.list().length, 2);
      assert.equal(Object.keys(outbox.list()[0]).includes('frameJson'), false, 'the JSON is not part of what pendingSends lists');
      first.close();
      const again = new Outbox(openStore(file), new ManualClock(), options);
      const [back] = again.takeSendable();
      assert.deepEqual(back.frame, frame);
      assert.equal(back.expiresAt, 5000);
      assert.deepEqual(back.tag, { n: 1, s: null });
      assert.equal(back.createdAt, record(9).createdAt);
      assert.equal(wireText(back, 1_764_700_000_999), expected(1_764_700_000_999));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
