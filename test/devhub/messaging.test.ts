import assert from 'node:assert/strict';
import { sendMessage, textOf, trace, useHub, withSettings, type Frame, type TestClient } from './support';

const MSG_ID = 'msg-01HVB6S7K8L9M0N1P2Q3R4S5T6';

function uplink(event: string, extra: Record<string, unknown>): Frame {
  return { version: '2', event, trace_id: trace('u'), emitted_at: Date.now(), ...extra };
}

function body(text = 'hi'): Record<string, unknown> {
  return { message_mode: 'normal', message: { body: { fragments: [{ kind: 'text', text }] }, context: { mentions: [], reply: null } } };
}

/** Sends `frame`, then a barrier; returns what came back before the barrier's pong. */
async function replyTo(client: TestClient, frame: Frame): Promise<Frame[]> {
  client.send(frame);
  return client.barrier();
}

describe('devhub message.send / message.reply (§7)', () => {
  const f = useHub();

  it('acks the sender with its trace_id and message_id, and delivers the materialized downlink', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb');
    const traceId = sendMessage(alice, 'chat-ab', 'hi bob', { message_id: MSG_ID });
    const ack = await alice.event('message.ack');
    assert.equal(ack.trace_id, traceId);
    assert.equal(ack.chat_id, 'chat-ab');
    assert.equal(ack.payload.message_id, MSG_ID);
    assert.equal(typeof ack.payload.accepted_at, 'number');
    assert.equal('sender' in ack, false);
    assert.equal('chat_type' in ack, false);
    const down = await bob.event('message.send');
    assert.equal(down.chat_type, 'direct');
    assert.deepEqual(down.sender, { id: 'usr_a', type: 'direct', nick_name: 'Alice' });
    assert.equal(down.payload.message_id, MSG_ID);
    assert.equal(down.payload.message_mode, 'normal');
    assert.deepEqual(down.payload.message.streaming, { status: 'static', sequence: 0, mutation_policy: 'sealed', started_at: null, completed_at: null });
    assert.equal(textOf(down), 'hi bob');
    assert.equal(down.origin_device_id, 'usr_a');
  });

  it('mints msg-<ULID> when the client omits message_id, the same id on ack and downlink', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb');
    alice.send(uplink('message.send', { chat_id: 'chat-ab', payload: body() }));
    const ack = await alice.event('message.ack');
    assert.match(ack.payload.message_id, /^msg-[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal((await bob.event('message.send')).payload.message_id, ack.payload.message_id);
  });

  it('overwrites a client sender and chat_type, drops client streaming, keeps message_mode "" when omitted', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb');
    alice.send(
      uplink('message.reply', {
        chat_id: 'chat-ab',
        chat_type: 'group',
        sender: { id: 'usr_evil', type: 'direct', nick_name: 'Mallory' },
        origin_device_id: 'spoofed',
        to: { id: 'chat-ab', type: 'weird-ui-type' },
        payload: {
          message: {
            body: { fragments: [{ kind: 'text', text: 'x' }] },
            context: { mentions: [], reply: { reply_to_msg_id: MSG_ID, reply_preview: { id: 'usr_b', nick_name: 'Bob', fragments: [{ kind: 'text', text: 'q' }] } } },
            streaming: { status: 'streaming' },
            chat: 'nested-forbidden',
          },
        },
      }),
    );
    const down = await bob.event('message.reply');
    assert.equal(down.chat_type, 'direct');
    assert.equal(down.sender.id, 'usr_a');
    assert.equal(down.origin_device_id, 'usr_a');
    assert.deepEqual(down.to, { id: 'chat-ab', type: 'weird-ui-type' });
    assert.equal(down.payload.message_mode, '');
    assert.equal(down.payload.message.streaming.status, 'static');
    assert.equal('chat' in down.payload.message, false);
    assert.equal(down.payload.message.context.reply.reply_to_msg_id, MSG_ID);
  });

  it('relays mentions element for element and sends null when they were omitted', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb');
    const mentions = [{ kind: 'mention', user_id: 'usr_b', display: 'Bob' }, 'usr_b', { odd: [1, 2] }];
    alice.send(uplink('message.send', { chat_id: 'chat-ab', payload: { message: { body: { fragments: [] }, context: { mentions, reply: null } } } }));
    assert.deepEqual((await bob.event('message.send')).payload.message.context.mentions, mentions);
    alice.send(uplink('message.send', { chat_id: 'chat-ab', payload: { message: { body: { fragments: [] } } } }));
    assert.equal((await bob.event('message.send')).payload.message.context.mentions, null);
  });

  it('keeps kind and the documented union fields of any fragment and drops every other field (§10.4)', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb');
    const fragments = [
      { kind: 'approval_request', text: 'Approve?', options: ['a', 'b'] },
      { kind: 'image', url: 'https://x/y.png', width: 10, height: 20, caption: 'dropped', size: '12' },
      { kind: 'text', text: 'a', delta: 'not on materialized' },
    ];
    alice.send(uplink('message.send', { chat_id: 'chat-ab', payload: { message: { body: { fragments }, context: { mentions: [], reply: null } } } }));
    assert.deepEqual((await bob.event('message.send')).payload.message.body.fragments, [
      { kind: 'approval_request', text: 'Approve?' },
      { kind: 'image', url: 'https://x/y.png', width: 10, height: 20 },
      { kind: 'text', text: 'a' },
    ]);
  });

  it('fans out to every member of a group except the sender', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb');
    const carol = await f.login('tc');
    sendMessage(alice, 'chat-abc', 'hello group');
    assert.equal((await bob.event('message.send')).chat_type, 'group');
    assert.equal(textOf(await carol.event('message.send')), 'hello group');
    await alice.event('message.ack');
    assert.deepEqual((await alice.barrier()).map((fr) => fr.event), []);
  });

  it('echoes to the sender\'s other devices with origin_device_id only when the sender advertised multi_device', async () => {
    const phone = await f.login('ta', { device_id: 'phone', capabilities: { multi_device: true } });
    const laptop = await f.login('ta', { device_id: 'laptop', capabilities: { multi_device: true } });
    const bob = await f.login('tb');
    sendMessage(phone, 'chat-ab', 'echo me', { message_id: MSG_ID });
    const echo = await laptop.event('message.send');
    assert.equal(echo.origin_device_id, 'phone');
    assert.equal(echo.sender.id, 'usr_a');
    await bob.event('message.send');
    await phone.event('message.ack');
    assert.deepEqual((await phone.barrier()).filter((fr) => fr.event === 'message.send'), []);
    assert.deepEqual(f.hub().admin.inbox('usr_a').map((r) => r.message_id), [MSG_ID]);
  });

  it('keeps the legacy no-self-fanout when the sender did not advertise multi_device', async () => {
    const phone = await f.login('ta', { device_id: 'phone' });
    const laptop = await f.login('ta', { device_id: 'laptop', capabilities: { multi_device: true } });
    const bob = await f.login('tb');
    sendMessage(phone, 'chat-ab', 'no echo');
    sendMessage(bob, 'chat-ab', 'barrier');
    assert.equal(textOf(await laptop.event('message.send')), 'barrier');
    assert.deepEqual(f.hub().admin.inbox('usr_a').map((r) => textOf(r.frame)), ['barrier']);
  });

  it('strips every U+0000 from the envelope, live and stored alike, but not an escaped backslash-u0000 text', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb');
    alice.send(uplink('message.send', { chat_id: 'chat-ab', trace_id: 'tr\u0000ace', payload: { message_id: 'msg-\u0000X', message: { body: { fragments: [{ kind: 'text', text: 'a\u0000b\\u0000c' }] }, context: { mentions: ['\u0000usr_b'], reply: null } } } }));
    const down = await bob.event('message.send');
    assert.equal(textOf(down), 'ab\\u0000c');
    assert.equal(down.trace_id, 'trace');
    assert.equal(down.payload.message_id, 'msg-X');
    assert.deepEqual(down.payload.message.context.mentions, ['usr_b']);
    assert.equal((await alice.event('message.ack')).payload.message_id, 'msg-X');
    assert.equal(textOf(f.hub().admin.inbox('usr_b')[0].frame), 'ab\\u0000c');
  });
});

