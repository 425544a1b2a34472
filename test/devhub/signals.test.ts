import assert from 'node:assert/strict';
import { sendMessage, textOf, trace, useHub, withSettings, type Frame, type TestClient } from './support';

function up(event: string, extra: Record<string, unknown>): Frame {
  return { version: '2', event, trace_id: trace('s'), emitted_at: 1, ...extra };
}

async function reply(client: TestClient, frame: Frame): Promise<Frame[]> {
  client.send(frame);
  return client.barrier();
}

describe('devhub typing.update (§9.1)', () => {
  const f = useHub();

  it('relays to every member but the sender, none of the sender\'s devices, with sender and emitted_at stamped', async () => {
    const phone = await f.login('ta', { device_id: 'phone', capabilities: { multi_device: true } });
    const laptop = await f.login('ta', { device_id: 'laptop', capabilities: { multi_device: true } });
    const bob = await f.login('tb');
    phone.send(up('typing.update', { chat_id: 'chat-ab', emitted_at: 7, sender: { id: 'usr_x' }, payload: { is_typing: true } }));
    const typing = await bob.event('typing.update');
    assert.deepEqual(typing.sender, { id: 'usr_a', type: 'direct', nick_name: 'Alice' });
    assert.equal(typing.chat_type, 'direct');
    assert.notEqual(typing.emitted_at, 7);
    assert.deepEqual(typing.payload, { is_typing: true });
    assert.deepEqual(await laptop.barrier(), []);
    assert.deepEqual(await phone.barrier(), []);
  });

  it('drops typing into an unknown chat or from a non-member, silently', async () => {
    const carol = await f.login('tc');
    const bob = await f.login('tb');
    assert.deepEqual(await reply(carol, up('typing.update', { chat_id: 'chat-ab', payload: { is_typing: true } })), []);
    assert.deepEqual(await reply(carol, up('typing.update', { chat_id: 'chat-nope', payload: { is_typing: true } })), []);
    assert.deepEqual(await bob.barrier(), []);
  });
});

