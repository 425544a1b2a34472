/**
 * What a send returns and carries: the ids fixed up front, the `queued` promise of the durable moment, the caller's
 * tag kept in the outbox (echoed in `queued`, `ack`, `rejected`, and after a restart from the same store file), and
 * the details of SEND_REJECTED / SEND_EXPIRED. Against the dev hub over real sockets.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HubError, ManualClock, MESSAGE_ID_PATTERN, SEND_TAG_MAX_BYTES, type SendQueued } from '../../../lib/hub';
import { openStore } from '../../../lib/store';
import { ALICE, CAROL, CHAT, collect, GROUP, Harness, next } from './support/harness';

const code = (c: string) => (e: unknown) => e instanceof HubError && e.code === c;

describe('HubClient: send handles, tags and error details', () => {
  const h = new Harness();
  beforeEach(() => h.start());
  afterEach(() => h.cleanup());

  it('gives the message id and trace id at once, then the durable moment, then the answer with the same ids', async () => {
    const alice = await h.connected(h.client(ALICE));
    const order: string[] = [];
    alice.on('queued', () => order.push('queued event'));
    const handle = alice.send({ chatId: CHAT, text: 'hi', tag: 'first' });
    assert.match(String(handle.messageId), MESSAGE_ID_PATTERN);
    assert.match(String(handle.traceId), /./);
    assert.equal(alice.pendingSends().length, 0, 'not durable yet: staged for this turn');
    const queued = handle.queued.then((q) => {
      order.push('queued promise');
      assert.equal(alice.pendingSends()[0]?.messageId, handle.messageId, 'durable when queued resolves');
      return q;
    });
    const ack = await handle;
    order.push('ack');
    const q = (await queued) as SendQueued;
    assert.deepEqual([q.messageId, q.traceId, q.chatId, q.event, q.tag], [handle.messageId, handle.traceId, CHAT, 'message.send', 'first']);
    assert.deepEqual([ack.messageId, ack.traceId, ack.tag], [handle.messageId, handle.traceId, 'first']);
    assert.deepEqual(order, ['queued event', 'queued promise', 'ack']);
  });

  it('names a reaction by its slot id and a stream finalize by the stream id', async () => {
    const alice = await h.connected(h.client(ALICE));
    const target = await alice.send({ chatId: CHAT, text: 'react to me' });
    const reaction = alice.react({ chatId: CHAT, targetMessageId: target.messageId, emoji: '👍', tag: { n: 1 } });
    assert.equal(reaction.messageId, `rxn:${target.messageId}:${ALICE.id}`);
    const ack = await reaction;
    assert.deepEqual([ack.messageId, ack.tag], [reaction.messageId, { n: 1 }]);

    const writer = alice.openStream({ chatId: CHAT });
    writer.append('streamed');
    writer.done();
    const finalize = writer.finalize({ tag: 'final' });
    assert.equal(finalize.messageId, writer.messageId);
    assert.equal((await finalize).tag, 'final');
  });

  it('resolves queued with undefined when a send is refused before it is durable, with the ids known by then', async () => {
    const alice = h.client(ALICE, { outboxCapacity: 1 });
    const bad = alice.send({ chatId: CHAT });
    assert.equal(bad.messageId, undefined, 'refused while composing: no id was fixed');
    assert.equal(await bad.queued, undefined);
    await assert.rejects(bad, code('BAD_ARGUMENT'));

    const kept = alice.send({ chatId: CHAT, text: 'fits' });
    const full = alice.send({ chatId: CHAT, text: 'does not fit' });
    assert.match(String(full.messageId), MESSAGE_ID_PATTERN, 'composed, then refused');
    assert.equal(await full.queued, undefined);
    await assert.rejects(full, code('OUTBOX_FULL'));
    assert.equal((await kept.queued)?.messageId, kept.messageId);
    await h.connected(alice);
    await kept;
  });

  it('refuses a tag that is not small plain JSON, and queues nothing', async () => {
    const alice = h.client(ALICE);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const tag of [() => 1, Number.NaN, 10n, new Date(0), cyclic, [undefined], 'x'.repeat(SEND_TAG_MAX_BYTES)]) {
      const handle = alice.send({ chatId: CHAT, text: 'x', tag: tag as never });
      assert.equal(await handle.queued, undefined);
      await assert.rejects(handle, code('BAD_ARGUMENT'), String(typeof tag));
    }
    const edge = alice.send({ chatId: CHAT, text: 'x', tag: 'y'.repeat(SEND_TAG_MAX_BYTES - 2) });
    assert.equal((await edge.queued)?.tag, 'y'.repeat(SEND_TAG_MAX_BYTES - 2), 'exactly 1 KiB of JSON fits');
    assert.equal(alice.pendingSends().length, 1);
  });

  it('keeps the tag with a send across a restart from the same store file, and echoes it with the late ack', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawling-tag-'));
    const file = path.join(dir, 'hub.sqlite');
    try {
      let store = openStore(file);
      const first = h.client(ALICE, { store });
      // Never connected: the send waits in the outbox, and its promise dies with this client.
      const handle = first.send({ chatId: CHAT, text: 'across a restart', tag: { node: 'n1', msgid: 'abc' } });
      const queued = await handle.queued;
      assert.deepEqual(queued?.tag, { node: 'n1', msgid: 'abc' });
      await first.stop();
      await assert.rejects(handle, (e: unknown) => code('CLIENT_STOPPED')(e) && (e as HubError).details?.durable === true);
      store.close();

      store = openStore(file);
      const second = h.client(ALICE, { store });
      assert.deepEqual(second.pendingSends().map((e) => [e.messageId, e.tag]), [[handle.messageId, { node: 'n1', msgid: 'abc' }]]);
      const ack = next(second, 'ack');
      await h.connected(second);
      const a = await ack;
      assert.deepEqual([a.messageId, a.traceId, a.tag], [handle.messageId, handle.traceId, { node: 'n1', msgid: 'abc' }]);
      await second.stop();
      store.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('puts the hub’s rejected_at, the chat and the tag on SEND_REJECTED and on the rejected event', async () => {
    const carol = await h.connected(h.client(CAROL));
    const rejected = next(carol, 'rejected');
    const handle = carol.send({ chatId: CHAT, text: 'not a member', tag: 't-1' });
    const err = await handle.then(
      () => assert.fail('accepted'),
      (e: unknown) => e as HubError,
    );
    assert.equal(err.code, 'SEND_REJECTED');
    const d = err.details as Record<string, unknown>;
    assert.deepEqual([d.serverCode, d.chatId, d.messageId, d.traceId, d.event, d.tag], ['not_member', CHAT, handle.messageId, handle.traceId, 'message.send', 't-1']);
    assert.equal(typeof d.rejectedAt, 'number');
    const r = await rejected;
    assert.deepEqual([r.rejectedAt, r.tag, r.matched], [d.rejectedAt, 't-1', true]);
    assert.equal(h.hub.admin.received({ user_id: CAROL.id, event: 'message.send' }).length, 1);
  });

  it('puts the chat id, the event and the tag on SEND_EXPIRED', async () => {
    const clock = new ManualClock(Date.now());
    const alice = await h.connected(h.client(ALICE, { clock, sendExpiryMs: 60_000 }));
    h.hub.admin.withholdAcks({ user_id: ALICE.id });
    const rejected = collect(alice, 'rejected');
    const handle = alice.send({ chatId: GROUP, text: 'nobody answers', tag: 'late' });
    await handle.queued;
    clock.advance(60_000);
    const err = await handle.then(
      () => assert.fail('acked'),
      (e: unknown) => e as HubError,
    );
    assert.equal(err.code, 'SEND_EXPIRED');
    const d = err.details as Record<string, unknown>;
    assert.deepEqual([d.chatId, d.event, d.messageId, d.traceId, d.tag, d.rejectedAt], [GROUP, 'message.send', handle.messageId, handle.traceId, 'late', clock.now()]);
    assert.deepEqual(rejected.map((r) => [r.origin, r.code, r.chatId, r.tag]), [['client', 'expired', GROUP, 'late']]);
  });

  it('reports no tag for a send given none', async () => {
    const alice = await h.connected(h.client(ALICE));
    const queued = collect(alice, 'queued');
    const ack = await alice.send({ chatId: CHAT, text: 'plain' });
    assert.equal('tag' in ack, false);
    assert.equal('tag' in queued[0], false);
  });
});
