import assert from 'node:assert/strict';
import { BASE_OPTIONS, sendMessage, textOf, trace, TestClient, useHub, withSettings, type Frame } from './support';

const V1 = { reliable_delivery: true };
const V2 = { reliable_delivery: true, reliable_delivery_v2: true };

async function sendAndAck(client: TestClient, chat: string, texts: string[]): Promise<void> {
  for (const t of texts) sendMessage(client, chat, t);
  for (let i = 0; i < texts.length; i++) await client.event('message.ack');
}

function cursorAck(client: TestClient, seq: number): void {
  client.send({ version: '2', event: 'message.cursor_ack', trace_id: trace('ca'), emitted_at: 1, payload: { seq } });
}

describe('devhub v1 reliable delivery: seq, cursor_ack, history.truncated (§11.7)', () => {
  const f = useHub();

  it('stamps the storage seq only for reliable_delivery clients, and it is sparse across recipients', async () => {
    const alice = await f.login('ta');
    await sendAndAck(alice, 'chat-ab', ['b1']);
    await sendAndAck(alice, 'chat-abc', ['bc1']);
    await sendAndAck(alice, 'chat-ab', ['b2']);
    const carol = await f.login('tc', { capabilities: V1 });
    const seqs = carol.replay.filter((fr) => fr.event === 'message.send').map((fr) => fr.seq);
    assert.equal(seqs.length, 1);
    const bob = await f.login('tb', { capabilities: V1 });
    const bobSeqs = bob.replay.filter((fr) => fr.event === 'message.send').map((fr) => fr.seq as number);
    assert.equal(bobSeqs.length, 3);
    assert.ok(bobSeqs[0] < bobSeqs[1] && bobSeqs[1] < bobSeqs[2]);
    // Carol's row sits between Bob's in the one seq space: Bob's space has a hole.
    assert.ok(bobSeqs.some((s, i) => i > 0 && s - bobSeqs[i - 1] > 1));
    const legacy = await f.login('tb', { device_id: 'legacy' });
    assert.equal(legacy.replay.some((fr) => 'seq' in fr), false);
  });

  it('advances the cursor only on message.cursor_ack, read as a high-water mark', async () => {
    const alice = await f.login('ta');
    await sendAndAck(alice, 'chat-ab', ['1', '2', '3']);
    const first = await f.login('tb', { device_id: 'p', capabilities: V1 });
    const rows = first.replay.filter((fr) => fr.event === 'message.send');
    await first.close();
    const second = await f.login('tb', { device_id: 'p', capabilities: V1 });
    assert.deepEqual(second.replay.filter((fr) => fr.event === 'message.send').map(textOf), ['1', '2', '3']);
    cursorAck(second, rows[1].seq);
    await second.barrier();
    assert.equal(f.hub().admin.cursors('usr_b').p, rows[1].seq);
    await second.close();
    const third = await f.login('tb', { device_id: 'p', capabilities: V1 });
    assert.deepEqual(third.replay.filter((fr) => fr.event === 'message.send').map(textOf), ['3']);
  });

  it('caps an ack beyond what the connection walked, and ignores a malformed one', async () => {
    const alice = await f.login('ta');
    await sendAndAck(alice, 'chat-ab', ['only']);
    const bob = await f.login('tb', { capabilities: V1 });
    const seq = bob.replay[0].seq as number;
    bob.send({ version: '2', event: 'message.cursor_ack', trace_id: 'bad', emitted_at: 1, payload: { seq: 'x' } });
    await bob.barrier();
    assert.equal(f.hub().admin.cursors('usr_b').usr_b, undefined);
    cursorAck(bob, 1e12);
    await bob.barrier();
    assert.equal(f.hub().admin.cursors('usr_b').usr_b, seq);
  });

  it('sends history.truncated{oldest_seq} first when retention pruned past the cursor, and skips the hole', async () => {
    const alice = await f.login('ta');
    await sendAndAck(alice, 'chat-ab', ['gone-1', 'gone-2', 'kept']);
    assert.equal(f.hub().admin.prune('usr_b', { keep_last: 1 }), 2);
    const kept = f.hub().admin.inbox('usr_b')[0];
    const bob = await f.login('tb', { device_id: 'p', capabilities: V1 });
    assert.deepEqual(bob.replay.map((fr) => fr.event), ['history.truncated', 'message.send', 'replay.done']);
    assert.deepEqual(bob.replay[0].payload, { oldest_seq: kept.seq });
    assert.equal(textOf(bob.replay[1]), 'kept');
    await bob.close();
    const again = await f.login('tb', { device_id: 'p', capabilities: V1 });
    assert.equal(again.replay[0].event, 'message.send', 'the hole is reported once');
  });

  it('sends no history.truncated and no seq to a v2-only client (the trap of §3.3)', async () => {
    const alice = await f.login('ta');
    await sendAndAck(alice, 'chat-ab', ['gone', 'kept']);
    f.hub().admin.prune('usr_b', { keep_last: 1 });
    const bob = await f.login('tb', { capabilities: { reliable_delivery_v2: true } });
    assert.deepEqual(bob.replay.map((fr) => fr.event), ['message.send', 'replay.done']);
    assert.equal('seq' in bob.replay[0], false);
    assert.equal(typeof bob.replay[0].dseq, 'number');
  });

  it('stamps both seq and dseq when both generations are granted, and ignores cursor_ack there', async () => {
    const alice = await f.login('ta');
    await sendAndAck(alice, 'chat-ab', ['x']);
    const bob = await f.login('tb', { capabilities: V2, autoAck: false });
    const row = bob.replay[0];
    assert.equal(typeof row.seq, 'number');
    assert.equal(row.dseq, 1);
    cursorAck(bob, row.seq);
    await bob.barrier();
    assert.equal(f.hub().admin.cursors('usr_b').usr_b, undefined);
  });
});

