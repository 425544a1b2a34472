import assert from 'node:assert/strict';
import { sendMessage, textOf, useHub } from './support';

describe('devhub durable inbox and device replay (§11, legacy delivery)', () => {
  const f = useHub();

  it('replays what arrived while a device was offline, then replay.done, then goes live', async () => {
    const alice = await f.login('ta');
    sendMessage(alice, 'chat-ab', 'one');
    sendMessage(alice, 'chat-ab', 'two');
    await alice.event('message.ack');
    await alice.event('message.ack');
    const bob = await f.login('tb', { device_id: 'phone' });
    assert.deepEqual(bob.replay.map((fr) => fr.event), ['message.send', 'message.send', 'replay.done']);
    assert.deepEqual(bob.replay.slice(0, 2).map(textOf), ['one', 'two']);
    sendMessage(alice, 'chat-ab', 'three');
    assert.equal(textOf(await bob.event('message.send')), 'three');
  });

  it('keeps the emitted_at a replayed frame was stored with', async () => {
    const alice = await f.login('ta');
    sendMessage(alice, 'chat-ab', 'old');
    await alice.event('message.ack');
    const stored = f.hub().admin.inbox('usr_b')[0].frame.emitted_at;
    const bob = await f.login('tb');
    assert.equal(bob.replay[0].emitted_at, stored);
  });

  it('sends replay.done on every connection, an empty backlog included', async () => {
    const bob = await f.login('tb');
    assert.deepEqual(bob.replay.map((fr) => fr.event), ['replay.done']);
    assert.match(bob.replay[0].trace_id, /.+/);
  });

  it('advances a legacy cursor on write: a reconnect does not replay what was delivered', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb', { device_id: 'phone' });
    sendMessage(alice, 'chat-ab', 'seen live');
    await bob.event('message.send');
    await bob.barrier();
    await bob.close();
    const again = await f.login('tb', { device_id: 'phone' });
    assert.deepEqual(again.replay.map((fr) => fr.event), ['replay.done']);
  });

  it('keeps one cursor per device: each device replays the backlog on its own', async () => {
    const alice = await f.login('ta');
    const phone = await f.login('tb', { device_id: 'phone' });
    sendMessage(alice, 'chat-ab', 'for every device');
    await phone.event('message.send');
    const laptop = await f.login('tb', { device_id: 'laptop' });
    assert.equal(textOf(laptop.replay[0]), 'for every device');
    await phone.barrier();
    const cursors = f.hub().admin.cursors('usr_b');
    assert.equal(cursors.phone, cursors.laptop);
  });

  it('upserts by (recipient, message_id): a retry is one row, re-bumped, replayed once', async () => {
    const alice = await f.login('ta');
    const id = 'msg-01J00000000000000000000001';
    sendMessage(alice, 'chat-ab', 'first try', { message_id: id });
    sendMessage(alice, 'chat-ab', 'other');
    sendMessage(alice, 'chat-ab', 'second try', { message_id: id });
    for (let i = 0; i < 3; i++) await alice.event('message.ack');
    const rows = f.hub().admin.inbox('usr_b');
    assert.deepEqual(rows.map((r) => textOf(r.frame)), ['other', 'second try']);
    assert.ok(rows[1].seq > rows[0].seq);
    const bob = await f.login('tb');
    assert.deepEqual(bob.replay.filter((fr) => fr.event === 'message.send').map((fr) => fr.payload.message_id), [rows[0].message_id, id]);
  });

  it('gives a brand-new device the full retained inbox', async () => {
    const alice = await f.login('ta');
    for (const t of ['a', 'b', 'c']) sendMessage(alice, 'chat-abc', t);
    for (let i = 0; i < 3; i++) await alice.event('message.ack');
    const carol = await f.login('tc', { device_id: 'brand-new' });
    assert.deepEqual(carol.replay.filter((fr) => fr.event === 'message.send').map(textOf), ['a', 'b', 'c']);
  });

  it('device.cursor.reset rewinds the cursor to 0 and closes this connection only (1005, no ack)', async () => {
    const alice = await f.login('ta');
    sendMessage(alice, 'chat-ab', 'history');
    await alice.event('message.ack');
    const phone = await f.login('tb', { device_id: 'phone' });
    const laptop = await f.login('tb', { device_id: 'laptop' });
    await phone.barrier();
    phone.send({ version: '2', event: 'device.cursor.reset', trace_id: 'reset-01', emitted_at: Date.now(), payload: {} });
    const closed = await phone.closed;
    assert.equal(closed.code, 1005);
    assert.equal(phone.queue.length, 0);
    assert.equal(f.hub().admin.cursors('usr_b').phone, 0);
    assert.equal(laptop.closeInfo, undefined);
    const again = await f.login('tb', { device_id: 'phone' });
    assert.deepEqual(again.replay.map((fr) => fr.event), ['message.send', 'replay.done']);
  });
});

describe('devhub delivery receipts (§14.4)', () => {
  const f = useHub();

  it('routes message.delivered by to.id to the original sender\'s devices that advertised delivery_receipt', async () => {
    const capable = await f.login('ta', { device_id: 'capable', capabilities: { delivery_receipt: true } });
    const plain = await f.login('ta', { device_id: 'plain' });
    const bob = await f.login('tb', { capabilities: { delivery_receipt: true } });
    bob.send({
      version: '2',
      event: 'message.delivered',
      trace_id: 'rc-1',
      emitted_at: 5,
      chat_id: 'chat-ab',
      to: { id: 'usr_a', type: 'direct' },
      sender: { id: 'usr_forged' },
      payload: { message_id: 'msg-01J00000000000000000000001', delivered_at: 1234 },
    });
    const receipt = await capable.event('message.delivered');
    assert.deepEqual(receipt.sender, { id: 'usr_b', type: 'direct', nick_name: 'Bob' });
    assert.deepEqual(receipt.payload, { message_id: 'msg-01J00000000000000000000001', delivered_at: 1234 });
    assert.equal('chat_type' in receipt, false);
    assert.deepEqual(await plain.barrier(), []);
    assert.deepEqual(await bob.barrier(), []);
  });

  it('drops a receipt for a sender who is offline: nothing is stored', async () => {
    const bob = await f.login('tb');
    bob.send({ version: '2', event: 'message.delivered', trace_id: 'rc-2', emitted_at: 5, to: { id: 'usr_a' }, payload: { message_id: 'm', delivered_at: 1 } });
    await bob.barrier();
    const alice = await f.login('ta', { capabilities: { delivery_receipt: true } });
    assert.deepEqual(alice.replay.map((fr) => fr.event), ['replay.done']);
  });
});
