import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HubError, ManualClock, MESSAGE_ID_PATTERN, type InboundMessage, type SendAck } from '../../../lib/hub';
import { openStore } from '../../../lib/store';
import { ALICE, BOB, CAROL, CHAT, collect, eventually, GROUP, Harness, next, uplinks, when, type WireFrame } from './support/harness';

const code = (c: string, serverCode?: string) => (e: unknown) =>
  e instanceof HubError && e.code === c && (serverCode === undefined || e.details?.serverCode === serverCode);

describe('HubClient: send path', () => {
  const h = new Harness();
  beforeEach(() => h.start());
  afterEach(() => h.cleanup());

  it('sends with a msg-ULID id and chat_id, never sender, chat_type or streaming, and correlates the ack by trace_id', async () => {
    const alice = await h.connected(h.client(ALICE));
    const bob = await h.connected(h.client(BOB));
    const got = next(bob, 'message');
    const ack = await alice.send({ chatId: CHAT, text: 'hi bob', to: { id: CHAT, type: 'direct' } });
    const [uplink] = h.hub.admin.received({ user_id: ALICE.id, event: 'message.send' });
    const frame = uplink.frame as unknown as WireFrame;
    assert.equal(frame.chat_id, CHAT);
    assert.equal(frame.version, '2');
    assert.equal('sender' in frame, false);
    assert.equal('chat_type' in frame, false);
    assert.ok(frame.payload.message);
    assert.equal('streaming' in frame.payload.message, false);
    assert.deepEqual(frame.payload.message.context, { mentions: [], reply: null });
    assert.match(frame.payload.message_id ?? '', MESSAGE_ID_PATTERN);
    assert.equal(ack.messageId, frame.payload.message_id);
    assert.equal(ack.traceId, frame.trace_id);
    assert.equal(ack.attempts, 1);
    const m = await got;
    assert.equal(m.messageId, ack.messageId);
    assert.equal(m.text, 'hi bob');
    assert.deepEqual(m.to, { id: CHAT, type: 'direct' });
    assert.equal(m.sender.id, ALICE.id);
    assert.equal(m.sender.nickName, 'Alice');
  });

  it('sends a reply with its context', async () => {
    const alice = await h.connected(h.client(ALICE));
    const bob = await h.connected(h.client(BOB));
    const first = await bob.send({ chatId: CHAT, text: 'question' });
    const got = next(bob, 'message');
    await alice.reply({ chatId: CHAT, text: 'answer', replyTo: { messageId: first.messageId, preview: { id: BOB.id, nickName: 'Bob', fragments: [{ kind: 'text', text: 'question' }] } } });
    const m = await got;
    assert.equal(m.event, 'message.reply');
    assert.equal(m.replyToMessageId, first.messageId);
  });

  it('retries an unanswered send with the same message id and trace id, and the recipient sees it once', async () => {
    // The ack timeout is on the client's clock: exactly one retry, however slowly the hub answers it.
    const clock = new ManualClock(Date.now());
    const alice = await h.connected(h.client(ALICE, { clock, ackTimeoutMs: 150 }));
    const bob = await h.connected(h.client(BOB));
    const seen = collect(bob, 'message');
    h.hub.admin.withholdAcks({ user_id: ALICE.id, count: 1 });
    const pending = alice.send({ chatId: CHAT, text: 'again and again' });
    await eventually(() => h.hub.admin.received({ user_id: ALICE.id, event: 'message.send' }).length === 1, 5000, 'the first attempt at the hub');
    clock.advance(150);
    const ack = await pending;
    const sends = h.hub.admin.received({ user_id: ALICE.id, event: 'message.send' });
    assert.equal(sends.length, 2);
    assert.equal(JSON.stringify(sends[0].frame?.payload), JSON.stringify(sends[1].frame?.payload), 'byte for byte');
    assert.equal(sends[0].frame?.trace_id, sends[1].frame?.trace_id);
    assert.equal(ack.attempts, 2);
    assert.equal(alice.stats().retransmits, 1);
    await when(bob, ['message'], () => seen.length >= 1);
    await bob.idle();
    assert.deepEqual(seen.map((m) => m.messageId), [ack.messageId]);
  });

  it('settles once when a delayed ack and the ack of the retry both arrive', async () => {
    const clock = new ManualClock(Date.now());
    const alice = await h.connected(h.client(ALICE, { clock, ackTimeoutMs: 100 }));
    const acks = collect(alice, 'ack');
    const ackFrames = collect(alice, 'frame');
    h.hub.admin.delayAcks({ user_id: ALICE.id, ms: 250, count: 1 });
    const pending = alice.send({ chatId: CHAT, text: 'slow' });
    await eventually(() => h.hub.admin.received({ user_id: ALICE.id, event: 'message.send' }).length === 1, 5000, 'the send at the hub');
    clock.advance(100);
    const ack = await pending;
    assert.equal(ack.attempts, 2, 'answered through the retry');
    // The delayed ack of the first attempt still comes; it must settle nothing a second time.
    await when(alice, ['frame'], () => ackFrames.filter((f) => f.event === 'message.ack').length === 2);
    await alice.idle();
    assert.deepEqual(acks.map((a) => a.messageId), [ack.messageId]);
    assert.equal(alice.pendingSends().length, 0);
  });

  it('keeps unanswered sends across a restart and re-sends them with the same ids', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawling-outbox-'));
    const file = path.join(dir, 'hub.sqlite');
    try {
      const bob = await h.connected(h.client(BOB));
      const seen = collect(bob, 'message');
      h.hub.admin.withholdAcks({ user_id: ALICE.id });
      let store = openStore(file);
      const first = await h.connected(h.client(ALICE, { store }));
      const queued = collect(first, 'queued');
      const pending = [1, 2, 3].map((i) => first.send({ chatId: CHAT, text: `durable ${i}` }));
      await when(first, ['queued'], () => queued.length === 3);
      const ids = first.pendingSends().map((e) => e.messageId);
      assert.deepEqual(ids, queued.map((q) => q.messageId));
      await when(bob, ['message'], () => seen.length === 3);
      await first.stop();
      for (const p of pending) await assert.rejects(p, (e: unknown) => code('CLIENT_STOPPED')(e) && (e as HubError).details?.durable === true);
      store.close();

      h.hub.admin.clearFaults();
      store = openStore(file);
      const second = h.client(ALICE, { store });
      const acks = collect(second, 'ack');
      assert.deepEqual(second.pendingSends().map((e) => e.messageId), ids);
      await h.connected(second);
      await when(second, ['ack'], () => acks.length === 3);
      assert.deepEqual(acks.map((a) => a.messageId), ids);
      const sent = h.hub.admin.received({ user_id: ALICE.id, event: 'message.send' }).map((f) => (f.frame?.payload as { message_id: string }).message_id);
      assert.deepEqual(sent, [...ids, ...ids], 'the same three ids, sent twice each');
      await bob.idle();
      assert.deepEqual(seen.map((m) => m.messageId), ids, 'each delivered once');
      await second.stop();
      store.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('re-sends, with the same ids, the sends of a process killed with SIGKILL', async function () {
    this.timeout(20_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawling-crash-'));
    const file = path.join(dir, 'hub.sqlite');
    try {
      const bob = await h.connected(h.client(BOB));
      const seen = collect(bob, 'message');
      h.hub.admin.withholdAcks({ user_id: ALICE.id });
      const child = spawn(process.execPath, [path.join(__dirname, 'support', 'crash-sender.js'), h.hub.wsUrl, file, '20'], { stdio: ['ignore', 'pipe', 'inherit'] });
      const queued: string[] = [];
      let connected = false;
      let buffered = '';
      await new Promise<void>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', () => resolve());
        child.stdout.on('data', (chunk: Buffer) => {
          buffered += chunk.toString('utf8');
          const lines = buffered.split('\n');
          buffered = lines.pop() as string;
          for (const line of lines) {
            if (line === 'connected') connected = true;
            const m = /^queued (\S+)$/.exec(line);
            if (m) queued.push(m[1]);
          }
          if (connected && queued.length === 20 && child.exitCode === null) child.kill('SIGKILL');
        });
      });
      assert.equal(child.signalCode, 'SIGKILL');
      h.hub.admin.clearFaults();
      const store = openStore(file);
      const revived = h.client(ALICE, { store, deviceId: 'usr_alice-crash' });
      const acks = collect(revived, 'ack');
      await h.connected(revived);
      await when(revived, ['ack'], () => acks.length === 20);
      assert.deepEqual(acks.map((a) => a.messageId), queued);
      await when(bob, ['message'], () => new Set(seen.map((m) => m.messageId)).size === 20);
      await bob.idle();
      assert.deepEqual(seen.map((m) => m.messageId).sort(), [...queued].sort(), 'every queued send delivered exactly once');
      await revived.stop();
      store.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails a send terminally on message.error chat_not_found, not_member and message_too_large, without retrying', async () => {
    // The ack timeout runs on the client's clock, which only this test moves: a slow answer cannot pass for a retry.
    const clock = new ManualClock(Date.now());
    const carol = await h.connected(h.client(CAROL, { clock, ackTimeoutMs: 100 }));
    const rejected = collect(carol, 'rejected');
    await assert.rejects(carol.send({ chatId: 'chat-nowhere', text: 'x' }), code('SEND_REJECTED', 'chat_not_found'));
    await assert.rejects(carol.send({ chatId: CHAT, text: 'x' }), code('SEND_REJECTED', 'not_member'));
    await assert.rejects(carol.send({ chatId: GROUP, text: 'x'.repeat(1_100_000) }), code('SEND_REJECTED', 'message_too_large'));
    clock.advance(10 * 100);
    // A send acked after the clock moved: any retry of the refused ones would have reached the hub before it.
    await carol.send({ chatId: GROUP, text: 'barrier' });
    assert.equal(h.hub.admin.received({ user_id: CAROL.id, event: 'message.send' }).length, 4, 'never retried');
    assert.deepEqual(rejected.map((r) => [r.origin, r.code, r.matched]), [
      ['hub', 'chat_not_found', true],
      ['hub', 'not_member', true],
      ['hub', 'message_too_large', true],
    ]);
    assert.equal(carol.pendingSends().length, 0);
  });

  it('fails terminally on bad_request from a resolver that wants cnv_ ids', async () => {
    await h.hub.stop();
    await h.start({ settings: { chat_id_format: 'cnv' } });
    const alice = await h.connected(h.client(ALICE));
    await assert.rejects(alice.send({ chatId: CHAT, text: 'x' }), code('SEND_REJECTED', 'bad_request'));
  });

  for (const serverCode of ['unsupported_version', 'message_id_too_long', 'capability_missing', 'quota_exceeded_from_the_future']) {
    it(`treats message.error "${serverCode}" as terminal for the send it answers`, async () => {
      // The client's clock stands still, so the unanswered send is not retried before the injected error lands.
      const clock = new ManualClock(Date.now());
      const alice = await h.connected(h.client(ALICE, { clock, ackTimeoutMs: 150 }));
      h.hub.admin.withholdAcks({ user_id: ALICE.id, count: 1 });
      const pending = alice.send({ chatId: CHAT, text: 'doomed' });
      await eventually(() => h.hub.admin.received({ user_id: ALICE.id, event: 'message.send' }).length > 0, 5000, 'the send at the hub');
      const frame = uplinks(h, ALICE.id, 'message.send')[0];
      h.hub.admin.sendRaw(
        { user_id: ALICE.id },
        { version: '2', event: 'message.error', trace_id: frame.trace_id, emitted_at: 1, chat_id: CHAT, payload: { message_id: frame.payload.message_id, code: serverCode, reason: 'injected', rejected_at: 2 } },
      );
      await assert.rejects(pending, code('SEND_REJECTED', serverCode));
      clock.advance(10 * 150);
      // Acked after the clock moved past the ack timeout: a retry of the refused send would have come before it.
      await alice.send({ chatId: CHAT, text: 'barrier' });
      assert.equal(h.hub.admin.received({ user_id: ALICE.id, event: 'message.send' }).length, 2, 'no automatic retry');
    });
  }

  it('reports capability_missing for history.transit sent without history_sync', async () => {
    const alice = await h.connected(h.client(ALICE, { capabilities: { history_sync: false } }));
    const traceId = alice.sendHistoryTransit({ targetDeviceId: 'usr_alice-d2', payload: { kind: 'history_sync_request' } });
    const r = await next(alice, 'rejected');
    assert.deepEqual([r.code, r.traceId, r.event, r.matched], ['capability_missing', traceId, 'history.transit', true]);
  });

  it('gates a chat after not_member, reopens it on a frame from that chat', async () => {
    const carol = await h.connected(h.client(CAROL));
    await assert.rejects(carol.send({ chatId: CHAT, text: 'x' }), code('SEND_REJECTED', 'not_member'));
    const gated = carol.gatedChats();
    assert.ok(gated[CHAT] >= Date.now() + 590_000 && gated[CHAT] <= Date.now() + 600_000);
    await assert.rejects(carol.send({ chatId: CHAT, text: 'y' }), (e: unknown) => code('CHAT_GATED')(e) && (e as HubError).details?.chatId === CHAT);
    assert.equal(h.hub.admin.received({ user_id: CAROL.id, event: 'message.send' }).length, 1, 'the gated send never left');

    h.hub.admin.setChatMembers(CHAT, [ALICE.id, BOB.id, CAROL.id]);
    const alice = await h.connected(h.client(ALICE));
    const arrived = next(carol, 'message', (m) => m.chatId === CHAT);
    await alice.send({ chatId: CHAT, text: 'welcome carol' });
    await arrived;
    assert.equal(carol.gatedChats()[CHAT], undefined);
    await carol.send({ chatId: CHAT, text: 'thanks' });
  });

  it('reopens a gate on a conversation.* notify.signal but not on conversation.dissolved, which gates typing instead', async () => {
    const carol = await h.connected(h.client(CAROL));
    await assert.rejects(carol.send({ chatId: 'chat-new', text: 'x' }), code('SEND_REJECTED', 'chat_not_found'));
    h.hub.admin.notifySignal({ user_id: CAROL.id, type: 'conversation.dissolved', entity_id: 'chat-new' });
    await next(carol, 'notify', (n) => n.type === 'conversation.dissolved');
    assert.ok(carol.gatedChats()['chat-new']);
    carol.setTyping('chat-new', true);

    h.hub.admin.addChat({ id: 'chat-new', members: [CAROL.id, ALICE.id] });
    h.hub.admin.notifySignal({ user_id: CAROL.id, type: 'conversation.member_added', entity_id: 'chat-new' });
    await next(carol, 'notify', (n) => n.type === 'conversation.member_added');
    assert.equal(carol.gatedChats()['chat-new'], undefined);
    await carol.send({ chatId: 'chat-new', text: 'now it exists' });
    assert.equal(h.hub.admin.received({ user_id: CAROL.id, event: 'typing.update' }).length, 0, 'typing held back in a dissolved chat');
  });

  it('lifts the gate after its bounded window, and never gates exempt chats', async () => {
    const clock = new ManualClock(Date.now());
    const carol = await h.connected(h.client(CAROL, { clock, gateExemptChatIds: ['chat-owner'] }));
    await assert.rejects(carol.send({ chatId: CHAT, text: 'x' }), code('SEND_REJECTED', 'not_member'));
    clock.advance(599_999);
    await assert.rejects(carol.send({ chatId: CHAT, text: 'x' }), code('CHAT_GATED'));
    clock.advance(1);
    await assert.rejects(carol.send({ chatId: CHAT, text: 'x' }), code('SEND_REJECTED', 'not_member'), 'sent again after 600 s');
    await assert.rejects(carol.send({ chatId: 'chat-owner', text: 'x' }), code('SEND_REJECTED', 'chat_not_found'));
    await assert.rejects(carol.send({ chatId: 'chat-owner', text: 'y' }), code('SEND_REJECTED', 'chat_not_found'), 'exempt: not gated');
  });

  it('refuses a non-cnv_ chat id locally when the deployment requires it', async () => {
    const alice = await h.connected(h.client(ALICE, { chatIdRule: 'cnv' }));
    await assert.rejects(alice.send({ chatId: CHAT, text: 'x' }), code('BAD_CHAT_ID'));
    assert.throws(() => alice.setTyping('usr_bob', true), code('BAD_CHAT_ID'));
    assert.equal(h.hub.admin.received({ user_id: ALICE.id }).length, 0);
  });

  it('gives up a send after sendExpiryMs on its own clock', async () => {
    const clock = new ManualClock(Date.now());
    const alice = await h.connected(h.client(ALICE, { clock, sendExpiryMs: 60_000, ackTimeoutMs: 10_000 }));
    h.hub.admin.withholdAcks({ user_id: ALICE.id });
    const rejected = next(alice, 'rejected');
    const pending = alice.send({ chatId: CHAT, text: 'nobody answers' });
    await when(alice, ['frame'], () => h.hub.admin.received({ user_id: ALICE.id, event: 'message.send' }).length === 1);
    clock.advance(10_000);
    await when(alice, ['frame'], () => h.hub.admin.received({ user_id: ALICE.id, event: 'message.send' }).length === 2, 3000).catch(() => undefined);
    assert.equal(h.hub.admin.received({ user_id: ALICE.id, event: 'message.send' }).length, 2, 're-sent after the ack timeout');
    clock.advance(50_000);
    await assert.rejects(pending, code('SEND_EXPIRED'));
    const r = await rejected;
    assert.deepEqual([r.origin, r.code], ['client', 'expired']);
    assert.equal(alice.pendingSends().length, 0);
  });

  it('refuses sends the hub could never accept, and a full outbox, before anything is queued', async () => {
    const alice = h.client(ALICE, { outboxCapacity: 2 });
    await assert.rejects(alice.send({ chatId: CHAT, text: 'x'.repeat(9 * 1024 * 1024) }), code('FRAME_TOO_LARGE'));
    const a = alice.send({ chatId: CHAT, text: '1' });
    const b = alice.send({ chatId: CHAT, text: '2' });
    await assert.rejects(alice.send({ chatId: CHAT, text: '3' }), code('OUTBOX_FULL'));
    const acks: SendAck[] = [];
    alice.on('ack', (x) => acks.push(x));
    await h.connected(alice);
    await Promise.all([a, b]);
    assert.equal(acks.length, 2, 'sends queued while offline go out once connected');
  });

  it('delivers every message kind a flow sends: fragments, mentions, modes', async () => {
    const alice = await h.connected(h.client(ALICE));
    const bob = await h.connected(h.client(BOB));
    const got: InboundMessage[] = collect(bob, 'message');
    await alice.send({ chatId: CHAT, fragments: [{ kind: 'text', text: 'see ' }, { kind: 'image', url: 'https://m/x.png', mime: 'image/png', width: 2, height: 3 }], mentions: [BOB.id] });
    await alice.send({ chatId: CHAT, text: 'hmm', mode: 'thinking' });
    await when(bob, ['message'], () => got.length === 2);
    assert.equal(got[0].fragments[1].kind, 'image');
    assert.equal(got[0].mentionsMe, true);
    assert.equal(got[0].text, 'see ');
    assert.deepEqual([got[1].mode, got[1].isNormalMode], ['thinking', false]);
  });
});
