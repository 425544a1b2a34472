/**
 * hub-in in Node-RED 4.1 (test helper) against the dev hub, with a peer on a real client: what a message looks
 * like, the chat / mode / self-echo filters, every event type, and replay after a restart (exactly once).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { DevHub } from '../../devhub';
import type { HubClient } from '../../lib/hub';
import { useNodeRed } from '../support/node-red';
import {
  ALICE,
  aliceCredentials,
  BOB,
  CHAT_AB,
  CHAT_GROUP,
  collect,
  configNode,
  getNode,
  isText,
  next,
  nextEvent,
  peer,
  placed,
  startHub,
  tempDir,
  until,
  waitStatus,
  type Captured,
  type Flow,
  type FlowNode,
} from './hub-harness';

/* eslint-disable @typescript-eslint/no-require-imports */
const hubConfigNode = require('../../nodes/hub-config');
const hubInNode = require('../../nodes/hub-in');
const hubOutNode = require('../../nodes/hub-out');
/* eslint-enable @typescript-eslint/no-require-imports */

const NODES = [hubConfigNode, hubInNode, hubOutNode];
const CONNECTED = 'node-red:common.status.connected';

describe('hub-in node', function () {
  this.timeout(30_000);
  const helper = useNodeRed();
  let hub: DevHub;
  let bob: HubClient;
  const extra: HubClient[] = [];

  beforeEach(async () => {
    hub = await startHub();
    bob = await peer(hub);
  });
  afterEach(async () => {
    await helper.unload();
    await bob.stop();
    for (const c of extra.splice(0)) await c.stop();
    await hub.stop();
  });

  /** hub-config, the given hub-in nodes each feeding a helper named `<id>-out`, and a hub-out `out`. */
  async function load(ins: FlowNode[], cfg: Record<string, unknown> = {}): Promise<void> {
    const flow: FlowNode[] = [
      { id: 'tab', type: 'tab' },
      { ...configNode(hub, cfg), z: 'tab' },
      ...ins.flatMap((n) => [placed({ z: 'tab', hub: 'cfg', ...n, wires: [[`${n.id}-out`]] }), placed({ id: `${n.id}-out`, type: 'helper', z: 'tab' })]),
      placed({ id: 'out', type: 'hub-out', z: 'tab', hub: 'cfg', wires: [['out-1'], ['out-2']] }),
      placed({ id: 'out-1', type: 'helper', z: 'tab' }),
      placed({ id: 'out-2', type: 'helper', z: 'tab' }),
    ];
    // Frames cannot arrive before load() resolves (the handshake needs socket turns), so collectors attached right
    // after it miss nothing; tests that need the connection up call connected().
    await helper.load(NODES, flow as Flow, aliceCredentials);
  }

  const connected = () => waitStatus(helper, getNode(helper, 'out'), isText(CONNECTED));

  const output = (id: string) => getNode(helper, `${id}-out`);

  it('emits a message with topic = chat id, the joined text and mentions in payload, and the envelope in msg.hub', async () => {
    await load([{ id: 'in', type: 'hub-in' }]);
    await connected();
    const got = next(output('in'));
    const ack = await bob.send({
      chatId: CHAT_AB,
      fragments: [
        { kind: 'text', text: 'Hi ' },
        { kind: 'mention', user_id: ALICE.id, display: 'Alice' },
        { kind: 'text', text: ', look' },
        { kind: 'sticker', text: '(a sticker)' },
      ],
      mentions: [{ user_id: ALICE.id, display: 'Alice' }],
      replyTo: { messageId: 'msg-01J00000000000000000000000' },
    });
    const msg = await got;
    assert.equal(msg.topic, CHAT_AB);
    const payload = msg.payload as Record<string, unknown>;
    assert.equal(payload.text, 'Hi @Alice, look(a sticker)');
    assert.equal(payload.mode, 'normal');
    assert.deepEqual(payload.mentions, [{ user_id: ALICE.id, display: 'Alice' }]);
    const fragments = payload.fragments as Array<Record<string, unknown>>;
    assert.deepEqual(fragments.map((f) => [f.kind, f.supported]), [['text', true], ['mention', true], ['text', true], ['sticker', false]]);
    assert.deepEqual((payload.reply as Record<string, unknown>).reply_to_msg_id, 'msg-01J00000000000000000000000');
    const hub_ = msg.hub as Record<string, unknown>;
    assert.equal(hub_.event, 'message.reply');
    assert.equal(hub_.message_id, ack.messageId);
    assert.equal(hub_.chat_id, CHAT_AB);
    assert.deepEqual(hub_.sender, { id: BOB.id, type: 'direct', nick_name: 'Bob' });
    assert.equal(hub_.mentions_me, true);
    assert.equal(hub_.from_self, false);
    assert.equal(hub_.replay, false);
    assert.equal(hub_.update, false);
    assert.equal(hub_.reply_to_message_id, 'msg-01J00000000000000000000000');
    assert.equal(typeof hub_.emitted_at, 'number');
    const receipt = await nextEvent(bob, 'delivered', (d) => d.messageId === ack.messageId);
    assert.equal(receipt.byUserId, ALICE.id, 'the client sent the receipt; the flow did nothing');
  });

  it('filters by chat: a message in another chat is not emitted', async () => {
    await load([{ id: 'in', type: 'hub-in', chats: `${CHAT_GROUP}` }]);
    await connected();
    const got = collect(output('in'));
    await bob.send({ chatId: CHAT_AB, text: 'not for this node' });
    const last = next(output('in'));
    await bob.send({ chatId: CHAT_GROUP, text: 'for this node' });
    await last;
    assert.deepEqual(got.map((m) => [m.topic, (m.payload as { text: string }).text]), [[CHAT_GROUP, 'for this node']]);
  });

  it('skips non-normal modes by default and emits them when told to', async () => {
    await load([
      { id: 'normal', type: 'hub-in' },
      { id: 'all', type: 'hub-in', skipModes: false },
    ]);
    await connected();
    const normal = collect(output('normal'));
    const all = collect(output('all'));
    await bob.send({ chatId: CHAT_AB, text: 'hmm…', mode: 'thinking' });
    const done = next(output('normal'));
    await bob.send({ chatId: CHAT_AB, text: 'the answer' });
    await done;
    await until(() => all.length === 2, 'both messages on the unfiltered node');
    assert.deepEqual(normal.map((m) => (m.payload as { text: string }).text), ['the answer']);
    assert.deepEqual(all.map((m) => [(m.payload as { mode: string }).mode, (m.hub as { is_normal_mode: boolean }).is_normal_mode]), [
      ['thinking', false],
      ['normal', true],
    ]);
  });

  it("skips this user's own messages from another device by default and emits them when told to", async () => {
    await load([
      { id: 'others', type: 'hub-in' },
      { id: 'mine', type: 'hub-in', skipSelf: false },
    ]);
    await connected();
    const alicePhone = await peer(hub, ALICE, { deviceId: 'alice-phone' });
    extra.push(alicePhone);
    const others = collect(output('others'));
    const mine = collect(output('mine'));
    await alicePhone.send({ chatId: CHAT_AB, text: 'from my phone' });
    const done = next(output('others'));
    await bob.send({ chatId: CHAT_AB, text: 'from bob' });
    await done;
    await until(() => mine.length === 2, 'both on the unfiltered node');
    assert.deepEqual(others.map((m) => (m.payload as { text: string }).text), ['from bob']);
    assert.deepEqual(mine.map((m) => [(m.payload as { text: string }).text, (m.hub as { from_self: boolean }).from_self, (m.hub as { origin_device_id: string }).origin_device_id]), [
      ['from my phone', true, 'alice-phone'],
      ['from bob', false, 'usr_bob-peer'],
    ]);
  });

  it('emits every selected event type, and a node left at its default emits only messages', async () => {
    await load([
      { id: 'every', type: 'hub-in', events: ['message', 'stream', 'reaction', 'read', 'delivered', 'typing', 'presence', 'chat-metadata', 'notify', 'permission', 'unknown', 'state'] },
      { id: 'default', type: 'hub-in' },
    ]);
    const every = collect(output('every'));
    const defaults = collect(output('default'));
    await connected();
    const byEvent = (event: string) => (m: Captured) => (m.hub as { event: string }).event === event;
    const wait = (event: string) => next(output('every'), byEvent(event));

    const message = wait('message.send');
    const { messageId } = await bob.send({ chatId: CHAT_AB, text: 'ping' });
    await message;

    const reaction = wait('message.reaction');
    await bob.react({ chatId: CHAT_AB, targetMessageId: messageId, emoji: '👍' });
    assert.deepEqual((await reaction).payload, { emoji: '👍', removed: false, target_message_id: messageId });

    const typing = wait('typing.update');
    bob.setTyping(CHAT_AB, true);
    const t = await typing;
    assert.deepEqual([t.topic, t.payload], [CHAT_AB, { user_id: BOB.id, is_typing: true, expired: false }]);
    bob.setTyping(CHAT_AB, false);

    const stream = next(output('every'), byEvent('message.done'));
    const writer = bob.openStream({ chatId: CHAT_AB });
    writer.append('Hel');
    writer.append('lo');
    writer.done();
    const done = await stream;
    assert.equal((done.payload as { text: string }).text, 'Hello');
    assert.ok(every.some((m) => (m.hub as { event: string }).event === 'message.add' && (m.payload as { delta: string }).delta === 'lo'));

    const delivered = wait('message.delivered');
    getNode(helper, 'out').receive({ payload: 'for bob', chat_id: CHAT_AB });
    const receipt = await delivered;
    assert.equal((receipt.payload as { by_user_id: string }).by_user_id, BOB.id);

    const alicePhone = await peer(hub, ALICE, { deviceId: 'alice-phone' });
    extra.push(alicePhone);
    const read = next(output('every'), (m) => byEvent('message.read')(m) && (m.hub as { snapshot: boolean }).snapshot === false);
    alicePhone.markRead(CHAT_AB, 1_900_000_000_000);
    assert.deepEqual((await read).payload, { last_read_emitted_at: 1_900_000_000_000 });

    const presence = wait('presence.snapshot');
    getNode(helper, 'out').receive({ action: 'subscribe', payload: BOB.id });
    const p = await presence;
    assert.deepEqual([p.topic, (p.payload as { online: boolean }).online], [BOB.id, true]);

    const notify = wait('notify.signal');
    const signal = hub.admin.notifySignal({ user_id: ALICE.id, type: 'friend.request', entity_id: 'frq_1', event_id: 'ntf_1' });
    assert.deepEqual((await notify).payload, { type: 'friend.request', entity_id: 'frq_1', version: signal.version, event_id: 'ntf_1', stale: false });

    const meta = wait('chat.metadata.invalidated');
    hub.admin.chatMetadataInvalidated({ chat_id: CHAT_AB, scope: ['title', 'announcement'] });
    const m = await meta;
    assert.equal(m.topic, CHAT_AB);
    assert.deepEqual((m.payload as { refetch: unknown }).refetch, { conversation: true, announcements: true, agent: false, everything: false });

    const permission = wait('permission.request');
    hub.admin.permissionRequest({ user_id: ALICE.id, chat_id: CHAT_AB, request_id: 'req_1', operation: 'file.write' });
    const card = (await permission).payload as Record<string, unknown>;
    assert.deepEqual([card.request_id, card.chat_id, card.operation], ['req_1', CHAT_AB, 'file.write']);

    const unknown = wait('future.thing');
    hub.admin.sendUnknownEvent({ user_id: ALICE.id }, { event: 'future.thing', payload: { shape: 'new' } });
    const u = await unknown;
    assert.deepEqual(u.payload, { shape: 'new' });
    assert.equal((u.hub as { envelope: { event: string } }).envelope.event, 'future.thing');

    assert.ok(every.some((s) => (s.hub as { event: string }).event === 'state' && (s.payload as { state: string }).state === 'connected'));
    assert.deepEqual(
      [...new Set(defaults.map((d) => (d.hub as { event: string }).event))],
      ['message.send'],
      'the default node saw only the message',
    );
  });

  it('after a restart, emits what arrived meanwhile once, marked replay, and never again', async () => {
    const dir = tempDir('replay');
    try {
      const cfg = { persist: true, stateDir: dir };
      await load([{ id: 'in', type: 'hub-in' }], cfg);
      await connected();
      const live = next(output('in'));
      await bob.send({ chatId: CHAT_AB, text: 'live' });
      await live;
      await helper.unload();

      for (const text of ['while away 1', 'while away 2', 'while away 3']) await bob.send({ chatId: CHAT_AB, text });
      await load([{ id: 'in', type: 'hub-in' }], cfg);
      const got = collect(output('in'));
      await until(() => got.length === 3, 'the three messages sent while away');
      assert.deepEqual(got.map((m) => [(m.payload as { text: string }).text, (m.hub as { replay: boolean }).replay]), [
        ['while away 1', true],
        ['while away 2', true],
        ['while away 3', true],
      ]);
      await helper.unload();

      await load([{ id: 'in', type: 'hub-in' }], cfg);
      const again = collect(output('in'));
      await connected();
      const marker = next(output('in'));
      await bob.send({ chatId: CHAT_AB, text: 'after' });
      await marker;
      assert.deepEqual(again.map((m) => (m.payload as { text: string }).text), ['after'], 'nothing replayed twice');
    } finally {
      await helper.unload();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
