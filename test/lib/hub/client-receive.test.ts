import assert from 'node:assert/strict';
import { HubError, type InboundMessage } from '../../../lib/hub';
import { ALICE, BOB, CHAT, collect, eventually, GROUP, Harness, next, uplinks, when } from './support/harness';

describe('HubClient: receive path', () => {
  const h = new Harness();
  afterEach(() => h.cleanup());

  describe('messages', () => {
    beforeEach(() => h.start());

    it('reports replayed messages as replay, then replay.done, and deduplicates redeliveries by message_id', async () => {
      const alice = await h.connected(h.client(ALICE));
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await alice.send({ chatId: CHAT, text: `offline ${i}` })).messageId);
      const bob = h.client(BOB);
      const states = collect(bob, 'state');
      const messages = collect(bob, 'message');
      const frames = collect(bob, 'frame');
      const done = next(bob, 'replay-done');
      bob.start();
      const rd = await done;
      assert.equal(rd.fallback, false);
      assert.ok(rd.frames >= 4, 'three messages and replay.done');
      assert.deepEqual(messages.map((m) => [m.messageId, m.replay]), ids.map((id) => [id, true]));
      assert.deepEqual(states.map((s) => s.state), ['connecting', 'replaying', 'connected']);

      assert.equal(frames.filter((f) => f.event === 'replay.done').length, 1);
    });

    it('never reports the same message id twice when the hub replays what was not acked yet', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB, { ackDebounceMs: 10_000, ackEagerWindow: 10_000 }));
      const messages = collect(bob, 'message');
      const sends = collect(bob, 'frame');
      for (let i = 0; i < 5; i++) await alice.send({ chatId: CHAT, text: `m${i}` });
      await when(bob, ['message'], () => messages.length === 5);
      const back = next(bob, 'replay-done');
      h.hub.admin.dropConnection({ user_id: BOB.id });
      await back;
      await bob.idle();
      const deliveries = sends.filter((f) => f.event === 'message.send');
      assert.equal(deliveries.length, 10, 'the hub delivered every message twice');
      assert.equal(deliveries.filter((f) => f.replay).length, 5);
      assert.equal(new Set(messages.map((m) => m.messageId)).size, 5);
      assert.equal(messages.length, 5, 'reported once each');
    });

    it('filters its own echo, reports a sibling device echo as fromSelf without a receipt', async () => {
      const d1 = await h.connected(h.client(ALICE, { deviceId: 'alice-phone' }));
      const d2 = await h.connected(h.client(ALICE, { deviceId: 'alice-laptop' }));
      const bob = await h.connected(h.client(BOB));
      const onD1 = collect(d1, 'message');
      const echo = next(d2, 'message');
      const atBob = next(bob, 'message');
      const ack = await d1.send({ chatId: CHAT, text: 'from my phone' });
      const m = await echo;
      assert.deepEqual([m.messageId, m.fromSelf, m.originDeviceId], [ack.messageId, true, 'alice-phone']);
      await atBob;
      await next(d1, 'delivered');
      await d1.idle();
      assert.equal(onD1.length, 0, 'the sending device never reports its own message');
      assert.equal(h.hub.admin.received({ user_id: ALICE.id, event: 'message.delivered' }).length, 0, 'no receipt for our own messages');
      assert.equal(h.hub.admin.received({ user_id: BOB.id, event: 'message.delivered' }).length, 1);
    });

    it('sends a delivery receipt to the sender for messages from others, replay included', async () => {
      const alice = await h.connected(h.client(ALICE));
      const ack = await alice.send({ chatId: CHAT, text: 'while you were away' });
      const receipt = next(alice, 'delivered');
      await h.connected(h.client(BOB));
      const r = await receipt;
      assert.deepEqual([r.messageId, r.byUserId, r.chatId], [ack.messageId, BOB.id, CHAT]);
      const [uplink] = h.hub.admin.received({ user_id: BOB.id, event: 'message.delivered' });
      assert.deepEqual((uplink.frame as { to: unknown }).to, { id: ALICE.id, type: 'direct' });
    });

    it('reads "" as normal mode, keeps other modes for the caller to skip', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB));
      const got = collect(bob, 'message');
      await alice.send({ chatId: CHAT, text: 'plain', mode: '' });
      await alice.send({ chatId: CHAT, text: 'scratchpad', mode: 'thinking' });
      await alice.send({ chatId: CHAT, text: 'later', mode: 'future_mode' });
      await when(bob, ['message'], () => got.length === 3);
      assert.deepEqual(got.map((m) => [m.mode, m.isNormalMode]), [
        ['normal', true],
        ['thinking', false],
        ['future_mode', false],
      ]);
    });

    it('survives poison mentions, unknown fragment kinds and unknown events', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB));
      const unknown = next(bob, 'unknown');
      const tolerant = next(bob, 'message', (m) => m.sender.id === 'usr_poison');
      const poisonId = h.hub.admin.sendPoisonFrame({ user_id: BOB.id, shape: 'mentions', chat_id: CHAT });
      const m = await tolerant;
      assert.equal(m.messageId, poisonId);
      assert.deepEqual(m.mentions, []);
      assert.equal(m.reply, null);
      h.hub.admin.sendUnknownEvent({ user_id: BOB.id }, { event: 'future.thing', payload: { x: 1 } });
      assert.equal((await unknown).event, 'future.thing');
      const custom = next(bob, 'message', (x) => x.sender.id === ALICE.id);
      await alice.send({ chatId: CHAT, fragments: [{ kind: 'approval_request', text: 'Approve?' }, { kind: 'text', text: 'Approve?' }] });
      const c = await custom;
      assert.deepEqual(c.fragments.map((f) => [f.kind, f.supported]), [
        ['approval_request', false],
        ['text', true],
      ]);
      assert.equal(bob.state, 'connected');
    });

    it('tolerates the deprecated offline.* frames and never answers them', async () => {
      const bob = await h.connected(h.client(BOB));
      const frames = collect(bob, 'frame');
      h.hub.admin.sendRaw({ user_id: BOB.id }, { version: '2', event: 'offline.batch', trace_id: 'o', emitted_at: 1, payload: { messages: [] } });
      h.hub.admin.sendRaw({ user_id: BOB.id }, { version: '2', event: 'offline.done', trace_id: 'o', emitted_at: 1, payload: {} });
      await when(bob, ['frame'], () => frames.length === 2);
      assert.equal(h.hub.admin.received({ user_id: BOB.id, event: 'offline.ack' }).length, 0);
      assert.equal(bob.state, 'connected');
    });

    it('isolates a listener that throws: the warning names it, delivery and acks go on', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB));
      const got = collect(bob, 'message');
      bob.on('message', () => {
        throw new Error('a buggy flow');
      });
      const warned = next(bob, 'warning', (w) => w.code === 'LISTENER_THREW');
      await alice.send({ chatId: CHAT, text: 'one' });
      await alice.send({ chatId: CHAT, text: 'two' });
      assert.match((await warned).message, /a buggy flow/);
      await when(bob, ['message'], () => got.length === 2);
      await eventually(() => {
        const d = h.hub.admin.devices().find((x) => x.user_id === BOB.id);
        return d !== undefined && d.acked_dseq === d.last_dseq;
      }, 3000, 'acks');
    });

    it('upserts: a finalize reply replaces the merged stream reply, and a late provisional reply never overwrites it', async () => {
      await h.hub.stop();
      await h.start({ settings: { stream_merged: true } });
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB));
      const got: InboundMessage[] = collect(bob, 'message');
      const stream = alice.openStream({ chatId: CHAT });
      stream.append('Thinking ');
      stream.append('hard');
      stream.done();
      await when(bob, ['message'], () => got.length === 1);
      assert.deepEqual([got[0].event, got[0].streamMerged, got[0].text, got[0].update], ['message.reply', true, 'Thinking hard', false]);
      await stream.finalize({ text: 'Final answer: 42.' });
      await when(bob, ['message'], () => got.length === 2);
      assert.deepEqual([got[1].messageId, got[1].streamMerged, got[1].text, got[1].update], [stream.messageId, false, 'Final answer: 42.', true]);
    });

    it('keeps the author reply when the merged reply of the same id arrives after it', async () => {
      await h.hub.stop();
      await h.start({ settings: { stream_merged: true, stream_merged_delay_ms: 150 } });
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB));
      const got = collect(bob, 'message');
      const frames = collect(bob, 'frame');
      const stream = alice.openStream({ chatId: CHAT });
      stream.append('draft');
      stream.done();
      await stream.finalize({ text: 'polished' });
      await when(bob, ['frame'], () => frames.some((f) => f.payload.stream_merged === true));
      await bob.idle();
      assert.deepEqual(got.map((m) => [m.text, m.streamMerged]), [['polished', false]], 'the provisional frame arrived and changed nothing');
    });
  });

  describe('streams, reactions, read cursors, typing, presence', () => {
    beforeEach(() => h.start());

    it('follows a stream from another user with the delta invariant checked', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB));
      const events = collect(bob, 'stream');
      const stream = alice.openStream({ chatId: CHAT, mode: 'thinking' });
      stream.append('Hello');
      stream.append(', world');
      stream.done();
      await when(bob, ['stream'], () => events.some((e) => e.phase === 'done'));
      assert.deepEqual(events.map((e) => [e.phase, e.text, e.delta, e.sequence, e.consistent, e.mode]), [
        ['created', '', undefined, undefined, true, 'thinking'],
        ['add', 'Hello', 'Hello', 0, true, 'thinking'],
        ['add', 'Hello, world', ', world', 1, true, 'thinking'],
        ['done', 'Hello, world', undefined, 1, true, 'thinking'],
      ]);
      const [created, add0] = ['message.created', 'message.add'].map((e) => uplinks(h, ALICE.id, e)[0]);
      assert.equal(created.payload.message_id, stream.messageId);
      assert.equal(add0.payload.sequence, 0);
      assert.deepEqual(add0.payload.fragments, [{ kind: 'text', text: 'Hello', delta: 'Hello' }]);
      assert.throws(() => stream.append('more'), (e: unknown) => e instanceof HubError && e.code === 'STREAM_CLOSED');
    });

    it('cuts a received stream over streamMaxChars: one STREAM_TOO_LARGE warning, later frames flagged cut', async () => {
      const alice = await h.connected(h.client(ALICE));
      const logged: unknown[] = [];
      const bob = await h.connected(h.client(BOB, { streamMaxChars: 20, logger: { warn: (_m, fields) => logged.push(fields?.code) } }));
      const events = collect(bob, 'stream');
      const warnings = collect(bob, 'warning');
      const stream = alice.openStream({ chatId: CHAT });
      stream.append('0123456789');
      stream.append('0123456789');
      stream.append('overflow');
      stream.append('more');
      stream.done();
      await when(bob, ['stream'], () => events.some((e) => e.phase === 'done'));
      assert.deepEqual(events.map((e) => [e.phase, e.cut ?? null]), [
        ['created', null],
        ['add', null],
        ['add', null],
        ['add', 'STREAM_TOO_LARGE'],
        ['add', 'STREAM_TOO_LARGE'],
        ['done', 'STREAM_TOO_LARGE'],
      ]);
      assert.equal(events[5].text, '01234567890123456789overflowmore', 'the frames still carry the text');
      const cuts = warnings.filter((w) => w.code === 'STREAM_TOO_LARGE');
      assert.equal(cuts.length, 1);
      assert.deepEqual(cuts[0].details, { messageId: stream.messageId, chatId: CHAT, chars: 28, limit: 20 });
      assert.deepEqual(logged.filter((c) => c === 'STREAM_TOO_LARGE'), ['STREAM_TOO_LARGE']);
      assert.throws(() => h.client(BOB, { streamTotalMaxChars: 0 }), (e: unknown) => e instanceof HubError && e.code === 'BAD_OPTIONS');
    });

    it('ends an abandoned stream with message.failed', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB));
      const failed = next(bob, 'stream', (e) => e.phase === 'failed');
      const stream = alice.openStream({ chatId: CHAT });
      stream.append('partial');
      stream.fail();
      const e = await failed;
      assert.deepEqual([e.messageId, e.text], [stream.messageId, 'partial']);
      const frame = uplinks(h, ALICE.id, 'message.failed')[0];
      assert.equal(frame.payload.streaming?.status, 'failed');
      assert.equal(stream.phase, 'failed');
      await assert.rejects(Promise.resolve().then(() => stream.append('x')), (x: unknown) => x instanceof HubError && x.code === 'STREAM_CLOSED');
    });

    it('reacts, changes the emoji and removes it, as one last-write-wins slot', async () => {
      const alice = await h.connected(h.client(ALICE));
      const bob = await h.connected(h.client(BOB));
      const target = await alice.send({ chatId: CHAT, text: 'react to me' });
      const seen = collect(alice, 'reaction');
      const ack = await bob.react({ chatId: CHAT, targetMessageId: target.messageId, emoji: '👍' });
      assert.equal(ack.messageId, `rxn:${target.messageId}:${BOB.id}`);
      await bob.react({ chatId: CHAT, targetMessageId: target.messageId, emoji: '👩‍👩‍👧‍👦' });
      await bob.react({ chatId: CHAT, targetMessageId: target.messageId, emoji: '', removed: true });
      await when(alice, ['reaction'], () => seen.length === 3);
      assert.deepEqual(seen.map((r) => [r.slotId, r.emoji, r.removed, r.update, r.reactorUserId]), [
        [ack.messageId, '👍', false, false, BOB.id],
        [ack.messageId, '👩‍👩‍👧‍👦', false, true, BOB.id],
        [ack.messageId, '', true, true, BOB.id],
      ]);
      const uplink = uplinks(h, BOB.id, 'message.reaction')[0];
      assert.deepEqual(Object.keys(uplink.payload).sort(), ['emoji', 'removed', 'target_message_id']);
      await assert.rejects(bob.react({ chatId: CHAT, targetMessageId: target.messageId, emoji: 'x'.repeat(65) }), (e: unknown) => e instanceof HubError && e.code === 'BAD_EMOJI');
    });

    it('moves the read cursor only forward, echoes it to sibling devices and receives the connect-time burst', async () => {
      const phone = await h.connected(h.client(ALICE, { deviceId: 'alice-phone' }));
      const laptop = await h.connected(h.client(ALICE, { deviceId: 'alice-laptop' }));
      const echoes = collect(laptop, 'read');
      assert.equal(phone.markRead(CHAT, 5000), true);
      assert.equal(phone.markRead(CHAT, 4000), false, 'MAX-guarded');
      assert.equal(phone.markRead(CHAT, 5000), false);
      assert.equal(phone.markRead(GROUP, 7000), true);
      await when(laptop, ['read'], () => echoes.length === 2);
      assert.deepEqual(echoes.map((e) => [e.chatId, e.lastReadEmittedAt, e.snapshot]), [
        [CHAT, 5000, false],
        [GROUP, 7000, false],
      ]);
      assert.equal(h.hub.admin.received({ user_id: ALICE.id, event: 'message.read' }).length, 2);
      h.hub.admin.sendRaw({ user_id: ALICE.id, device_id: 'alice-laptop' }, { version: '2', event: 'message.read', trace_id: 'x', emitted_at: 1, chat_id: CHAT, payload: { last_read_emitted_at: 10 } });
      const tablet = h.client(ALICE, { deviceId: 'alice-tablet' });
      const burst = collect(tablet, 'read');
      await h.connected(tablet);
      assert.deepEqual(burst.map((e) => [e.chatId, e.lastReadEmittedAt, e.snapshot]).sort(), [
        [CHAT, 5000, true],
        [GROUP, 7000, true],
      ]);
      await laptop.idle();
      assert.equal(echoes.length, 2, 'an older watermark changes nothing');
      assert.equal(laptop.readCursor(CHAT), 5000);
    });

    it('sends a read watermark set while offline once replay is over', async () => {
      const alice = h.client(ALICE);
      alice.markRead(CHAT, 1234);
      await h.connected(alice);
      await eventually(() => h.hub.admin.readWatermarks(ALICE.id)[CHAT] === 1234, 3000, 'the watermark to reach the hub');
    });

    it('refreshes its typing indicator while on, ends it with false, and expires a silent peer locally', async () => {
      const alice = await h.connected(h.client(ALICE, { typingRefreshMs: 40 }));
      const bob = await h.connected(h.client(BOB, { typingExpiryMs: 150 }));
      const typing = collect(bob, 'typing');
      alice.setTyping(CHAT, true);
      await when(bob, ['typing'], () => typing.length >= 3);
      alice.setTyping(CHAT, false);
      await when(bob, ['typing'], () => typing.some((t) => !t.isTyping));
      assert.ok(typing.every((t) => t.chatId === CHAT && t.userId === ALICE.id));
      assert.deepEqual(typing.at(-1), { chatId: CHAT, userId: ALICE.id, isTyping: false, expired: false });

      const quiet = h.client(ALICE, { deviceId: 'alice-2', typingRefreshMs: 60_000 });
      await h.connected(quiet);
      quiet.setTyping(CHAT, true);
      const expired = await next(bob, 'typing', (t) => t.expired);
      assert.deepEqual(expired, { chatId: CHAT, userId: ALICE.id, isTyping: false, expired: true });
      const ending = next(bob, 'typing', (t) => !t.isTyping && !t.expired);
      quiet.setTyping(CHAT, true);
      await quiet.stop();
      await ending;
    });

    it('subscribes to presence, follows transitions and subscribes again after a reconnect', async () => {
      const alice = await h.connected(h.client(ALICE));
      const snapshot = next(alice, 'presence');
      alice.subscribePresence(BOB.id);
      assert.deepEqual(await snapshot, { userId: BOB.id, online: false, lastSeenAt: undefined, snapshot: true });
      const online = next(alice, 'presence', (p) => p.online);
      const bob = await h.connected(h.client(BOB));
      assert.equal((await online).snapshot, false);
      const again = next(alice, 'presence', (p) => p.snapshot);
      h.hub.admin.dropConnection({ user_id: ALICE.id });
      const p = await again;
      assert.deepEqual([p.userId, p.online], [BOB.id, true]);
      assert.deepEqual(h.hub.admin.devices().find((d) => d.user_id === ALICE.id)?.presence_subscriptions, [BOB.id]);
      const offline = next(alice, 'presence', (x) => !x.online);
      await bob.stop();
      assert.equal(typeof (await offline).lastSeenAt, 'string');
      for (let i = 0; i < 15; i++) alice.subscribePresence(`usr_${i}`);
      assert.throws(() => alice.subscribePresence('usr_16'), (e: unknown) => e instanceof HubError && e.code === 'PRESENCE_LIMIT');
      alice.unsubscribePresence(BOB.id);
      alice.subscribePresence('usr_16');
    });
  });

  describe('signals', () => {
    beforeEach(() => h.start());

    it('deduplicates notify.signal by event_id, live and on replay alike, and flags stale versions', async () => {
      const bob = await h.connected(h.client(BOB));
      const got = collect(bob, 'notify');
      const signal = (eventId: string, version: number) =>
        h.hub.admin.sendRaw(
          { user_id: BOB.id },
          { version: '2', event: 'notify.signal', trace_id: `n-${eventId}`, emitted_at: 1, payload: { type: 'friend.added', entity_id: 'usr_x', version, event_id: eventId, message_id: 'notify:friend.added:usr_x' } },
        );
      signal('ntf_1', 10);
      signal('ntf_1', 10);
      signal('ntf_0', 9);
      await when(bob, ['notify'], () => got.length === 2);
      await bob.idle();
      assert.deepEqual(got.map((n) => [n.eventId, n.stale, n.coalesceKey, n.replay, n.type, n.entityId]), [
        ['ntf_1', false, 'notify:friend.added:usr_x', false, 'friend.added', 'usr_x'],
        ['ntf_0', true, 'notify:friend.added:usr_x', false, 'friend.added', 'usr_x'],
      ]);
      await bob.stop();
      h.hub.admin.notifySignal({ user_id: BOB.id, type: 'friend.request', entity_id: 'usr_y', event_id: 'ntf_2' });
      const later = h.client(BOB);
      const replayed = next(later, 'notify', (n) => n.eventId === 'ntf_2');
      const done = next(later, 'replay-done');
      later.start();
      assert.equal((await replayed).replay, true);
      await done;
      const live = next(later, 'notify', (n) => n.eventId === 'ntf_3');
      h.hub.admin.notifySignal({ user_id: BOB.id, type: 'friend.request', entity_id: 'usr_z', event_id: 'ntf_3' });
      assert.equal((await live).replay, false);
    });

    it('reads every element of a chat.metadata.invalidated scope and drops an old version', async () => {
      const alice = await h.connected(h.client(ALICE));
      const got = collect(alice, 'chat-metadata');
      const send = (scope: string[] | undefined, version: number) => h.hub.admin.chatMetadataInvalidated({ chat_id: GROUP, scope, version, recipients: [ALICE.id] });
      send(['title', 'avatar'], 1);
      send(['announcement'], 2);
      send(['behavior'], 3);
      send(['something_new', 'title'], 4);
      send([], 5);
      send(['title'], 5);
      send(undefined, 6);
      await when(alice, ['chat-metadata'], () => got.length === 6);
      await alice.idle();
      assert.deepEqual(got.map((e) => [e.scopes, e.refetch.conversation, e.refetch.announcements, e.refetch.agent, e.refetch.everything, e.version]), [
        [['title', 'avatar'], true, false, false, false, 1],
        [['announcement'], true, true, false, false, 2],
        [['behavior'], false, false, true, false, 3],
        [['something_new', 'title'], true, true, false, true, 4],
        [[], true, true, false, true, 5],
        [[], true, true, false, true, 6],
      ]);
    });

    it('shows permission cards, collapses them on resolution and expires them locally', async () => {
      const alice = await h.connected(h.client(ALICE));
      const events = collect(alice, 'permission');
      const { request_id } = h.hub.admin.permissionRequest({ user_id: ALICE.id, chat_id: CHAT, agent_id: 'agt_a', operation: 'read_emails', target: { label: 'Gmail' } });
      h.hub.admin.permissionRequest({ user_id: ALICE.id, chat_id: CHAT, request_id: 'req_soon', expires_at: Date.now() + 150 });
      await when(alice, ['permission'], () => events.length === 2);
      assert.equal(alice.permissionCards().length, 2);
      h.hub.admin.permissionResolved({ user_id: ALICE.id, chat_id: CHAT, request_id, decision: 'allow_once', reason: 'owner_allowed' });
      h.hub.admin.permissionResolved({ user_id: ALICE.id, chat_id: CHAT, request_id: '', reason: 'policy_forbidden' });
      await when(alice, ['permission'], () => events.some((e) => e.kind === 'expired'));
      const [first, , resolved, passive, expired] = events;
      assert.ok(first.kind === 'request' && first.card.operation === 'read_emails' && first.card.target?.label === 'Gmail');
      assert.ok(resolved.kind === 'resolved' && resolved.card?.requestId === request_id && resolved.decision === 'allow_once');
      assert.ok(passive.kind === 'resolved' && passive.card === undefined && passive.decision === undefined && passive.reason === 'policy_forbidden');
      assert.ok(expired.kind === 'expired' && expired.card.requestId === 'req_soon');
      assert.deepEqual(alice.permissionCards(), []);
    });

    it('keeps a received history.transit durably until released, and sends one with sender and origin set', async () => {
      const oldDevice = await h.connected(h.client(ALICE, { deviceId: 'alice-old' }));
      const newDevice = h.client(ALICE, { deviceId: 'alice-new' });
      const got = next(newDevice, 'history-transit');
      await h.connected(newDevice);
      oldDevice.sendHistoryTransit({ targetDeviceId: 'alice-new', payload: { kind: 'history_sync_message', items: [1, 2] } });
      const t = await got;
      assert.deepEqual([t.senderId, t.kind, t.targetDeviceId], [ALICE.id, 'history_sync_message', 'alice-new']);
      const uplink = uplinks(h, ALICE.id, 'history.transit')[0];
      assert.deepEqual([uplink.sender?.id, uplink.target_device_id], [ALICE.id, 'alice-new']);
      assert.deepEqual(newDevice.pendingHistoryTransit().map((x) => x.localId), [t.localId]);
      // v2 delete-on-ack: the hub drops its copy once our ack (sent after our own durable copy) arrives.
      await eventually(() => !h.hub.admin.inbox(ALICE.id).some((r) => r.event === 'history.transit'), 3000, 'the hub to delete the transit row');
      assert.equal(newDevice.releaseHistoryTransit(t.localId), true);
      assert.deepEqual(newDevice.pendingHistoryTransit(), []);
    });

    it('re-pulls the whole inbox after device.cursor.reset, with the same device id', async () => {
      const alice = await h.connected(h.client(ALICE));
      for (let i = 0; i < 3; i++) await alice.send({ chatId: CHAT, text: `history ${i}` });
      const bob = h.client(BOB);
      const got = collect(bob, 'message');
      await h.connected(bob);
      await when(bob, ['message'], () => got.length === 3);
      const back = next(bob, 'replay-done');
      await bob.resetCursor();
      await back;
      await when(bob, ['message'], () => got.length === 6);
      assert.deepEqual(got.slice(3).map((m) => m.messageId), got.slice(0, 3).map((m) => m.messageId));
      assert.ok(got.slice(3).every((m) => m.replay));
      assert.equal(h.hub.admin.devices().find((d) => d.user_id === BOB.id)?.device_id, 'usr_bob-d1');
    });
  });
});
