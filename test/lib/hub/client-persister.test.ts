/**
 * Inbound persisters: a consumer's durable write inside the inbox commit of each reported message. Against the dev
 * hub over real sockets, with real stores. (The crash window they close is proven with a SIGKILLed gateway child in
 * test/gateway/hub/hub-to-mesh-kill.test.ts.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HubError, QUARANTINE_QUEUE, type InboundMessage } from '../../../lib/hub';
import { openStore } from '../../../lib/store';
import { ALICE, BOB, CHAT, collect, eventually, Harness, next, when } from './support/harness';

describe('HubClient: inbound persisters', () => {
  const h = new Harness();
  beforeEach(() => h.start());
  afterEach(() => h.cleanup());

  const device = (userId: string) => h.hub.admin.devices().find((d) => d.user_id === userId);
  const allAcked = (userId: string) => {
    const d = device(userId);
    return d !== undefined && (d.last_dseq ?? 0) > 0 && d.acked_dseq === d.last_dseq;
  };

  it('writes the consumer’s row in the inbox commit and runs its follow-up before the message listeners', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawling-persister-'));
    const store = openStore(path.join(dir, 'bob.sqlite'));
    try {
      const alice = await h.connected(h.client(ALICE));
      const bob = h.client(BOB, { store });
      const jobs = store.queue('app.jobs');
      const order: string[] = [];
      bob.addInboundPersister((m, tx) => {
        assert.equal(tx.store, store);
        tx.store.queue('app.jobs').push(m.messageId);
        order.push(`persist ${m.text}`);
        tx.afterCommit(() => {
          // Committed by now: the inbox row and the consumer's row alike.
          assert.ok(store.inbox.get(m.messageId));
          assert.equal(jobs.peek().at(-1)?.value, m.messageId);
          order.push(`after commit ${m.text}`);
        });
      });
      bob.on('message', (m) => order.push(`message ${m.text}`));
      await h.connected(bob);
      const first = await alice.send({ chatId: CHAT, text: 'one' });
      const second = await alice.send({ chatId: CHAT, text: 'two' });
      await when(bob, ['message'], () => order.filter((o) => o.startsWith('message')).length === 2);
      assert.deepEqual(order, ['persist one', 'after commit one', 'message one', 'persist two', 'after commit two', 'message two']);
      assert.deepEqual(jobs.peek().map((r) => r.value), [first.messageId, second.messageId]);
      await eventually(() => allAcked(BOB.id), 3000, 'bob to ack both');
      await bob.stop();
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is not called for a replayed duplicate, so a consumer writes each message once', async () => {
    const alice = await h.connected(h.client(ALICE));
    const bob = h.client(BOB);
    const persisted: string[] = [];
    bob.addInboundPersister((m) => {
      persisted.push(m.messageId);
    });
    await h.connected(bob);
    const sent = await alice.send({ chatId: CHAT, text: 'once' });
    await eventually(() => persisted.length === 1, 3000, 'the message persisted');
    // The device cursor goes back to the start: the hub sends everything again, the inbox recognises it.
    const frames = collect(bob, 'frame');
    const replayed = next(bob, 'replay-done');
    await bob.resetCursor({ clearLocal: false });
    await replayed;
    await bob.idle();
    assert.ok(frames.some((f) => f.messageId === sent.messageId && f.replay), 'the hub sent it again');
    assert.deepEqual(persisted, [sent.messageId]);
  });

  it('rolls back and quarantines a frame whose persister throws (inbox row included), skips its follow-ups, and goes on', async () => {
    const alice = await h.connected(h.client(ALICE));
    const bob = h.client(BOB);
    const followUps: string[] = [];
    bob.addInboundPersister((m, tx) => {
      tx.afterCommit(() => followUps.push(m.text));
      tx.store.queue('app.jobs').push(m.text);
      if (m.text === 'poison') throw new Error('the consumer cannot take this one');
    });
    const got = collect(bob, 'message');
    const quarantined = collect(bob, 'quarantine');
    const warnings = collect(bob, 'warning');
    await h.connected(bob);
    const poison = await alice.send({ chatId: CHAT, text: 'poison' });
    const fine = await alice.send({ chatId: CHAT, text: 'fine' });
    await when(bob, ['message'], () => got.length === 1);
    assert.deepEqual(got.map((m: InboundMessage) => m.messageId), [fine.messageId]);
    assert.deepEqual(followUps, ['fine'], 'the follow-up of the rolled back frame never ran');
    assert.equal(bob.store.inbox.get(poison.messageId), undefined, 'its inbox row was rolled back with it');
    assert.deepEqual(bob.store.queue('app.jobs').peek().map((r) => r.value), ['fine'], 'and so was the consumer’s row');
    assert.deepEqual(quarantined.map((q) => q.event), ['message.send']);
    assert.match(quarantined[0].reason, /the consumer cannot take this one/);
    assert.deepEqual(warnings.map((w) => w.code), ['FRAME_QUARANTINED']);
    const records = bob.store.queue(QUARANTINE_QUEUE).peek();
    assert.equal(records.length, 1);
    assert.match(JSON.parse(String(records[0].value)).raw as string, new RegExp(poison.messageId));
    await eventually(() => allAcked(BOB.id), 3000, 'both frames acked (the quarantined one too)');
  });

  it('refuses a persister that returns a promise (its writes would miss the transaction)', async () => {
    const alice = await h.connected(h.client(ALICE));
    const bob = h.client(BOB);
    const persister = ((): Promise<void> => Promise.resolve()) as unknown as () => void;
    bob.addInboundPersister(persister);
    const quarantined = collect(bob, 'quarantine');
    await h.connected(bob);
    await alice.send({ chatId: CHAT, text: 'async' });
    await when(bob, ['quarantine'], () => quarantined.length === 1);
    assert.match(quarantined[0].reason, /must be synchronous/);
  });

  it('stops calling a persister once it is removed, and checks what it is given', async () => {
    const alice = await h.connected(h.client(ALICE));
    const bob = h.client(BOB);
    const seen: string[] = [];
    const remove = bob.addInboundPersister((m) => {
      seen.push(m.text);
    });
    const got = collect(bob, 'message');
    await h.connected(bob);
    await alice.send({ chatId: CHAT, text: 'before' });
    await when(bob, ['message'], () => got.length === 1);
    remove();
    await alice.send({ chatId: CHAT, text: 'after' });
    await when(bob, ['message'], () => got.length === 2);
    assert.deepEqual(seen, ['before']);
    assert.throws(
      () => bob.addInboundPersister('nope' as unknown as () => void),
      (e: unknown) => e instanceof HubError && e.code === 'BAD_ARGUMENT',
    );
  });
});
