import assert from 'node:assert/strict';
import { sendMessage, textOf, trace, useHub, withSettings, type TestClient } from './support';

const M1 = 'msg-01J0000000000000000000STRM';

function stream(client: TestClient, chat: string, id = M1): void {
  const base = { version: '2', chat_id: chat, emitted_at: 1 };
  client.send({ ...base, event: 'message.created', trace_id: trace('c'), payload: { message_id: id, message_mode: 'thinking' } });
  const adds = [
    ['Hello', 'Hello'],
    ['Hello, world', ', world'],
  ];
  adds.forEach(([text, delta], sequence) =>
    client.send({
      ...base,
      event: 'message.add',
      trace_id: trace('a'),
      payload: {
        message_id: id,
        sequence,
        mutation: { type: 'append', target_fragment_index: 0 },
        fragments: [{ kind: 'text', text, delta, bogus: 1 }],
        streaming: { status: 'streaming', sequence, mutation_policy: 'append_text_only', started_at: null, completed_at: null },
        added_at: 10 + sequence,
        extra: 'dropped',
      },
    }),
  );
  client.send({
    ...base,
    event: 'message.done',
    trace_id: trace('d'),
    payload: {
      message_id: id,
      fragments: [{ kind: 'text', text: 'Hello, world' }],
      streaming: { status: 'done', sequence: 1, mutation_policy: 'append_text_only', started_at: null, completed_at: 20 },
      completed_at: 20,
    },
  });
}

describe('devhub streaming relay (§8)', () => {
  const f = useHub();

  it('relays the lifecycle live with sender, chat_type and origin_device_id stamped, delta kept on add only', async () => {
    const agent = await f.login('ta', { device_id: 'agent' });
    const bob = await f.login('tb');
    stream(agent, 'chat-ab');
    const created = await bob.event('message.created');
    assert.deepEqual(created.payload, { message_id: M1, message_mode: 'thinking' });
    assert.equal(created.sender.id, 'usr_a');
    assert.equal(created.chat_type, 'direct');
    assert.equal(created.origin_device_id, 'agent');
    const add = await bob.event('message.add');
    assert.deepEqual(add.payload.fragments, [{ kind: 'text', text: 'Hello', delta: 'Hello' }]);
    assert.deepEqual(add.payload.mutation, { type: 'append', target_fragment_index: 0 });
    assert.equal(add.payload.sequence, 0);
    assert.equal(add.payload.added_at, 10);
    assert.equal('extra' in add.payload, false);
    await bob.event('message.add');
    const done = await bob.event('message.done');
    assert.deepEqual(done.payload.fragments, [{ kind: 'text', text: 'Hello, world' }]);
    assert.equal(done.payload.streaming.status, 'done');
    assert.equal('dseq' in done, false);
    assert.deepEqual(await agent.barrier(), [], 'no ack for streaming events');
  });

  it('persists one merged message.reply for an offline recipient, and does not deliver it live to an online one', async () => {
    const agent = await f.login('ta');
    const online = await f.login('tc');
    stream(agent, 'chat-abc');
    await online.event('message.done');
    sendMessage(agent, 'chat-abc', 'barrier');
    assert.equal(textOf(await online.event('message.send')), 'barrier');
    assert.equal(online.queue.some((fr) => fr.event === 'message.reply'), false);
    const bob = await f.login('tb');
    const merged = bob.replay.filter((fr) => fr.event === 'message.reply');
    assert.equal(merged.length, 1);
    assert.equal(merged[0].payload.message_id, M1);
    assert.equal(merged[0].payload.message_mode, 'thinking');
    assert.deepEqual(merged[0].payload.message.body.fragments, [{ kind: 'text', text: 'Hello, world' }]);
    assert.equal(merged[0].payload.message.streaming.status, 'static');
    assert.equal(merged[0].payload.message.streaming.mutation_policy, 'sealed');
    assert.equal('stream_merged' in merged[0].payload, false);
    assert.equal(bob.replay.some((fr) => ['message.created', 'message.add', 'message.done'].includes(fr.event)), false);
  });

  it('collapses the finalize reply that reuses the stream id into the same row', async () => {
    const agent = await f.login('ta');
    stream(agent, 'chat-ab');
    sendMessage(agent, 'chat-ab', 'Final answer: 42.', { message_id: M1, event: 'message.reply' });
    await agent.event('message.ack');
    const rows = f.hub().admin.inbox('usr_b');
    assert.deepEqual(rows.map((r) => [r.message_id, textOf(r.frame)]), [[M1, 'Final answer: 42.']]);
  });

  it('persists nothing for a failed stream', async () => {
    const agent = await f.login('ta');
    agent.send({ version: '2', event: 'message.created', trace_id: 'c', emitted_at: 1, chat_id: 'chat-ab', payload: { message_id: M1 } });
    agent.send({ version: '2', event: 'message.failed', trace_id: 'x', emitted_at: 1, chat_id: 'chat-ab', payload: { message_id: M1, fragments: [], streaming: { status: 'failed' } } });
    await agent.barrier();
    assert.deepEqual(f.hub().admin.inbox('usr_b'), []);
  });

  it('refuses a streaming uplink without message_id with bad_request, and a non-member with not_member', async () => {
    const agent = await f.login('ta');
    agent.send({ version: '2', event: 'message.add', trace_id: 'no-id', emitted_at: 1, chat_id: 'chat-ab', payload: {} });
    assert.equal((await agent.event('message.error')).payload.code, 'bad_request');
    const dan = await f.login('td');
    dan.send({ version: '2', event: 'message.created', trace_id: 'nm', emitted_at: 1, chat_id: 'chat-ab', payload: { message_id: M1 } });
    assert.equal((await dan.event('message.error')).payload.code, 'not_member');
  });
});

describe('devhub streaming with stream_merged', () => {
  const f = useHub(withSettings({ stream_merged: true }));

  it('delivers the materialized merged reply live too, flagged stream_merged: true, and stores the flag', async () => {
    const agent = await f.login('ta');
    const bob = await f.login('tb');
    stream(agent, 'chat-ab');
    await bob.event('message.done');
    const merged = await bob.event('message.reply');
    assert.equal(merged.payload.stream_merged, true);
    assert.equal(merged.payload.message_id, M1);
    assert.equal(f.hub().admin.inbox('usr_b')[0].stream_merged, true);
  });
});