describe('devhub presence (§9.2)', () => {
  const f = useHub();

  it('answers subscribe with a snapshot echoing the trace id, then pushes updates on transitions', async () => {
    const alice = await f.login('ta');
    const sub = up('presence.subscribe', { payload: { user_id: 'usr_b' } });
    alice.send(sub);
    const snap = await alice.event('presence.snapshot');
    assert.equal(snap.trace_id, sub.trace_id);
    assert.deepEqual(snap.payload, { user_id: 'usr_b', online: false });
    const bob = await f.login('tb');
    const online = await alice.event('presence.update');
    assert.equal(online.payload.online, true);
    assert.match(online.payload.last_seen_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.notEqual(online.trace_id, sub.trace_id);
    await bob.close();
    assert.equal((await alice.event('presence.update')).payload.online, false);
    alice.send(up('presence.subscribe', { payload: { user_id: 'usr_b' } }));
    const again = await alice.event('presence.snapshot');
    assert.equal(again.payload.online, false);
    assert.equal(typeof again.payload.last_seen_at, 'string');
  });

  it('announces a user once: a second device coming up is no transition', async () => {
    const alice = await f.login('ta');
    await reply(alice, up('presence.subscribe', { payload: { user_id: 'usr_b' } }));
    await f.login('tb', { device_id: 'one' });
    await alice.event('presence.update');
    await f.login('tb', { device_id: 'two' });
    assert.deepEqual(await alice.barrier(), []);
  });

  it('ignores a malformed payload or an id without usr_/agt_ prefix, and answers nothing to unsubscribe', async () => {
    const alice = await f.login('ta');
    assert.deepEqual(await reply(alice, up('presence.subscribe', { payload: { user_id: 'bob' } })), []);
    assert.deepEqual(await reply(alice, up('presence.subscribe', { payload: 'x' })), []);
    assert.deepEqual(await reply(alice, up('presence.unsubscribe', { payload: { user_id: 'usr_b' } })), []);
  });

  it('caps the registry at 16 per connection but still answers the 17th subscribe', async () => {
    const alice = await f.login('ta');
    for (let i = 0; i < 17; i++) alice.send(up('presence.subscribe', { payload: { user_id: `usr_n${i}` } }));
    const got = await alice.barrier();
    assert.equal(got.filter((fr) => fr.event === 'presence.snapshot').length, 17);
    const device = f.hub().admin.devices().find((d) => d.user_id === 'usr_a')!;
    assert.equal(device.presence_subscriptions.length, 16);
    assert.equal(device.presence_subscriptions.includes('usr_n16'), false);
    alice.send(up('presence.subscribe', { payload: { user_id: 'usr_n3' } }));
    assert.equal((await alice.event('presence.snapshot')).payload.user_id, 'usr_n3');
  });

  it('stops updates after unsubscribe, and drops the subscriptions with the connection', async () => {
    const alice = await f.login('ta');
    await reply(alice, up('presence.subscribe', { payload: { user_id: 'usr_b' } }));
    await reply(alice, up('presence.unsubscribe', { payload: { user_id: 'usr_b' } }));
    await f.login('tb');
    assert.deepEqual(await alice.barrier(), []);
  });
});

describe('devhub presence visibility gate', () => {
  const f = useHub(withSettings({ presence_visibility_gate: true }));

  it('answers nothing at all for a user sharing no chat, but always allows yourself', async () => {
    const alice = await f.login('ta');
    assert.deepEqual(await reply(alice, up('presence.subscribe', { payload: { user_id: 'usr_d' } })), []);
    const self = await reply(alice, up('presence.subscribe', { payload: { user_id: 'usr_a' } }));
    assert.deepEqual(self[0].payload.online, true);
    const shared = await reply(alice, up('presence.subscribe', { payload: { user_id: 'usr_b' } }));
    assert.equal(shared[0].event, 'presence.snapshot');
  });
});

describe('devhub reactions (§9.6)', () => {
  const f = useHub();
  const target = 'msg-01J00000000000000000000001';

  it('stamps the rxn: slot and the reactor, fans out durably, and acks with the slot id', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb');
    alice.send(up('message.reaction', { chat_id: 'chat-ab', payload: { target_message_id: target, emoji: '👍', message_id: 'forged', reactor_user_id: 'usr_x' } }));
    const ack = await alice.event('message.ack');
    assert.equal(ack.payload.message_id, `rxn:${target}:usr_a`);
    const down = await bob.event('message.reaction');
    assert.deepEqual(down.payload, { message_id: `rxn:${target}:usr_a`, target_message_id: target, emoji: '👍', removed: false, reactor_user_id: 'usr_a' });
    assert.equal(down.sender.id, 'usr_a');
  });

  it('keeps one slot per (message, reactor): a new emoji and the tombstone overwrite it', async () => {
    const alice = await f.login('ta');
    for (const payload of [{ emoji: '👍' }, { emoji: '👨‍👩‍👧‍👦' }, { removed: true }]) {
      await reply(alice, up('message.reaction', { chat_id: 'chat-ab', payload: { target_message_id: target, ...payload } }));
    }
    const rows = f.hub().admin.inbox('usr_b');
    assert.equal(rows.length, 1);
    assert.equal((rows[0].frame.payload as Frame).removed, true);
    const bob = await f.login('tb');
    assert.deepEqual(bob.replay.map((fr) => fr.event), ['message.reaction', 'replay.done']);
  });

  for (const [name, payload] of [
    ['an empty target', { target_message_id: '', emoji: '👍' }],
    ['a missing emoji', { target_message_id: target }],
    ['an emoji over 64 bytes', { target_message_id: target, emoji: '👍'.repeat(17) }],
    ['a lone surrogate', { target_message_id: target, emoji: '\ud83d' }],
    ['a payload that is not an object', 'nope'],
  ] as const) {
    it(`refuses ${name} with bad_request`, async () => {
      const alice = await f.login('ta');
      const got = await reply(alice, up('message.reaction', { chat_id: 'chat-ab', payload }));
      assert.equal(got.length, 1);
      assert.equal(got[0].event, 'message.error');
      assert.equal(got[0].payload.code, 'bad_request');
      assert.equal('message_id' in got[0].payload, false);
    });
  }

  it('accepts exactly 64 bytes of emoji', async () => {
    const alice = await f.login('ta');
    const got = await reply(alice, up('message.reaction', { chat_id: 'chat-ab', payload: { target_message_id: target, emoji: '👍'.repeat(16) } }));
    assert.equal(got[0].event, 'message.ack');
  });
});