describe('devhub v2 reliable delivery: dseq, sync_ack, sync.mark (§11.7)', () => {
  const f = useHub();

  it('stamps a dense dseq from 1 on exactly the ackable events, replay.done included', async () => {
    const alice = await f.login('ta');
    await sendAndAck(alice, 'chat-ab', ['a', 'b']);
    const bob = await f.login('tb', { capabilities: { ...V2, notify_signals: true } });
    assert.deepEqual(bob.replay.map((fr) => [fr.event, fr.dseq]), [['message.send', 1], ['message.send', 2], ['replay.done', 3]]);
    sendMessage(alice, 'chat-ab', 'live');
    alice.send({ version: '2', event: 'typing.update', trace_id: 'ty', emitted_at: 1, chat_id: 'chat-ab', payload: { is_typing: true } });
    assert.equal((await bob.event('message.send')).dseq, 4);
    assert.equal('dseq' in (await bob.event('typing.update')), false);
    f.hub().admin.notifySignal({ user_id: 'usr_b', type: 'friend.added', entity_id: 'usr_a' });
    assert.equal((await bob.event('notify.signal')).dseq, 5);
    bob.send({ version: '2', event: 'ping', trace_id: 'p', emitted_at: 1, payload: {} });
    assert.equal('dseq' in (await bob.event('pong')), false);
  });

  it('advances the device cursor on sync_ack and replays the unacked rest on a fresh epoch from dseq 1', async () => {
    const alice = await f.login('ta');
    await sendAndAck(alice, 'chat-ab', ['1', '2', '3']);
    const first = await f.login('tb', { device_id: 'p', capabilities: V2, autoAck: false });
    first.ackDseq(first.replay[1]);
    await first.barrier();
    assert.equal(f.hub().admin.cursors('usr_b').p, first.replay[1].seq);
    await first.close();
    const second = await f.login('tb', { device_id: 'p', capabilities: V2, autoAck: false });
    assert.notEqual(second.epoch, first.epoch);
    assert.deepEqual(second.replay.map((fr) => [fr.event, fr.dseq, fr.event === 'message.send' ? textOf(fr) : '']), [
      ['message.send', 1, '3'],
      ['replay.done', 2, ''],
    ]);
  });

  it('ignores a sync_ack with the wrong epoch, a dseq out of range, or one already acked', async () => {
    const alice = await f.login('ta');
    await sendAndAck(alice, 'chat-ab', ['1', '2']);
    const bob = await f.login('tb', { capabilities: V2, autoAck: false });
    const send = (payload: Frame): void => bob.send({ version: '2', event: 'message.sync_ack', trace_id: trace('sa'), emitted_at: 1, payload });
    send({ dseq: 1, epoch: 'WRONG' });
    send({ dseq: 99, epoch: bob.epoch });
    send({ dseq: 0, epoch: bob.epoch });
    await bob.barrier();
    const state = () => f.hub().admin.devices().find((d) => d.user_id === 'usr_b')!;
    assert.equal(state().acked_dseq, 0);
    send({ dseq: 2, epoch: bob.epoch });
    send({ dseq: 1, epoch: bob.epoch });
    await bob.barrier();
    assert.equal(state().acked_dseq, 2);
    assert.equal(state().unacked, 1);
  });

  it('covers skipped rows with sync.mark: the sender\'s own echo row on a multi_device v2 connection', async () => {
    const phone = await f.login('ta', { device_id: 'phone', capabilities: { ...V2, multi_device: true }, autoAck: false });
    sendMessage(phone, 'chat-ab', 'mine');
    await phone.event('message.ack');
    const mark = await phone.event('sync.mark');
    const row = f.hub().admin.inbox('usr_a')[0];
    assert.equal(mark.dseq, 2);
    assert.deepEqual(mark.payload, { covers_seq: row.seq });
    assert.equal('trace_id' in mark, false);
    phone.ackDseq(mark);
    await phone.barrier();
    assert.equal(f.hub().admin.cursors('usr_a').phone, row.seq);
  });

  it('skips notify.signal on v2 without notify_signals, live and on replay, covering it with sync.mark', async () => {
    const bob = await f.login('tb', { capabilities: V2, autoAck: false });
    f.hub().admin.notifySignal({ user_id: 'usr_b', type: 'friend.added', entity_id: 'usr_a' });
    const mark = await bob.event('sync.mark');
    assert.equal(mark.payload.covers_seq, f.hub().admin.inbox('usr_b')[0].seq);
    await bob.close();
    const again = await f.login('tb', { capabilities: V2 });
    assert.deepEqual(again.replay.map((fr) => fr.event), ['replay.done']);
  });
});

