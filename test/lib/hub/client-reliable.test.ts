import assert from 'node:assert/strict';
import { QUARANTINE_QUEUE, type HubClient } from '../../../lib/hub';
import { openStore } from '../../../lib/store';
import { ALICE, BOB, CHAT, collect, eventually, Harness, next, when } from './support/harness';

describe('HubClient: reliable delivery', () => {
  const h = new Harness();
  afterEach(() => h.cleanup());

  const device = (userId: string) => h.hub.admin.devices().find((d) => d.user_id === userId);
  /** The hub has every frame of the live connection acked. */
  const allAcked = (userId: string) => {
    const d = device(userId);
    return d !== undefined && (d.last_dseq ?? 0) > 0 && d.acked_dseq === d.last_dseq;
  };

  describe('v2 (dseq)', () => {
    beforeEach(() => h.start());

    it('acks the highest contiguous dseq with the connection epoch, after the frames are persisted', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB));
      for (let i = 0; i < 5; i++) await alice.send({ chatId: CHAT, text: `m${i}` });
      await eventually(() => allAcked(BOB.id), 3000, 'bob to ack everything');
      const acks = h.hub.admin.received({ user_id: BOB.id, event: 'message.sync_ack' });
      assert.ok(acks.length >= 1);
      for (const a of acks) assert.equal((a.frame?.payload as { epoch: string }).epoch, device(BOB.id)?.ack_epoch);
      assert.equal(h.hub.admin.received({ user_id: BOB.id, event: 'message.cursor_ack' }).length, 0, 'v2 replaces cursor_ack');
      assert.equal(bob.stats().deliveryMode, 'v2');
    });

    it('restarts its dseq baseline and epoch on every hello-ok', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB));
      const epochs = new Set<string>();
      for (let round = 0; round < 3; round++) {
        await alice.send({ chatId: CHAT, text: `round ${round}` });
        await eventually(() => allAcked(BOB.id), 3000, 'acks');
        epochs.add(device(BOB.id)?.ack_epoch as string);
        const back = next(bob, 'replay-done');
        h.hub.admin.dropConnection({ user_id: BOB.id });
        await back;
      }
      assert.equal(epochs.size, 3);
      assert.equal(bob.stats().dseqGaps, 0, 'dseq 1 of each new connection passed the density check');
    });

    it('drops the connection on a dseq gap and loses nothing: replay refills it', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB));
      const got = collect(bob, 'message');
      const warned = next(bob, 'warning', (w) => w.code === 'DSEQ_GAP');
      const sent = [(await alice.send({ chatId: CHAT, text: 'before' })).messageId];
      await when(bob, ['message'], () => got.length === 1);
      h.hub.admin.skipDseq({ user_id: BOB.id });
      const reconnected = next(bob, 'replay-done');
      sent.push((await alice.send({ chatId: CHAT, text: 'after the gap' })).messageId);
      const w = await warned;
      assert.deepEqual([w.details?.expected, w.details?.got], [(w.details?.expected as number), (w.details?.expected as number) + 1]);
      await reconnected;
      await when(bob, ['message'], () => got.length === 2);
      assert.deepEqual(got.map((m) => m.messageId), sent);
      assert.equal(bob.stats().dseqGaps, 1);
    });

    it('loses nothing when the hub drops the connection after a given number of frames', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB));
      const got = collect(bob, 'message');
      h.hub.admin.dropConnection({ user_id: BOB.id }, { after_frames: 2 });
      const sent: string[] = [];
      for (let i = 0; i < 6; i++) sent.push((await alice.send({ chatId: CHAT, text: `n${i}` })).messageId);
      await when(bob, ['message'], () => got.length === 6);
      assert.deepEqual(got.map((m) => m.messageId), sent);
      assert.equal(bob.stats().connections, 2);
    });

    it('acks a dseq-bearing frame whose event it does not know', async () => {
      const bob = await h.connected(h.client(BOB));
      const unknown = next(bob, 'unknown');
      h.hub.admin.sendUnknownEvent({ user_id: BOB.id }, { event: 'brand.new.event' });
      const u = await unknown;
      assert.ok(typeof u.dseq === 'number');
      await eventually(() => device(BOB.id)?.acked_dseq === u.dseq, 3000, 'the unknown frame to be acked');
    });

    for (const shape of ['body', 'payload'] as const) {
      it(`quarantines a poison frame (${shape}), acks it and goes on`, async () => {
        const alice = await h.connected(h.client(ALICE));
        const bob = await h.connected(h.client(BOB));
        const quarantined = collect(bob, 'quarantine');
        const warnings = collect(bob, 'warning');
        const got = collect(bob, 'message');
        h.hub.admin.sendPoisonFrame({ user_id: BOB.id, shape, chat_id: CHAT });
        const after = await alice.send({ chatId: CHAT, text: 'still flowing' });
        await when(bob, ['message'], () => got.length === 1);
        assert.equal(got[0].messageId, after.messageId);
        assert.equal(quarantined.length, 1);
        assert.equal(quarantined[0].event, 'message.send');
        assert.ok(typeof quarantined[0].dseq === 'number');
        assert.deepEqual(warnings.map((w) => w.code), ['FRAME_QUARANTINED']);
        await eventually(() => allAcked(BOB.id), 3000, 'the poison frame to be acked');
        const records = bob.store.queue(QUARANTINE_QUEUE).peek();
        assert.equal(records.length, 1);
        const record = JSON.parse(String(records[0].value)) as { raw: string; reason: string };
        assert.match(record.raw, /usr_poison/);
        assert.match(record.reason, /is not an object/);
        // Acked means gone for good: a reconnect does not bring the poison back.
        const back = next(bob, 'replay-done');
        h.hub.admin.dropConnection({ user_id: BOB.id });
        await back;
        await bob.idle();
        assert.equal(quarantined.length, 1);
        assert.equal(bob.stats().quarantined, 1);
      });
    }

    it('flushes the ack right after replay.done, without waiting for the debounce', async () => {
      const alice = await h.connected(h.client(ALICE));
      for (let i = 0; i < 3; i++) await alice.send({ chatId: CHAT, text: `backlog ${i}` });
      const bob = await h.connected(h.client(BOB, { ackDebounceMs: 60_000, ackEagerWindow: 10_000 }));
      await eventually(() => allAcked(BOB.id), 2000, 'the replay.done flush');
      assert.ok(bob.stats().acksSent >= 1);
    });

    it('flushes the ack on a graceful stop, so the next connection replays nothing', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB, { ackDebounceMs: 60_000, ackEagerWindow: 10_000 }));
      const got = collect(bob, 'message');
      for (let i = 0; i < 3; i++) await alice.send({ chatId: CHAT, text: `live ${i}` });
      await when(bob, ['message'], () => got.length === 3);
      assert.equal(allAcked(BOB.id), false, 'not acked yet (debounce of 60 s)');
      await bob.stop();
      const again = h.client(BOB);
      const replayed = collect(again, 'frame');
      await h.connected(again);
      assert.deepEqual(replayed.map((f) => f.event), ['replay.done']);
    });

    it('never acks what it could not persist, and backs off instead of spinning while the store is broken', async () => {
      const alice = await h.connected(h.client(ALICE));
      const store = openStore(':memory:');
      const bob: HubClient = await h.connected(h.client(BOB, { store }));
      const got = collect(bob, 'message');
      await alice.send({ chatId: CHAT, text: 'persisted' });
      await when(bob, ['message'], () => got.length === 1);
      await eventually(() => allAcked(BOB.id), 3000, 'first ack');
      const before = device(BOB.id)?.acked_dseq;
      const failing = next(bob, 'warning', (w) => w.code === 'STORE_FAILED');
      store.close();
      await alice.send({ chatId: CHAT, text: 'cannot be persisted' });
      await failing;
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(got.length, 1, 'not reported either');
      assert.ok(h.hub.admin.inbox(BOB.id).length >= 1);
      assert.equal(h.hub.admin.received({ user_id: BOB.id, event: 'message.sync_ack' }).every((a) => ((a.frame?.payload as { dseq: number }).dseq ?? 0) <= (before ?? 0)), true);
      await when(bob, ['state'], () => bob.status().attempt >= 3);
      const s = await next(bob, 'state', (x) => x.state === 'backoff');
      assert.ok(s.attempt >= 3, 'the attempt count keeps growing across hello-oks while nothing can be persisted');
    });

    it('keeps the unacked window well under 4096 while draining a large replay', async function () {
      this.timeout(30_000);
      const alice = await h.connected(h.client(ALICE, { maxInFlight: 256 }));
      await Promise.all(Array.from({ length: 5000 }, (_, i) => alice.send({ chatId: CHAT, text: `bulk ${i}` })));
      const kicks: string[] = [];
      h.hub.admin.on('kick', (k) => kicks.push(k.reason));
      const bob = h.client(BOB);
      const got = collect(bob, 'message');
      const done = next(bob, 'replay-done', () => true, 25_000);
      bob.start();
      await done;
      assert.equal(got.length, 5000);
      assert.deepEqual(kicks, []);
      await eventually(() => allAcked(BOB.id), 3000, 'the last ack');
    });
  });

  describe('v1 (storage seq)', () => {
    beforeEach(() => h.start({ settings: { reliability: { v1: true, v2: false } } }));

    it('falls back to message.cursor_ack with the highest persisted seq when v2 is not granted', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB));
      assert.equal(bob.stats().deliveryMode, 'v1');
      const got = collect(bob, 'message');
      for (let i = 0; i < 4; i++) await alice.send({ chatId: CHAT, text: `v1 ${i}` });
      await when(bob, ['message'], () => got.length === 4);
      const highest = Math.max(...got.map((m) => m.seq as number));
      await eventually(
        () => h.hub.admin.received({ user_id: BOB.id, event: 'message.cursor_ack' }).some((a) => (a.frame?.payload as { seq: number }).seq === highest),
        3000,
        'a cursor_ack of the highest seq',
      );
      assert.equal(h.hub.admin.received({ user_id: BOB.id, event: 'message.sync_ack' }).length, 0);
    });

    it('reports history.truncated when the inbox was pruned past its cursor, and takes what remains', async () => {
      const alice = await h.connected(h.client(ALICE));
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await alice.send({ chatId: CHAT, text: `old ${i}` })).messageId);
      h.hub.admin.prune(BOB.id, { keep_last: 2 });
      const bob = h.client(BOB);
      const truncated = next(bob, 'history-truncated');
      const got = collect(bob, 'message');
      await h.connected(bob);
      assert.equal(typeof (await truncated).oldestSeq, 'number');
      assert.deepEqual(got.map((m) => m.messageId), ids.slice(3));
    });
  });

  describe('legacy', () => {
    beforeEach(() => h.start());

    it('sends no acks at all and still receives everything', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB, { reliability: 'legacy' }));
      assert.equal(bob.stats().deliveryMode, 'legacy');
      const got = collect(bob, 'message');
      for (let i = 0; i < 3; i++) await alice.send({ chatId: CHAT, text: `legacy ${i}` });
      await when(bob, ['message'], () => got.length === 3);
      await bob.stop();
      assert.equal(h.hub.admin.received({ user_id: BOB.id, event: 'message.sync_ack' }).length, 0);
      assert.equal(h.hub.admin.received({ user_id: BOB.id, event: 'message.cursor_ack' }).length, 0);
      assert.equal(device(BOB.id), undefined);
    });

    it('uses v1 when the client advertises only reliable_delivery', async () => {
      const bob = await h.connected(h.client(BOB, { reliability: 'v1' }));
      assert.equal(bob.stats().deliveryMode, 'v1');
      assert.equal(device(BOB.id)?.ack_mode, 'seq');
    });
  });
});