describe('devhub message.error codes (§14.3)', () => {
  const f = useHub(
    withSettings({}, { chats: [{ id: 'chat-ab', members: ['usr_a', 'usr_b'] }, { id: 'chat-bc', members: ['usr_b', 'usr_c'] }] }),
  );

  async function expectError(client: TestClient, frame: Frame, code: string): Promise<Frame> {
    const got = await replyTo(client, frame);
    const error = got.find((fr) => fr.event === 'message.error');
    assert.ok(error, `expected message.error ${code}, got ${JSON.stringify(got.map((fr) => fr.event))}`);
    assert.equal(error.payload.code, code);
    assert.equal(error.trace_id, frame.trace_id);
    assert.equal(typeof error.payload.rejected_at, 'number');
    assert.equal('sender' in error, false);
    assert.equal('chat_type' in error, false);
    assert.equal(got.some((fr) => fr.event === 'message.ack'), false);
    return error;
  }

  it('chat_not_found for an unknown chat, echoing chat_id, to and the client message_id', async () => {
    const alice = await f.login('ta');
    const error = await expectError(alice, uplink('message.send', { chat_id: 'chat-unknown', to: { id: 'chat-unknown', type: 'direct' }, payload: { message_id: MSG_ID, ...body() } }), 'chat_not_found');
    assert.equal(error.chat_id, 'chat-unknown');
    assert.deepEqual(error.to, { id: 'chat-unknown', type: 'direct' });
    assert.equal(error.payload.message_id, MSG_ID);
    assert.match(error.payload.reason, /chat not found/);
  });

  it('not_member when the sender is outside the chat, and nothing fans out', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb');
    const error = await expectError(alice, uplink('message.send', { chat_id: 'chat-bc', payload: body() }), 'not_member');
    assert.equal('message_id' in error.payload, false);
    sendMessage(alice, 'chat-ab', 'barrier');
    assert.equal(textOf(await bob.event('message.send')), 'barrier');
    assert.equal(bob.queue.length, 0);
  });

  it('unsupported_version for any uplink whose version is not the string "2", control frames included, and stays open', async () => {
    const alice = await f.login('ta');
    await expectError(alice, { ...uplink('message.send', { chat_id: 'chat-ab', payload: body() }), version: 2 }, 'unsupported_version');
    const ping = { event: 'ping', trace_id: 'ping-v', emitted_at: 1, payload: {} };
    alice.send(ping);
    const err = await alice.event('message.error');
    assert.equal(err.payload.code, 'unsupported_version');
    assert.equal('chat_id' in err, false);
    assert.equal(alice.closeInfo, undefined);
  });

  it('message_id_too_long above 512 bytes (bytes, not characters), with the counts in reason', async () => {
    const alice = await f.login('ta');
    const id = 'é'.repeat(257); // 257 characters, 514 bytes
    const error = await expectError(alice, uplink('message.send', { chat_id: 'chat-ab', payload: { message_id: id, ...body() } }), 'message_id_too_long');
    assert.match(error.payload.reason, /514 bytes.*512/);
    const ok = await replyTo(alice, uplink('message.send', { chat_id: 'chat-ab', payload: { message_id: 'x'.repeat(512), ...body() } }));
    assert.equal(ok[0].event, 'message.ack');
  });

  it('message_id_too_long on the streaming uplinks too', async () => {
    const alice = await f.login('ta');
    await expectError(alice, uplink('message.created', { chat_id: 'chat-ab', payload: { message_id: 'y'.repeat(513) } }), 'message_id_too_long');
  });

  it('message_too_large when the marshaled downlink passes 1,000,000 bytes, although the frame is under 8 MiB', async () => {
    const alice = await f.login('ta');
    const bob = await f.login('tb');
    const error = await expectError(alice, uplink('message.send', { chat_id: 'chat-ab', payload: body('z'.repeat(1_000_000)) }), 'message_too_large');
    assert.match(error.payload.reason, /max 1000000/);
    assert.deepEqual(await bob.barrier(), []);
  });

  it('bad_request for a payload without a message', async () => {
    const alice = await f.login('ta');
    await expectError(alice, uplink('message.send', { chat_id: 'chat-ab', payload: {} }), 'bad_request');
    await expectError(alice, uplink('message.send', { chat_id: 'chat-ab', payload: { message: { body: { fragments: 'no' } } } }), 'bad_request');
  });

  it('capability_missing for history.transit without history_sync', async () => {
    const alice = await f.login('ta');
    await expectError(alice, uplink('history.transit', { target_device_id: 'other', sender: { id: 'usr_a' }, payload: { kind: 'history_sync_request' } }), 'capability_missing');
  });

  for (const [name, frame] of [
    ['a send without chat_id', uplink('message.send', { payload: body() })],
    ['a send with an empty chat_id', uplink('message.send', { chat_id: '', payload: body() })],
    ['an unknown event', uplink('message.frobnicate', { chat_id: 'chat-ab' })],
    ['an unsolicited pong', uplink('pong', { payload: {} })],
    ['offline.ack', uplink('offline.ack', { payload: {} })],
    ['a receipt without to.id', uplink('message.delivered', { payload: { message_id: MSG_ID, delivered_at: 1 } })],
    ['a cursor_ack with seq 0', uplink('message.cursor_ack', { payload: { seq: 0 } })],
    ['a sync_ack on a connection without v2', uplink('message.sync_ack', { payload: { dseq: 1, epoch: 'x' } })],
  ] as const) {
    it(`drops ${name} without any frame`, async () => {
      const alice = await f.login('ta');
      assert.deepEqual(await replyTo(alice, frame), []);
    });
  }

  it('drops text that is not JSON, or JSON that is not an object, without any frame', async () => {
    const alice = await f.login('ta');
    alice.sendRaw('{not json');
    alice.sendRaw('[1,2]');
    assert.deepEqual(await alice.barrier(), []);
    assert.equal(f.hub().admin.received({ user_id: 'usr_a' }).filter((r) => r.frame === undefined).length, 2);
  });

  it('closes a frame over 8 MiB with 1009 and no message.error', async () => {
    const alice = await f.login('ta');
    alice.sendRaw(Buffer.alloc(8 * 1024 * 1024 + 1, 0x20));
    assert.equal((await alice.closed).code, 1009);
    assert.equal(alice.queue.some((fr) => fr.event === 'message.error'), false);
  });
});

describe('devhub chat id rule "cnv"', () => {
  const cnv = 'cnv_01HVB6S7K8M9M0N1P2Q3R4S5T6';
  const f = useHub(withSettings({ chat_id_format: 'cnv' }, { chats: [{ id: cnv, members: ['usr_a', 'usr_b'] }] }));

  it('refuses a malformed chat id with bad_request before resolving it, and routes a well-formed one', async () => {
    const alice = await f.login('ta');
    const errors = await replyTo(alice, uplink('message.send', { chat_id: 'usr_b', payload: body() }));
    assert.equal(errors[0].payload.code, 'bad_request');
    const unknown = await replyTo(alice, uplink('message.send', { chat_id: 'cnv_01HVB6S7K8M9M0N1P2Q3R4S5T7', payload: body() }));
    assert.equal(unknown[0].payload.code, 'chat_not_found');
    const ok = await replyTo(alice, uplink('message.send', { chat_id: cnv, payload: body() }));
    assert.equal(ok[0].event, 'message.ack');
  });
});