describe('devhub v2 kicks: ack silence with backoff, unacked window (§11.7)', () => {
  let clock = 1_000_000;
  const f = useHub(
    withSettings({ ack_silence_kick_ms: 120_000, ack_sweep_interval_ms: 0, unacked_window_max: 4, kick_backoff: { after_kicks: 2, base_ms: 300_000 } }),
    { now: () => clock },
  );

  it('kicks a connection holding unacked frames after the ack silence, with a close without status (1005)', async () => {
    const bob = await f.login('tb', { capabilities: V2, autoAck: false });
    f.hub().admin.sweep();
    assert.equal(bob.closeInfo, undefined);
    clock += 120_000;
    const kick = f.hub().admin.waitFor('kick');
    f.hub().admin.sweep();
    assert.equal((await kick).reason, 'ack_silence');
    assert.equal((await bob.closed).code, 1005);
  });

  it('does not kick a silent connection with nothing unacked', async () => {
    const bob = await f.login('tb', { capabilities: V2 });
    await bob.barrier();
    clock += 500_000;
    f.hub().admin.sweep();
    await bob.barrier();
    assert.equal(bob.closeInfo, undefined);
  });

  it('backs off after consecutive kicks and leaves the device connected meanwhile', async () => {
    for (let i = 0; i < 2; i++) {
      const c = await f.login('tb', { device_id: 'slow', capabilities: V2, autoAck: false });
      clock += 120_000;
      f.hub().admin.sweep();
      assert.equal((await c.closed).code, 1005);
    }
    const held = await f.login('tb', { device_id: 'slow', capabilities: V2, autoAck: false });
    clock += 120_000; // silent long enough, but inside the 300 s backoff that follows two kicks
    f.hub().admin.sweep();
    await held.barrier();
    assert.equal(held.closeInfo, undefined, 'held back by the backoff');
    clock += 180_000;
    f.hub().admin.sweep();
    assert.equal((await held.closed).code, 1005);
  });

  it('kicks a live connection at once when its unacked window exceeds the limit', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb', { capabilities: V2, autoAck: false });
    const kick = f.hub().admin.waitFor('kick');
    await sendAndAck(alice, 'chat-ab', ['1', '2', '3', '4']);
    assert.equal((await kick).reason, 'unacked_window');
    assert.equal((await bob.closed).code, 1005);
  });
});

