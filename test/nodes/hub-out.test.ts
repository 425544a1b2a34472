/**
 * hub-out in Node-RED 4.1 (test helper) against the dev hub, with a peer on a real client: each action, the
 * second output for the hub's ack and error (with `_msgid` kept), invalid input reaching Catch with a code, and a
 * send accepted while the hub is down going out on reconnect (and across a restart, from the durable outbox).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { URL } from 'node:url';
import { startDevHub, type DevHub } from '../../devhub';
import type { HubClient, InboundMessage } from '../../lib/hub';
import { useNodeRed } from '../support/node-red';
import {
  ALICE,
  aliceCredentials,
  BOB,
  CHAT_AB,
  CHAT_GROUP,
  CHAT_OTHER,
  collect,
  configNode,
  getNode,
  hubOptions,
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
} from './hub-harness';

/* eslint-disable @typescript-eslint/no-require-imports */
const hubConfigNode = require('../../nodes/hub-config');
const hubInNode = require('../../nodes/hub-in');
const hubOutNode = require('../../nodes/hub-out');
/* eslint-enable @typescript-eslint/no-require-imports */

const NODES = [hubConfigNode, hubInNode, hubOutNode];
const CONNECTED = 'node-red:common.status.connected';
const MSG_ID = /^msg-[0-9A-HJKMNP-TV-Z]{26}$/;

interface Nodes {
  out: ReturnType<typeof getNode>;
  accepted: ReturnType<typeof getNode>;
  reports: ReturnType<typeof getNode>;
  caught: ReturnType<typeof getNode>;
  inbound: ReturnType<typeof getNode>;
}

