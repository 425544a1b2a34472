import assert from 'node:assert/strict';
import { adminFetch, sendMessage, textOf, useHub, type Frame } from './support';

const V2 = { reliable_delivery: true, reliable_delivery_v2: true };

describe('devhub faults (admin interface)', () => {
  const f = useHub();

  it('drops a connection now: the client sees 1006, the hub reports a disconnect', async () => {
    const bob = await f.login('tb');
    const gone = f.hub().admin.waitFor('disconnect', (d) => d.user_id === 'usr_b');
    assert.equal(f.hub().admin.dropConnection({ user_id: 'usr_b' }), 1);
    assert.equal((await bob.closed).code, 1006);
    await gone;
    assert.deepEqual(f.hub().admin.devices(), []);
  });

  it('drops a connection after N more downlink frames and sends nothing after them', async () => {
    const alice = await f.login('ta');
    for (let i = 0; i < 5; i++) sendMessage(alice, 'chat-ab', `m${i}`);
    for (let i = 0; i < 5; i++) await alice.event('message.ack');
    const bob = await f.login('tb', { device_id: 'p' });
    f.hub().admin.dropConnection({ user_id: 'usr_b' }, { after_frames: 2 });
    for (let i = 0; i < 3; i++) sendMessage(alice, 'chat-ab', `live${i}`);
    await bob.closed;
    assert.deepEqual(bob.queue.map(textOf), ['live0', 'live1']);
  });

  it('destroys the socket at once in terminate mode (1006)', async () => {
    const bob = await f.login('tb');
    f.hub().admin.dropConnection({ user_id: 'usr_b' }, { mode: 'terminate' });
    assert.equal((await bob.closed).code, 1006);
  });

  it('drops with a close frame without status (1005) in close mode', async () => {
    const bob = await f.login('tb');
    f.hub().admin.dropConnection({ user_id: 'usr_b' }, { mode: 'close' });
    assert.equal((await bob.closed).code, 1005);
  });

  it('withholds the next N acks while still delivering the messages', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb');
    f.hub().admin.withholdAcks({ user_id: 'usr_a', count: 1 });
    sendMessage(alice, 'chat-ab', 'unacked', { trace_id: 'w1' });
    sendMessage(alice, 'chat-ab', 'acked', { trace_id: 'w2' });
    assert.equal((await alice.event('message.ack')).trace_id, 'w2');
    assert.deepEqual([textOf(await bob.event('message.send')), textOf(await bob.event('message.send'))], ['unacked', 'acked']);
    assert.deepEqual(f.hub().admin.faults().withhold_acks, []);
  });

  it('delays acks: the ack comes after frames sent later', async () => {
    const alice = await f.login('ta');
    f.hub().admin.delayAcks({ ms: 250, count: 1 });
    sendMessage(alice, 'chat-ab', 'slow', { trace_id: 'd1' });
    const before = await alice.barrier();
    assert.equal(before.some((fr) => fr.event === 'message.ack'), false);
    assert.equal((await alice.event('message.ack')).trace_id, 'd1');
  });

  it('skips a dseq: the next stamped frame leaves a gap a client must detect', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb', { capabilities: V2, autoAck: false });
    assert.equal(f.hub().admin.skipDseq({ user_id: 'usr_b' }), 1);
    sendMessage(alice, 'chat-ab', 'after the gap');
    assert.equal((await bob.event('message.send')).dseq, 3, 'replay.done was 1, 2 is missing');
  });

  it('sends an unknown event carrying a dseq on v2 (none on legacy), which must be acked like any other', async () => {
    const v2 = await f.login('tb', { device_id: 'v2', capabilities: V2, autoAck: false });
    const legacy = await f.login('tb', { device_id: 'legacy' });
    assert.equal(f.hub().admin.sendUnknownEvent({ user_id: 'usr_b' }, { event: 'future.thing', payload: { x: 1 } }), 2);
    const unknown = await v2.event('future.thing');
    assert.equal(unknown.dseq, 2);
    assert.deepEqual(unknown.payload, { x: 1 });
    assert.equal('dseq' in (await legacy.event('future.thing')), false);
    v2.ackDseq(unknown);
    await v2.barrier();
    assert.equal(f.hub().admin.devices().find((d) => d.device_id === 'v2')!.unacked, 0);
  });

  it('queues a durable poison frame that replays until its dseq is acked', async () => {
    const id = f.hub().admin.sendPoisonFrame({ user_id: 'usr_b', shape: 'body' });
    const first = await f.login('tb', { capabilities: V2, autoAck: false });
    const poison = first.replay[0];
    assert.equal(poison.payload.message_id, id);
    assert.equal(typeof poison.payload.message.body, 'number');
    await first.close();
    const second = await f.login('tb', { capabilities: V2, autoAck: false });
    assert.equal(second.replay[0].payload.message_id, id);
    second.ackDseq(second.replay[0]);
    await second.barrier();
    await second.close();
    const third = await f.login('tb', { capabilities: V2 });
    assert.deepEqual(third.replay.map((fr) => fr.event), ['replay.done']);
  });

  it('offers a payload-shaped poison and a mentions-shaped one', async () => {
    f.hub().admin.sendPoisonFrame({ user_id: 'usr_b', shape: 'payload' });
    f.hub().admin.sendPoisonFrame({ user_id: 'usr_b' });
    const bob = await f.login('tb');
    assert.equal(bob.replay[0].payload, 'not an object');
    assert.ok(Array.isArray(bob.replay[1].payload.message.context.mentions));
  });

  it('sends raw text that bypasses every rule', async () => {
    const bob = await f.login('tb');
    f.hub().admin.sendRaw({ user_id: 'usr_b' }, '{"event":"weird"');
    assert.equal((await bob.next()).text, '{"event":"weird"');
  });

  it('refuses bad admin arguments with a coded error', () => {
    assert.throws(() => f.hub().admin.notifySignal({ user_id: '', type: 't', entity_id: 'e' }), { code: 'BAD_ADMIN_REQUEST' });
    assert.throws(() => f.hub().admin.delayAcks({ ms: -1 }), { code: 'BAD_ADMIN_REQUEST' });
    assert.throws(() => f.hub().admin.sendPoisonFrame({ user_id: 'usr_b', shape: 'nope' as never }), { code: 'BAD_ADMIN_REQUEST' });
  });

  it('edits the directory: a new chat and a new user work at once, a removed member gets not_member', async () => {
    f.hub().admin.addUser({ id: 'usr_e', token: 'te' });
    f.hub().admin.addChat({ id: 'chat-ae', members: ['usr_a', 'usr_e'] });
    const alice = await f.login('ta');
    const eve = await f.login('te');
    sendMessage(alice, 'chat-ae', 'welcome');
    assert.equal(textOf(await eve.event('message.send')), 'welcome');
    f.hub().admin.setChatMembers('chat-ae', ['usr_e']);
    sendMessage(alice, 'chat-ae', 'gone');
    const errors = (await alice.barrier()).filter((fr: Frame) => fr.event === 'message.error');
    assert.equal(errors[0].payload.code, 'not_member');
  });
});

