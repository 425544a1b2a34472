import assert from 'node:assert/strict';
import { BASE_OPTIONS, useHub, withSettings, type TestClient } from './support';

async function connectWith(client: TestClient, payload: Record<string, unknown>, envelope: Record<string, unknown> = {}): Promise<void> {
  client.send({ version: '2', event: 'connect', trace_id: 'tc-1', emitted_at: Date.now(), payload, ...envelope });
}

describe('devhub handshake (§3)', () => {
  const f = useHub();

  it('sends connect.challenge at once: trace "challenge", an 18-byte base64url nonce', async () => {
    const c = await f.open();
    const challenge = await c.event('connect.challenge');
    assert.equal(challenge.version, '2');
    assert.equal(challenge.trace_id, 'challenge');
    assert.equal(typeof challenge.emitted_at, 'number');
    assert.match(challenge.payload.nonce, /^[A-Za-z0-9_-]{24}$/);
    assert.equal(Buffer.from(challenge.payload.nonce, 'base64url').length, 18);
  });

  it('answers hello-ok echoing the connect trace_id, the device id and delivery_mode, without any user identity', async () => {
    const c = await f.open();
    const { payload } = await c.event('connect.challenge');
    await connectWith(c, { token: 'ta', nonce: payload.nonce, device_id: 'phone', client_version: '1.0.0', protocol_version: 2, capabilities: { multi_device: true } });
    const hello = await c.event('hello-ok');
    assert.equal(hello.trace_id, 'tc-1');
    assert.deepEqual(hello.payload, { device_id: 'phone', delivery_mode: 'device_replay' });
    const done = await c.event('replay.done');
    assert.deepEqual(done.payload, {});
    const [device] = f.hub().admin.devices();
    assert.equal(device.client_version, '1.0.0');
    assert.equal(device.protocol_version, 2);
  });

  it('uses the user id as device id when device_id is omitted or empty', async () => {
    const c = await f.login('tb', { device_id: '' });
    assert.equal(c.hello!.payload.device_id, 'usr_b');
  });

  it('grants v2 with ack_mode "dseq" and a ULID ack_epoch only to a client that advertised it', async () => {
    const v2 = await f.login('ta', { device_id: 'v2', capabilities: { reliable_delivery: true, reliable_delivery_v2: true } });
    assert.equal(v2.hello!.payload.ack_mode, 'dseq');
    assert.match(v2.hello!.payload.ack_epoch, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    const v1 = await f.login('ta', { device_id: 'v1', capabilities: { reliable_delivery: true } });
    assert.equal('ack_mode' in v1.hello!.payload, false);
    assert.equal('ack_epoch' in v1.hello!.payload, false);
  });

  it('gives each connection its own epoch', async () => {
    const caps = { reliable_delivery: true, reliable_delivery_v2: true };
    const first = await f.login('ta', { device_id: 'x', capabilities: caps });
    await first.close();
    const second = await f.login('ta', { device_id: 'x', capabilities: caps });
    assert.notEqual(first.epoch, second.epoch);
  });

  for (const [name, frame, reason] of [
    ['not JSON', 'hello there', 'invalid connect event'],
    ['another event', JSON.stringify({ version: '2', event: 'ping', trace_id: 'p', emitted_at: 1, payload: {} }), 'invalid connect event'],
    ['a version other than "2"', JSON.stringify({ version: 2, event: 'connect', trace_id: 'v', emitted_at: 1, payload: {} }), 'invalid connect event'],
    ['a payload that is not an object', JSON.stringify({ version: '2', event: 'connect', trace_id: 'p', emitted_at: 1, payload: 'x' }), 'invalid connect payload'],
    ['a token that is not a string', JSON.stringify({ version: '2', event: 'connect', trace_id: 'p', emitted_at: 1, payload: { token: 5, nonce: 'n' } }), 'invalid connect payload'],
    ['a capability that is not a boolean', JSON.stringify({ version: '2', event: 'connect', trace_id: 'p', emitted_at: 1, payload: { token: 'ta', nonce: 'n', capabilities: { multi_device: 'yes' } } }), 'invalid connect payload'],
  ] as const) {
    it(`refuses ${name} with "${reason}", then drops TCP without a CLOSE frame (1006)`, async () => {
      const c = await f.open();
      await c.event('connect.challenge');
      c.sendRaw(frame);
      const fail = await c.event('hello-fail');
      assert.equal(fail.payload.reason, reason);
      assert.equal((await c.closed).code, 1006);
    });
  }

  it('refuses a wrong nonce with "nonce mismatch" and echoes the trace id', async () => {
    const c = await f.open();
    await c.event('connect.challenge');
    await connectWith(c, { token: 'ta', nonce: 'AAAAAAAAAAAAAAAAAAAAAAAA' });
    const fail = await c.event('hello-fail');
    assert.deepEqual([fail.trace_id, fail.payload.reason], ['tc-1', 'nonce mismatch']);
    assert.equal((await c.closed).code, 1006);
  });

  it('refuses an unknown token with exactly "authentication failed"', async () => {
    const c = await f.open();
    const { payload } = await c.event('connect.challenge');
    await connectWith(c, { token: 'nope', nonce: payload.nonce });
    assert.equal((await c.event('hello-fail')).payload.reason, 'authentication failed');
    assert.equal((await c.closed).code, 1006);
  });

  it('refuses with "remote auth service unavailable" while that fault is set, for its count only', async () => {
    f.hub().admin.refuseAuth({ reason: 'remote auth service unavailable', count: 1 });
    const c = await f.open();
    const { payload } = await c.event('connect.challenge');
    await connectWith(c, { token: 'ta', nonce: payload.nonce });
    assert.equal((await c.event('hello-fail')).payload.reason, 'remote auth service unavailable');
    await c.closed;
    await f.login('ta'); // the budget is spent
  });

  it('refuses a valid token with "authentication failed" for one user only when asked', async () => {
    f.hub().admin.refuseAuth({ reason: 'authentication failed', user_id: 'usr_b' });
    await f.login('ta');
    await assert.rejects(f.login('tb'), /login refused: authentication failed/);
    f.hub().admin.clearFaults();
    await f.login('tb');
  });

  it('closes a pre-auth frame over 64 KiB with 1009', async () => {
    const c = await f.open();
    await c.event('connect.challenge');
    c.sendRaw(JSON.stringify({ version: '2', event: 'connect', payload: { token: 'x'.repeat(64 * 1024) } }));
    assert.equal((await c.closed).code, 1009);
  });

  it('takes over an older session of the same (user, device) with close code 4001', async () => {
    const older = await f.login('ta', { device_id: 'phone' });
    const kicked = f.hub().admin.waitFor('kick', (k) => k.reason === 'takeover');
    const newer = await f.login('ta', { device_id: 'phone' });
    const closed = await older.closed;
    assert.equal(closed.code, 4001);
    assert.match(closed.reason, /replaced by a newer session/);
    const kick = await kicked;
    const devices = f.hub().admin.devices();
    assert.equal(devices.length, 1);
    assert.notEqual(devices[0].connection_id, kick.connection_id);
    assert.equal(newer.closeInfo, undefined);
  });

  it('keeps two devices of one user connected side by side', async () => {
    await f.login('ta', { device_id: 'phone' });
    await f.login('ta', { device_id: 'laptop' });
    assert.deepEqual(f.hub().admin.devices().map((d) => d.device_id).sort(), ['laptop', 'phone']);
  });

  it('never refuses a takeover storm: every new socket still gets hello-ok', async () => {
    let last: TestClient | undefined;
    for (let i = 0; i < 5; i++) last = await f.login('ta', { device_id: 'storm' });
    assert.equal(last!.hello!.event, 'hello-ok');
  });

  it('queues frames sent between connect and hello-ok and handles them after', async () => {
    const peer = await f.login('tb');
    const c = await f.open();
    const { payload } = await c.event('connect.challenge');
    await connectWith(c, { token: 'ta', nonce: payload.nonce });
    c.send({ version: '2', event: 'message.send', trace_id: 'early', emitted_at: 1, chat_id: 'chat-ab', payload: { message: { body: { fragments: [] }, context: {} } } });
    await c.event('hello-ok');
    assert.equal((await c.event('message.ack')).trace_id, 'early');
    assert.equal((await peer.event('message.send')).trace_id, 'early');
  });
});

describe('devhub handshake timeout', () => {
  const f = useHub(withSettings({ handshake_timeout_ms: 50 }));

  it('closes a socket that never sends connect, without a hello-fail', async () => {
    const c = await f.open();
    await c.event('connect.challenge');
    const closed = await c.closed;
    assert.equal(closed.code, 1006);
    assert.equal(c.queue.some((fr) => fr.event === 'hello-fail'), false);
  });
});

describe('devhub reliability negotiation when the operator withholds v2', () => {
  const f = useHub({ ...BASE_OPTIONS, settings: { ...BASE_OPTIONS.settings, reliability: { v2: false } } });

  it('omits ack_mode so the client falls back to v1 seq', async () => {
    const c = await f.login('ta', { capabilities: { reliable_delivery: true, reliable_delivery_v2: true } });
    assert.equal('ack_mode' in c.hello!.payload, false);
    assert.equal(f.hub().admin.devices()[0].ack_mode, 'seq');
  });
});