describe('devhub v2 replay throttle', () => {
  const f = useHub(withSettings({ replay_throttle: 2 }));

  it('pauses replay at the throttle depth until acks arrive, and holds live traffic until replay.done', async () => {
    const alice = await f.login('ta');
    await sendAndAck(alice, 'chat-ab', ['1', '2', '3', '4', '5']);
    const bob = await TestClient.open(f.hub().wsUrl);
    const { payload } = await bob.event('connect.challenge');
    bob.send({ version: '2', event: 'connect', trace_id: 'c', emitted_at: 1, payload: { token: 'tb', nonce: payload.nonce, capabilities: V2 } });
    bob.epoch = (await bob.event('hello-ok')).payload.ack_epoch;
    const first = [await bob.event('message.send'), await bob.event('message.send')];
    alice.send({ version: '2', event: 'typing.update', trace_id: 'held', emitted_at: 1, chat_id: 'chat-ab', payload: { is_typing: true } });
    await alice.barrier();
    assert.deepEqual((await bob.barrier()).map((fr) => fr.event), [], 'paused at two unacked frames');
    const order: string[] = [];
    bob.ws.on('message', (d: Buffer) => {
      const fr = JSON.parse(d.toString()) as Frame;
      order.push(fr.event);
      if (typeof fr.dseq === 'number') bob.ackDseq(fr);
    });
    bob.ackDseq(first[1]);
    await bob.event('typing.update');
    assert.deepEqual(order, ['message.send', 'message.send', 'message.send', 'replay.done', 'typing.update']);
    bob.ws.terminate();
  });
});

describe('devhub reliability defaults', () => {
  const f = useHub(BASE_OPTIONS);
  it('grants nothing reliable to a client that advertised nothing', async () => {
    const c = await f.login('ta');
    assert.equal(f.hub().admin.devices()[0].ack_mode, 'legacy');
    assert.equal('ack_mode' in c.hello!.payload, false);
  });
});

describe('devhub retention by age', () => {
  let clock = 5_000_000;
  const f = useHub(withSettings({ retention: { max_age_ms: 60_000, sweep_interval_ms: 0 } }), { now: () => clock });

  it('prunes rows older than max_age_ms on the sweep, and a v1 device learns of it through history.truncated', async () => {
    const alice = await f.login('ta');
    await sendAndAck(alice, 'chat-ab', ['old']);
    clock += 61_000;
    await sendAndAck(alice, 'chat-ab', ['new']);
    f.hub().admin.sweep();
    assert.deepEqual(f.hub().admin.inbox('usr_b').map((r) => textOf(r.frame)), ['new']);
    const bob = await f.login('tb', { capabilities: V1 });
    assert.deepEqual(bob.replay.map((fr) => fr.event), ['history.truncated', 'message.send', 'replay.done']);
  });
});