describe('devhub admin HTTP API', () => {
  const f = useHub();

  async function call(method: 'GET' | 'POST', route: string, body?: unknown): Promise<{ status: number; json: Frame }> {
    const res = await adminFetch(f.hub(), route, { method, body });
    return { status: res.status, json: (await res.json()) as Frame };
  }

  it('listens on loopback and injects a notify.signal, then shows the inbox', async () => {
    assert.match(f.hub().adminUrl, /^http:\/\/127\.0\.0\.1:\d+\/admin$/);
    const bob = await f.login('tb', { capabilities: { notify_signals: true } });
    const sent = await call('POST', 'notify-signal', { user_id: 'usr_b', type: 'friend.added', entity_id: 'usr_a' });
    assert.equal(sent.status, 200);
    assert.equal(sent.json.ok, true);
    assert.equal(sent.json.result.message_id, 'notify:friend.added:usr_a');
    await bob.event('notify.signal');
    const inbox = await call('GET', 'inbox?user_id=usr_b');
    assert.equal(inbox.json.result[0].event, 'notify.signal');
    const devices = await call('GET', 'devices');
    assert.equal(devices.json.result[0].user_id, 'usr_b');
  });

  it('runs faults over HTTP: refuse auth, then clear', async () => {
    assert.equal((await call('POST', 'faults/refuse-auth', { reason: 'remote auth service unavailable' })).status, 200);
    await assert.rejects(f.login('ta'), /remote auth service unavailable/);
    assert.equal((await call('GET', 'faults')).json.result.refuse_auth[0].remaining, -1);
    await call('POST', 'faults/clear');
    await f.login('ta');
  });

  it('answers 400 with the error code for bad input and 404 for an unknown route', async () => {
    const bad = await call('POST', 'notify-signal', { user_id: 'usr_b' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.code, 'BAD_ADMIN_REQUEST');
    const notJson = await fetch(`${f.hub().adminUrl}/sweep`, { method: 'POST', headers: { authorization: `Bearer ${f.hub().adminToken}`, 'content-type': 'application/json' }, body: '{nope' });
    assert.equal(notJson.status, 400);
    assert.equal((await call('GET', 'nothing-here')).status, 404);
    assert.equal((await call('GET', 'inbox')).status, 400);
  });

  it('answers GET on the admin URL itself with an index of its routes, every listed read answering 200', async () => {
    for (const url of [f.hub().adminUrl, `${f.hub().adminUrl}/`]) {
      const res = await fetch(url);
      assert.equal(res.status, 200, url);
      const index = ((await res.json()) as Frame).result;
      assert.ok(index.post.includes('/admin/faults/drop'));
      assert.ok(index.get.includes('/admin/inbox?user_id=ID'));
      for (const route of index.get as string[]) {
        const read = await adminFetch(f.hub(), route.replace(/^\/admin\//, '').replace(/\[.*\]$/, '').replace('=ID', '=usr_a'));
        assert.equal(read.status, 200, route);
      }
    }
    assert.equal((await call('POST', '')).status, 404, 'the index is read-only');
  });

  it('lists received uplinks with the token never recorded', async () => {
    const alice = await f.login('ta');
    sendMessage(alice, 'chat-ab', 'logged');
    await alice.event('message.ack');
    const received = await call('GET', 'received?user_id=usr_a&event=message.send');
    assert.equal(received.json.result.length, 1);
    assert.equal(JSON.stringify((await call('GET', 'received')).json).includes('"ta"'), false);
  });
});