describe('hub-out node', function () {
  this.timeout(30_000);
  const helper = useNodeRed();
  let hub: DevHub;
  let bob: HubClient;

  beforeEach(async () => {
    hub = await startHub();
    bob = await peer(hub);
  });
  afterEach(async () => {
    await helper.unload();
    await bob.stop();
    await hub.stop();
  });

  /** hub-config → hub-out `out` (outputs to `accepted` and `reports`), a Catch into `caught`, and a hub-in into `inbound`. */
  function flow(out: Record<string, unknown> = {}, cfg: Record<string, unknown> = {}): Array<Flow[number] & { id: string }> {
    return [
      { id: 'tab', type: 'tab' },
      { ...configNode(hub, cfg), z: 'tab' },
      placed({ id: 'out', type: 'hub-out', z: 'tab', hub: 'cfg', wires: [['accepted'], ['reports']], ...out }),
      placed({ id: 'accepted', type: 'helper', z: 'tab' }),
      placed({ id: 'reports', type: 'helper', z: 'tab' }),
      placed({ id: 'catcher', type: 'catch', z: 'tab', scope: ['out'], wires: [['caught']] }),
      placed({ id: 'caught', type: 'helper', z: 'tab' }),
      placed({ id: 'in', type: 'hub-in', z: 'tab', hub: 'cfg', events: ['message', 'reaction'], wires: [['inbound']] }),
      placed({ id: 'inbound', type: 'helper', z: 'tab' }),
    ] as Array<Flow[number] & { id: string }>;
  }

  async function load(out: Record<string, unknown> = {}, cfg: Record<string, unknown> = {}, wait = true): Promise<Nodes> {
    await helper.load(NODES, flow(out, cfg), aliceCredentials);
    const n = (id: string) => getNode(helper, id);
    const nodes = { out: n('out'), accepted: n('accepted'), reports: n('reports'), caught: n('caught'), inbound: n('inbound') };
    if (wait) await waitStatus(helper, nodes.out, isText(CONNECTED));
    return nodes;
  }

  /** Sends one message into hub-out and resolves with what came out of output 1 and then output 2. */
  async function roundTrip(n: Nodes, msg: Record<string, unknown>): Promise<{ accepted: Captured; report: Captured }> {
    const accepted = next(n.accepted);
    const report = next(n.reports);
    n.out.receive(msg);
    return { accepted: await accepted, report: await report };
  }

  const bobGets = (match: (m: InboundMessage) => boolean = () => true) => nextEvent(bob, 'message', match);

  it('sends text and reports the ack on output 2 with the same _msgid', async () => {
    const n = await load();
    const arrived = bobGets();
    const { accepted, report } = await roundTrip(n, { payload: 'hello bob', chat_id: CHAT_AB, topic: 'kept', tag: 42 });
    const got = await arrived;
    assert.equal(got.text, 'hello bob');
    assert.equal(got.sender.id, ALICE.id);
    assert.match(String(accepted.message_id), MSG_ID);
    assert.equal(accepted.message_id, got.messageId);
    assert.equal(accepted.chat_id, CHAT_AB);
    assert.equal(report._msgid, accepted._msgid);
    assert.equal(report.tag, 42);
    assert.equal(report.topic, 'kept');
    const r = report.payload as Record<string, unknown>;
    assert.deepEqual([r.status, r.event, r.action, r.chat_id, r.message_id], ['ack', 'message.ack', 'send', CHAT_AB, got.messageId]);
    assert.equal(typeof r.trace_id, 'string');
    assert.equal(r.attempts, 1);
    await waitStatus(helper, n.out, isText(`${CONNECTED} · 1 hub-out.status.sent`));
  });

  it('takes the chat from msg.chat_id, else the node, else msg.topic', async () => {
    const n = await load({ chat: CHAT_GROUP });
    let arrived = bobGets();
    await roundTrip(n, { payload: 'to the group', topic: CHAT_AB });
    assert.equal((await arrived).chatId, CHAT_GROUP);
    arrived = bobGets();
    await roundTrip(n, { payload: 'explicit', chat_id: CHAT_AB, topic: CHAT_GROUP });
    assert.equal((await arrived).chatId, CHAT_AB);
    await helper.unload();
    const m = await load();
    arrived = bobGets();
    await roundTrip(m, { payload: 'by topic', topic: CHAT_AB });
    assert.equal((await arrived).chatId, CHAT_AB);
  });

  it('sends fragments, mentions, a mode and its own message id, and a number as text', async () => {
    const n = await load();
    let arrived = bobGets();
    const own = 'msg-01J8ZZZZZZZZZZZZZZZZZZZZZZ';
    await roundTrip(n, {
      chat_id: CHAT_AB,
      message_id: own,
      mode: 'summary',
      payload: { fragments: [{ kind: 'text', text: 'see ' }, { kind: 'mention', user_id: BOB.id, display: 'Bob' }], text: 'ignored beside fragments' },
      mentions: [BOB.id],
    });
    const got = await arrived;
    assert.equal(got.messageId, own);
    assert.equal(got.text, 'see @Bob');
    assert.equal(got.mode, 'summary');
    assert.equal(got.mentionsMe, true);
    arrived = bobGets();
    await roundTrip(n, { chat_id: CHAT_AB, payload: 21.5 });
    assert.equal((await arrived).text, '21.5');
  });

  it('forwards a hub-in message unchanged, and replies to it by default with reply', async () => {
    const n = await load();
    const inbound = next(n.inbound);
    const original = await bob.send({ chatId: CHAT_AB, text: 'question?' });
    const msg = await inbound;
    const arrived = bobGets((m) => m.event === 'message.reply');
    await roundTrip(n, { ...msg, action: 'reply', payload: 'answer!' });
    const reply = await arrived;
    assert.equal(reply.text, 'answer!');
    assert.equal(reply.chatId, CHAT_AB, 'msg.topic from hub-in names the chat');
    assert.equal(reply.replyToMessageId, original.messageId);
    assert.equal((reply.reply as { reply_preview?: { id?: string } }).reply_preview?.id, BOB.id);

    const forwarded = bobGets((m) => m.event === 'message.send' && m.chatId === CHAT_GROUP);
    await roundTrip(n, { payload: msg.payload, chat_id: CHAT_GROUP });
    assert.equal((await forwarded).text, 'question?', 'fragments from hub-in are not doubled with the joined text');
  });

  it('reacts to a message (by default the hub-in one) and removes the reaction', async () => {
    const n = await load({ action: 'react' });
    const inbound = next(n.inbound);
    const original = await bob.send({ chatId: CHAT_AB, text: 'nice' });
    const msg = await inbound;
    let reaction = nextEvent(bob, 'reaction');
    const { report } = await roundTrip(n, { ...msg, payload: '🎉' });
    const r = await reaction;
    assert.deepEqual([r.targetMessageId, r.emoji, r.removed, r.reactorUserId], [original.messageId, '🎉', false, ALICE.id]);
    assert.equal((report.payload as { status: string }).status, 'ack');
    reaction = nextEvent(bob, 'reaction');
    await roundTrip(n, { payload: '🎉', removed: true, chat_id: CHAT_AB, target_message_id: original.messageId });
    assert.equal((await reaction).removed, true);
  });

  it('shows and ends the typing indicator', async () => {
    const n = await load({ action: 'typing' });
    let typing = nextEvent(bob, 'typing', (t) => t.userId === ALICE.id);
    const accepted = next(n.accepted);
    n.out.receive({ chat_id: CHAT_AB, payload: true });
    await accepted;
    assert.equal((await typing).isTyping, true);
    typing = nextEvent(bob, 'typing', (t) => t.userId === ALICE.id);
    n.out.receive({ chat_id: CHAT_AB, payload: false });
    assert.equal((await typing).isTyping, false);
  });

  it('marks a chat read up to a time, forward only', async () => {
    const n = await load({ action: 'read' });
    const first = next(n.accepted);
    n.out.receive({ chat_id: CHAT_AB, payload: 1_800_000_000_000 });
    assert.equal((await first).advanced, true);
    await until(() => hub.admin.readWatermarks(ALICE.id)[CHAT_AB] === 1_800_000_000_000, 'the hub to store the watermark');
    const second = next(n.accepted);
    n.out.receive({ chat_id: CHAT_AB, payload: 1_700_000_000_000 });
    assert.equal((await second).advanced, false);
    const cfg = helper.getNode('cfg') as unknown as { hubClient(): HubClient };
    assert.equal(cfg.hubClient().readCursor(CHAT_AB), 1_800_000_000_000);
  });

  it('subscribes to presence, unsubscribes, and drops its subscriptions when it stops', async () => {
    const n = await load({ action: 'subscribe' });
    const subs = () => hub.admin.devices().find((d) => d.user_id === ALICE.id)?.presence_subscriptions ?? [];
    n.out.receive({ payload: [BOB.id, 'agt_helper'] });
    await until(() => subs().length === 2, 'two subscriptions at the hub');
    n.out.receive({ action: 'unsubscribe', payload: 'agt_helper' });
    await until(() => subs().join() === BOB.id, 'one left');
    const cfg = helper.getNode('cfg') as unknown as { hubClient(): HubClient };
    const client = cfg.hubClient();
    const rest = flow().filter((node) => !['out', 'accepted', 'reports', 'catcher', 'caught'].includes(node.id));
    await helper.setFlows(rest, 'nodes', aliceCredentials);
    assert.strictEqual(cfg.hubClient(), client, 'the connection stayed (hub-in still uses it)');
    assert.deepEqual(client.presenceSubscriptions(), []);
    await until(() => subs().length === 0, 'the hub to drop the subscription');
  });

  it('keeps a presence subscription another hub-out holds when one of them stops, also across a reconnect', async () => {
    const nodes = [
      ...flow({ action: 'subscribe' }),
      placed({ id: 'out2', type: 'hub-out', z: 'tab', hub: 'cfg', action: 'subscribe', wires: [[], []] }),
    ] as Array<Flow[number] & { id: string }>;
    await helper.load(NODES, nodes, aliceCredentials);
    const out = getNode(helper, 'out');
    const out2 = getNode(helper, 'out2');
    await waitStatus(helper, out, isText(CONNECTED));
    const subs = () => [...(hub.admin.devices().find((d) => d.user_id === ALICE.id)?.presence_subscriptions ?? [])].sort();
    const subscribes = () => hub.admin.received({ user_id: ALICE.id, event: 'presence.subscribe' }).length;
    out.receive({ payload: BOB.id });
    out2.receive({ payload: BOB.id });
    await until(() => subscribes() === 2, 'both subscribes at the hub');

    await helper.setFlows(nodes.filter((node) => !['out', 'accepted', 'reports', 'catcher', 'caught'].includes(node.id)), 'nodes', aliceCredentials);
    // A later uplink reaching the hub proves that no unsubscribe for bob went before it.
    getNode(helper, 'out2').receive({ payload: 'agt_helper' });
    await until(() => subscribes() === 3, 'the next subscribe at the hub');
    assert.deepEqual(subs(), ['agt_helper', BOB.id]);
    assert.equal(hub.admin.received({ user_id: ALICE.id, event: 'presence.unsubscribe' }).length, 0);

    const back = hub.admin.waitFor('hello', (d) => d.user_id === ALICE.id);
    hub.admin.dropConnection({ user_id: ALICE.id });
    await back;
    await until(() => subscribes() === 5, 'both subscribed again on the new connection');
    assert.deepEqual(subs(), ['agt_helper', BOB.id]);
  });

  it('streams: open, append, done, and the finalize reply with the same id is acked on output 2', async () => {
    const n = await load();
    const opened = next(n.accepted);
    const created = nextEvent(bob, 'stream', (s) => s.phase === 'created');
    n.out.receive({ action: 'stream-open', chat_id: CHAT_AB });
    const open = await opened;
    const streamId = String(open.stream_id);
    assert.match(streamId, MSG_ID);
    assert.equal((await created).messageId, streamId);
    const add = nextEvent(bob, 'stream', (s) => s.phase === 'add' && s.text === 'Hello');
    n.out.receive({ action: 'stream-append', stream_id: streamId, payload: 'Hel' });
    n.out.receive({ action: 'stream-append', chat_id: CHAT_AB, payload: 'lo' });
    assert.equal((await add).consistent, true);
    const finalReply = bobGets((m) => m.messageId === streamId);
    const report = next(n.reports);
    n.out.receive({ action: 'stream-done', stream_id: streamId });
    const reply = await finalReply;
    assert.deepEqual([reply.event, reply.text], ['message.reply', 'Hello']);
    const r = (await report).payload as Record<string, unknown>;
    assert.deepEqual([r.status, r.action, r.message_id], ['ack', 'stream-done', streamId]);

    const caught = next(n.caught);
    n.out.receive({ action: 'stream-append', stream_id: streamId, payload: 'late' });
    assert.equal((await caught).error?.code, 'STREAM_UNKNOWN');
  });

  it('reports a refused stream frame on output 2 against the message that opened the stream', async () => {
    const n = await load();
    const opened = next(n.accepted);
    const report = next(n.reports);
    n.out.receive({ action: 'stream-open', chat_id: CHAT_OTHER, tag: 'opener' });
    const open = await opened;
    const r = await report;
    assert.equal(r._msgid, open._msgid);
    assert.equal(r.tag, 'opener');
    const p = r.payload as Record<string, unknown>;
    assert.deepEqual([p.status, p.action, p.code, p.message_id], ['error', 'stream-open', 'chat_not_found', open.stream_id]);
  });

  it('abandons a stream with stream-fail', async () => {
    const n = await load();
    const opened = next(n.accepted);
    n.out.receive({ action: 'stream-open', chat_id: CHAT_AB });
    const streamId = String((await opened).stream_id);
    const failed = nextEvent(bob, 'stream', (s) => s.phase === 'failed');
    n.out.receive({ action: 'stream-fail', stream_id: streamId });
    assert.equal((await failed).messageId, streamId);
  });

  it('reports message.error on output 2 (chat_not_found, not_member), then refuses the gated chat locally', async () => {
    hub.admin.addChat({ id: CHAT_GROUP.replace(/B$/, 'D'), members: [BOB.id, 'agt_helper'] });
    const n = await load();
    const { accepted, report } = await roundTrip(n, { payload: 'anyone?', chat_id: CHAT_OTHER });
    const r = report.payload as Record<string, unknown>;
    assert.deepEqual([r.status, r.event, r.code, r.origin, r.chat_id, r.message_id], ['error', 'message.error', 'chat_not_found', 'hub', CHAT_OTHER, accepted.message_id]);
    assert.equal(report._msgid, accepted._msgid);
    await waitStatus(helper, n.out, (s) => s.fill === 'red' && String(s.text).endsWith('(chat_not_found)'));

    const caught = next(n.caught);
    n.out.receive({ payload: 'again', chat_id: CHAT_OTHER });
    assert.equal((await caught).error?.code, 'CHAT_GATED');

    const notMember = await roundTrip(n, { payload: 'let me in', chat_id: CHAT_GROUP.replace(/B$/, 'D') });
    assert.equal((notMember.report.payload as { code: string }).code, 'not_member');
  });

  it('sends invalid input to Catch with a stable code, and nothing to the hub', async () => {
    const n = await load({}, { chatIdRule: 'cnv' });
    const uplinks = () => hub.admin.received({ user_id: ALICE.id }).filter((f) => !['message.sync_ack', 'message.cursor_ack', 'ping'].includes(f.event)).length;
    const before = uplinks();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ action: 'explode', payload: 'x', chat_id: CHAT_AB }, 'BAD_ACTION'],
      [{ payload: Buffer.from('bytes'), chat_id: CHAT_AB }, 'BAD_INPUT'],
      [{ payload: 'no chat' }, 'BAD_INPUT'],
      [{ payload: { fragments: [] }, chat_id: CHAT_AB }, 'BAD_INPUT'],
      [{ payload: 'hi', chat_id: 'general' }, 'BAD_CHAT_ID'],
      [{ payload: 'hi', chat_id: CHAT_AB, message_id: 'my-own-id' }, 'BAD_MESSAGE_ID'],
      [{ payload: { fragments: [{ kind: 'image' }] }, chat_id: CHAT_AB }, 'BAD_ARGUMENT'],
      [{ action: 'reply', payload: 'to what?', chat_id: CHAT_AB }, 'BAD_INPUT'],
      [{ action: 'react', payload: 'x'.repeat(65), chat_id: CHAT_AB, target_message_id: 'msg-01J8ZZZZZZZZZZZZZZZZZZZZZZ' }, 'BAD_EMOJI'],
      [{ action: 'subscribe', payload: 'bob' }, 'BAD_USER_ID'],
      [{ action: 'stream-append', payload: 'x', chat_id: CHAT_AB }, 'STREAM_UNKNOWN'],
    ];
    for (const [msg, code] of cases) {
      const caught = next(n.caught);
      n.out.receive(msg);
      const got = await caught;
      assert.equal(got.error?.code, code, JSON.stringify(msg));
      assert.equal(got.error?.source?.id, 'out');
    }
    assert.equal(uplinks(), before, 'nothing reached the hub');
    await waitStatus(helper, n.out, (s) => s.fill === 'red' && String(s.text).includes(`${cases.length} hub-out.status.failed`));
  });

  it('accepts a send while the hub is down and delivers it on reconnect, reporting the ack then', async () => {
    const port = Number(new URL(hub.wsUrl).port);
    const n = await load();
    await bob.stop();
    await hub.stop();
    await waitStatus(helper, n.out, (s) => String(s.text).startsWith('hub-config.status.backoff'));
    const reports = collect(n.reports);
    const accepted = next(n.accepted);
    n.out.receive({ payload: 'sent while down', chat_id: CHAT_AB });
    const acc = await accepted;
    assert.deepEqual(reports, [], 'no answer yet');
    hub = await startDevHub({ ...hubOptions(), port });
    bob = await peer(hub);
    const arrived = bobGets((m) => m.text === 'sent while down');
    const report = await next(n.reports);
    assert.equal((report.payload as { status: string }).status, 'ack');
    assert.equal(report._msgid, acc._msgid);
    assert.equal((await arrived).messageId, acc.message_id);
  });

  it('reports on output 2 after a restart of Node-RED the ack of a send accepted before it, with its original _msgid', async () => {
    const dir = tempDir('restart-report');
    const port = Number(new URL(hub.wsUrl).port);
    try {
      const cfg = { persist: true, stateDir: dir };
      const n = await load({}, cfg);
      await bob.stop();
      await hub.stop();
      const accepted = next(n.accepted);
      const early = collect(n.reports);
      n.out.receive({ payload: 'answered after the restart', chat_id: CHAT_AB, topic: 'not kept' });
      n.out.receive({ payload: 'refused after the restart', chat_id: CHAT_OTHER });
      const acc = await accepted;
      const refused = await next(n.accepted, (m) => m.chat_id === CHAT_OTHER);
      await helper.unload();
      assert.deepEqual(early, [], 'no answer before the restart');

      hub = await startDevHub({ ...hubOptions(), port });
      bob = await peer(hub);
      const m = await load({}, cfg, false);
      const got = collect(m.reports);
      await until(() => got.length === 2, 'both answers on output 2');
      const ack = got.find((r) => (r.payload as { status: string }).status === 'ack') as Captured;
      const error = got.find((r) => (r.payload as { status: string }).status === 'error') as Captured;
      assert.equal(ack._msgid, acc._msgid, 'the _msgid the send was given before the restart');
      assert.equal(ack.restored, true);
      assert.equal(ack.topic, undefined, 'only the _msgid is kept across a restart');
      const a = ack.payload as Record<string, unknown>;
      assert.deepEqual([a.event, a.action, a.chat_id, a.message_id], ['message.ack', 'send', CHAT_AB, acc.message_id]);
      assert.equal(error._msgid, refused._msgid);
      const e = error.payload as Record<string, unknown>;
      assert.deepEqual([e.event, e.code, e.origin, e.chat_id, e.message_id], ['message.error', 'chat_not_found', 'hub', CHAT_OTHER, refused.message_id]);
      assert.equal(typeof e.rejected_at, 'number', "the hub's rejected_at");
      await waitStatus(helper, m.out, (s) => String(s.text).includes('1 hub-out.status.sent') && String(s.text).includes('1 hub-out.status.failed'));
    } finally {
      await helper.unload();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports the ack of a send made before a redeploy of the node through its new instance', async () => {
    const n = await load();
    hub.admin.withholdAcks({ user_id: ALICE.id, count: 1 });
    const accepted = next(n.accepted);
    n.out.receive({ payload: 'answered after a redeploy', chat_id: CHAT_AB });
    const acc = await accepted;
    const cfg = helper.getNode('cfg') as unknown as { hubClient(): HubClient };
    const client = cfg.hubClient();
    // A "modified nodes" redeploy of hub-out alone: the connection (held by hub-in) stays, the node restarts.
    const changed = flow({ chat: CHAT_GROUP });
    await helper.setFlows(changed, 'nodes', aliceCredentials);
    assert.strictEqual(cfg.hubClient(), client);
    const reports = getNode(helper, 'reports');
    const report = next(reports);
    hub.admin.dropConnection({ user_id: ALICE.id }); // the reconnect re-sends the unanswered send, which is acked now
    const r = await report;
    assert.equal(r._msgid, acc._msgid);
    assert.equal(r.restored, true);
    assert.equal((r.payload as { message_id: string }).message_id, acc.message_id);
  });

  it('keeps an accepted send across a restart of Node-RED and sends it once, with the same id', async () => {
    const dir = tempDir('outbox');
    const port = Number(new URL(hub.wsUrl).port);
    try {
      const cfg = { persist: true, stateDir: dir };
      const n = await load({}, cfg);
      await bob.stop();
      await hub.stop();
      const accepted = next(n.accepted);
      n.out.receive({ payload: 'survives a restart', chat_id: CHAT_AB });
      const id = (await accepted).message_id;
      await helper.unload();

      hub = await startDevHub({ ...hubOptions(), port });
      bob = await peer(hub);
      const got: InboundMessage[] = [];
      bob.on('message', (m) => got.push(m));
      await load({}, cfg, false);
      await until(() => got.length === 1, 'the queued message to reach bob');
      assert.equal(got[0].messageId, id);
      assert.equal(got[0].text, 'survives a restart');
      const sends = () => hub.admin.received({ user_id: ALICE.id, event: 'message.send' }).length;
      await until(() => sends() >= 1, 'the hub to log the send');
      assert.equal(sends(), 1, 'sent once');
    } finally {
      await helper.unload();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
