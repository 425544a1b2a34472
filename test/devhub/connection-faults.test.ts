/**
 * The dev hub's connection faults on the wire, with a bare client: `replay.done` withheld, a half-open socket, and
 * a handshake ended before `hello-ok`. Silence is proven by TCP order: after `dropConnection` (mode `end`) the FIN
 * follows everything the hub wrote, so what the client holds at its close is all it was sent.
 */
import assert from 'node:assert/strict';
import { adminFetch, sendMessage, TestClient, textOf, trace, useHub, type Frame } from './support';

const V2 = { reliable_delivery: true, reliable_delivery_v2: true };

/** Opens a connection and answers the challenge with `connect`; what follows is the test's to read. */
async function connect(url: string, token: string, capabilities: Record<string, boolean> = {}, deviceId?: string): Promise<TestClient> {
  const client = await TestClient.open(url);
  const challenge = await client.event('connect.challenge');
  client.send({
    version: '2',
    event: 'connect',
    trace_id: trace('connect'),
    emitted_at: Date.now(),
    payload: { token, nonce: challenge.payload.nonce, capabilities, ...(deviceId ? { device_id: deviceId } : {}) },
  });
  return client;
}

describe('devhub connection faults', () => {
  const f = useHub();
  const clients: TestClient[] = [];
  afterEach(() => {
    for (const c of clients.splice(0)) c.ws.terminate();
  });
  const open = async (token: string, capabilities: Record<string, boolean> = {}, deviceId?: string): Promise<TestClient> => {
    const c = await connect(f.hub().wsUrl, token, capabilities, deviceId);
    clients.push(c);
    return c;
  };

  describe('withhold replay.done', () => {
    it('ends the replay without the frame or a dseq for it, then delivers live, once per budget', async () => {
      const alice = await f.login('ta');
      sendMessage(alice, 'chat-ab', 'waiting for bob');
      await alice.event('message.ack');
      f.hub().admin.withholdReplayDone({ user_id: 'usr_b', count: 1 });
      const hubDone = f.hub().admin.waitFor('replay-done', (d) => d.user_id === 'usr_b');
      const bob = await open('tb', V2);
      const hello = await bob.event('hello-ok');
      const replayed = await bob.event('message.send');
      assert.equal(replayed.dseq, 1);
      await hubDone;
      sendMessage(alice, 'chat-ab', 'live now');
      const live = await bob.event('message.send');
      assert.equal(textOf(live), 'live now');
      assert.equal(live.dseq, 2, 'no dseq was spent on the withheld replay.done');
      bob.send({ version: '2', event: 'message.sync_ack', trace_id: trace('sa'), emitted_at: 1, payload: { dseq: 2, epoch: hello.payload.ack_epoch } });
      const rest = await bob.barrier();
      assert.equal([...rest, ...bob.queue].some((fr: Frame) => fr.event === 'replay.done'), false);
      assert.deepEqual(f.hub().admin.faults().withhold_replay_done, []);
      assert.equal(f.hub().admin.devices().find((d) => d.user_id === 'usr_b')?.unacked, 0);

      bob.ws.terminate();
      const again = await f.login('tb', { capabilities: V2 });
      assert.equal(again.replay.at(-1)?.event, 'replay.done', 'the budget is spent: the next replay ends normally');
    });

    it('covers what the walk skipped with a sync.mark on v2, so the cursor still moves', async () => {
      // With multi_device the sender's inbox keeps an echo row, which the walk skips for the sending device.
      const alice = await f.login('ta', { capabilities: { ...V2, multi_device: true }, device_id: 'a1' });
      sendMessage(alice, 'chat-ab', 'own echo, skipped for this device');
      await alice.event('message.ack');
      alice.ws.terminate();
      f.hub().admin.withholdReplayDone({ user_id: 'usr_a' });
      const back = await open('ta', V2, 'a1');
      await back.event('hello-ok');
      const mark = await back.event('sync.mark');
      assert.equal(mark.dseq, 1);
      assert.equal(back.queue.some((fr) => fr.event === 'replay.done'), false);
    });
  });

  describe('half-open', () => {
    it('keeps the socket open and reads it, but writes nothing more: no pong, no frame, no RFC 6455 pong', async () => {
      const alice = await f.login('ta');
      const bob = await f.login('tb');
      // Before: the hub answers an RFC 6455 ping like any server.
      const answered = new Promise<void>((resolve) => bob.ws.once('pong', () => resolve()));
      bob.ws.ping();
      await answered;
      assert.equal(f.hub().admin.halfOpen({ user_id: 'usr_b' }), 1);
      let rfcPongs = 0;
      bob.ws.on('pong', () => rfcPongs++);
      bob.ws.ping();
      const ping = f.hub().admin.waitFor('uplink', (u) => u.user_id === 'usr_b' && u.event === 'ping');
      bob.send({ version: '2', event: 'ping', trace_id: 'half', emitted_at: 1, payload: {} });
      await ping;
      sendMessage(alice, 'chat-ab', 'lost on the way back?');
      await alice.event('message.ack');
      const info = f.hub().admin.devices().find((d) => d.user_id === 'usr_b');
      assert.equal(info?.phase, 'live');
      assert.ok((info?.half_open?.withheld_frames ?? 0) >= 2, `withheld: ${JSON.stringify(info?.half_open)}`);

      f.hub().admin.dropConnection({ user_id: 'usr_b' });
      await bob.closed;
      assert.deepEqual(bob.queue, [], 'nothing reached the client');
      assert.equal(rfcPongs, 0);

      const again = await f.login('tb');
      assert.deepEqual(again.replay.filter((fr) => fr.event === 'message.send').map(textOf), ['lost on the way back?'], 'nothing was lost');
    });

    it('is set over HTTP too, and on no connection when the user is offline', async () => {
      const res = await adminFetch(f.hub(), 'faults/half-open', { body: { user_id: 'usr_c' } });
      assert.deepEqual(await res.json(), { ok: true, result: 0 });
    });
  });

  describe('fail handshake', () => {
    for (const [mode, code] of [
      ['end', 1006],
      ['terminate', 1006],
      ['close', 1005],
    ] as const) {
      it(`ends an authenticated handshake before hello-ok (${mode}: ${code}) and lets the next one through`, async () => {
        f.hub().admin.failHandshake({ user_id: 'usr_a', count: 1, mode });
        const kick = f.hub().admin.waitFor('kick', (k) => k.user_id === 'usr_a');
        const first = await open('ta');
        assert.equal((await first.closed).code, code);
        assert.equal((await kick).reason, 'fault');
        assert.equal(first.queue.some((fr) => fr.event === 'hello-ok' || fr.event === 'hello-fail'), false);
        assert.deepEqual(f.hub().admin.devices(), []);
        await f.login('ta');
      });
    }

    it('applies to one user only, and never to a token it does not know (that is hello-fail)', async () => {
      f.hub().admin.failHandshake({ user_id: 'usr_a' });
      await f.login('tb');
      const stranger = await open('nobody');
      assert.equal((await stranger.event('hello-fail')).payload.reason, 'authentication failed');
      const res = await adminFetch(f.hub(), 'faults');
      const snapshot = (await res.json()) as { result: { fail_handshake: Array<{ remaining: number }> } };
      assert.equal(snapshot.result.fail_handshake[0].remaining, -1);
      f.hub().admin.clearFaults();
      await f.login('ta');
    });
  });
});