describe('devhub read watermarks (§9.7)', () => {
  const f = useHub();

  it('echoes only to the reader\'s other multi_device devices, and stores a MAX-guarded watermark', async () => {
    const phone = await f.login('ta', { device_id: 'phone', capabilities: { multi_device: true } });
    const laptop = await f.login('ta', { device_id: 'laptop', capabilities: { multi_device: true } });
    const legacy = await f.login('ta', { device_id: 'legacy' });
    const bob = await f.login('tb', { capabilities: { multi_device: true } });
    phone.send(up('message.read', { chat_id: 'chat-ab', payload: { last_read_emitted_at: 500 } }));
    const echo = await laptop.event('message.read');
    assert.deepEqual(echo.payload, { last_read_emitted_at: 500 });
    assert.equal('chat_type' in echo, false);
    assert.deepEqual(await legacy.barrier(), []);
    assert.deepEqual(await bob.barrier(), []);
    assert.deepEqual(await phone.barrier(), []);
    await reply(phone, up('message.read', { chat_id: 'chat-ab', payload: { last_read_emitted_at: 300 } }));
    assert.deepEqual(f.hub().admin.readWatermarks('usr_a'), { 'chat-ab': 500 });
  });

  it('drops a malformed or non-positive watermark silently', async () => {
    const alice = await f.login('ta');
    for (const payload of [{ last_read_emitted_at: 0 }, { last_read_emitted_at: 'x' }, {}]) {
      assert.deepEqual(await reply(alice, up('message.read', { chat_id: 'chat-ab', payload })), []);
    }
    assert.deepEqual(await reply(alice, up('message.read', { payload: { last_read_emitted_at: 5 } })), []);
    assert.deepEqual(f.hub().admin.readWatermarks('usr_a'), {});
  });

  it('replays the watermark snapshot on every multi_device connect: trace "", emitted_at = watermark, before the rows', async () => {
    const alice = await f.login('ta', { device_id: 'phone' });
    const now = Date.now();
    await reply(alice, up('message.read', { chat_id: 'chat-ab', payload: { last_read_emitted_at: now - 1000 } }));
    await reply(alice, up('message.read', { chat_id: 'chat-abc', payload: { last_read_emitted_at: now - 500 } }));
    const bob = await f.login('tb');
    sendMessage(bob, 'chat-ab', 'row');
    await bob.event('message.ack');
    const laptop = await f.login('ta', { device_id: 'laptop', capabilities: { multi_device: true } });
    assert.deepEqual(laptop.replay.map((fr) => fr.event), ['message.read', 'message.read', 'message.send', 'replay.done']);
    const reads = laptop.replay.slice(0, 2);
    assert.deepEqual(reads.map((fr) => [fr.chat_id, fr.trace_id, fr.emitted_at === fr.payload.last_read_emitted_at]).sort(), [
      ['chat-ab', '', true],
      ['chat-abc', '', true],
    ]);
    const plain = await f.login('ta', { device_id: 'plain' });
    assert.equal(plain.replay.some((fr) => fr.event === 'message.read'), false);
  });
});

describe('devhub notify.signal (§9.4)', () => {
  const f = useHub();

  it('delivers live to notify_signals devices with the coalesce key, and coalesces offline repeats into one row', async () => {
    const live = await f.login('tb', { device_id: 'live', capabilities: { notify_signals: true } });
    const payload = f.hub().admin.notifySignal({ user_id: 'usr_b', type: 'friend.added', entity_id: 'usr_a', version: 10 });
    assert.equal(payload.message_id, 'notify:friend.added:usr_a');
    assert.match(payload.event_id, /^ntf_/);
    const frame = await live.event('notify.signal');
    assert.deepEqual(frame.payload, payload);
    for (const k of ['chat_id', 'chat_type', 'to', 'sender']) assert.equal(k in frame, false);
    f.hub().admin.notifySignal({ user_id: 'usr_b', type: 'friend.added', entity_id: 'usr_a', version: 11 });
    f.hub().admin.notifySignal({ user_id: 'usr_b', type: 'friend.added', entity_id: 'usr_a', version: 12 });
    const other = await f.login('tb', { device_id: 'offline-until-now', capabilities: { notify_signals: true } });
    const signals = other.replay.filter((fr) => fr.event === 'notify.signal');
    assert.deepEqual(signals.map((fr) => fr.payload.version), [12]);
  });

  it('on v1/legacy without the capability: no live frame, but the next replay hands it over once', async () => {
    const legacy = await f.login('tb', { device_id: 'legacy' });
    f.hub().admin.notifySignal({ user_id: 'usr_b', type: 'conversation.updated', entity_id: 'cnv_1' });
    const alice = await f.login('ta');
    sendMessage(alice, 'chat-ab', 'barrier');
    assert.equal(textOf(await legacy.event('message.send')), 'barrier');
    assert.equal(legacy.queue.some((fr) => fr.event === 'notify.signal'), false);
    await legacy.close();
    const again = await f.login('tb', { device_id: 'legacy' });
    assert.deepEqual(again.replay.map((fr) => fr.event), ['notify.signal', 'replay.done']);
    await again.close();
    const third = await f.login('tb', { device_id: 'legacy' });
    assert.deepEqual(third.replay.map((fr) => fr.event), ['replay.done']);
  });
});

describe('devhub chat.metadata.invalidated and permission.* (§9.3, §9.5)', () => {
  const f = useHub();

  it('sends chat.metadata.invalidated only to members that advertised chat_meta_events', async () => {
    const opted = await f.login('ta', { capabilities: { chat_meta_events: true } });
    const plain = await f.login('tb');
    const result = f.hub().admin.chatMetadataInvalidated({ chat_id: 'chat-abc', scope: ['title', 'avatar'], version: 42 });
    assert.equal(result.delivered, 1);
    const frame = await opted.event('chat.metadata.invalidated');
    assert.equal(frame.chat_id, 'chat-abc');
    assert.equal(frame.chat_type, 'group');
    assert.deepEqual(frame.payload.scope, ['title', 'avatar']);
    assert.equal(frame.payload.version, 42);
    assert.equal('sender' in frame || 'to' in frame, false);
    assert.deepEqual(await plain.barrier(), []);
  });

  it('never stores chat.metadata.invalidated: a later connection does not see it', async () => {
    f.hub().admin.chatMetadataInvalidated({ chat_id: 'chat-ab', scope: ['title'] });
    const late = await f.login('ta', { capabilities: { chat_meta_events: true } });
    assert.deepEqual(late.replay.map((fr) => fr.event), ['replay.done']);
  });

  it('sends permission.request / resolved to the owner\'s opted-in devices only', async () => {
    const owner = await f.login('ta', { capabilities: { permission_events: true } });
    const agent = await f.login('tb', { capabilities: { permission_events: true } });
    const { request_id } = f.hub().admin.permissionRequest({ user_id: 'usr_a', chat_id: 'chat-ab', agent_id: 'agt_x', operation: 'read_emails', target: { label: 'Gmail' }, expires_at: 99 });
    const request = await owner.event('permission.request');
    assert.deepEqual(request.payload, { request_id, agent_id: 'agt_x', operation: 'read_emails', target: { label: 'Gmail' }, expires_at: 99 });
    assert.equal(request.chat_id, 'chat-ab');
    f.hub().admin.permissionResolved({ user_id: 'usr_a', chat_id: 'chat-ab', request_id: '', reason: 'policy_forbidden' });
    assert.deepEqual((await owner.event('permission.resolved')).payload, { request_id: '', reason: 'policy_forbidden' });
    assert.deepEqual(await agent.barrier(), []);
  });
});

describe('devhub JSON ping / pong (§12)', () => {
  const f = useHub();

  it('echoes trace_id and emitted_at verbatim with an empty payload', async () => {
    const c = await f.login('ta');
    c.send({ version: '2', event: 'ping', trace_id: 'p1', emitted_at: 1776162600000, payload: { ignored: true } });
    assert.deepEqual(await c.event('pong'), { version: '2', event: 'pong', trace_id: 'p1', emitted_at: 1776162600000, payload: {} });
  });
});

describe('devhub read snapshot limits', () => {
  const f = useHub(withSettings({ read_snapshot_max_chats: 1 }));

  it('caps the connect-time snapshot to the most recently moved chats', async () => {
    const alice = await f.login('ta');
    await reply(alice, up('message.read', { chat_id: 'chat-ab', payload: { last_read_emitted_at: 100 } }));
    const later = await f.login('ta', { device_id: 'other', capabilities: { multi_device: true } });
    assert.equal(later.replay.filter((fr) => fr.event === 'message.read').length, 1);
  });
});

