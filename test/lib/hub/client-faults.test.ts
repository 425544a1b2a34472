/**
 * The client against the dev hub's connection faults, on an injected clock so that every deadline is the client's
 * own and no test waits for real time: a replay that never sends `replay.done` (the idle fallback, §11.5), a
 * half-open socket that goes silent (the dead-socket probe, §12), and a handshake cut before `hello-ok` (§3.3).
 */
import assert from 'node:assert/strict';
import { ManualClock, type HubStatus } from '../../../lib/hub';
import { ALICE, BOB, CHAT, collect, eventually, Harness, next } from './support/harness';

describe('HubClient: connection faults', () => {
  const h = new Harness();
  beforeEach(() => h.start());
  afterEach(() => h.cleanup());

  const aliceAtHub = () => h.hub.admin.devices().find((d) => d.user_id === ALICE.id);

  it('ends a replay whose replay.done never comes after replayIdleMs without frames, and acks what it got', async () => {
    const bob = await h.connected(h.client(BOB));
    for (let i = 0; i < 3; i++) await bob.send({ chatId: CHAT, text: `while alice was away ${i}` });
    h.hub.admin.withholdReplayDone({ user_id: ALICE.id, count: 1 });
    const clock = new ManualClock(Date.now());
    const alice = h.client(ALICE, { clock, replayIdleMs: 5000 });
    const messages = collect(alice, 'message');
    const hubDone = h.hub.admin.waitFor('replay-done', (d) => d.user_id === ALICE.id);
    alice.start();
    await hubDone;
    await eventually(() => messages.length === 3, 5000, 'the three replayed messages');
    await alice.idle();
    assert.equal(h.hub.admin.faults().withhold_replay_done.length, 0, 'the fault fired');
    assert.equal(alice.state, 'replaying', 'no replay.done, no frame for 0 ms: still replaying');
    clock.advance(4999);
    assert.equal(alice.state, 'replaying');
    const done = next(alice, 'replay-done');
    clock.advance(1);
    const rd = await done;
    assert.equal(rd.fallback, true);
    assert.equal(alice.state, 'connected');
    assert.ok(messages.every((m) => m.replay));
    // The end of replay flushes the v2 ack: the hub's ledger empties although its replay.done never went out.
    await eventually(() => aliceAtHub()?.unacked === 0, 5000, 'the hub to see every dseq acked');
    assert.ok((aliceAtHub()?.acked_dseq ?? 0) >= 3);
  });

  it('drops a half-open connection once its JSON ping goes unanswered for pongTimeoutMs, and reconnects', async () => {
    const clock = new ManualClock(Date.now());
    const alice = await h.connected(h.client(ALICE, { clock, pingSilenceMs: 30_000, pongTimeoutMs: 10_000, backoff: { initialMs: 100 }, random: () => 0 }));
    assert.equal(h.hub.admin.halfOpen({ user_id: ALICE.id }), 1);
    const warned = next(alice, 'warning', (w) => w.code === 'NOT_CONNECTED');
    clock.advance(30_000);
    // The hub read the probe and withheld its pong (and whatever else it owed).
    await eventually(() => h.hub.admin.received({ user_id: ALICE.id, event: 'ping' }).length === 1, 5000, 'the ping at the hub');
    await eventually(() => (aliceAtHub()?.half_open?.withheld_frames ?? 0) >= 1, 5000, 'the pong withheld');
    clock.advance(9_999);
    assert.equal(alice.state, 'connected', 'not before the pong timeout');
    const lost = next(alice, 'state', (s) => s.state === 'backoff');
    clock.advance(1);
    const status = await lost;
    assert.match((await warned).message, /not even a pong/);
    assert.equal(status.cause, 'client-closed', 'a close we asked for: the normal backoff, not the 5 s floor');
    assert.equal(status.retryInMs, 100);
    const back = next(alice, 'state', (s) => s.state === 'connected');
    clock.advance(100);
    await back;
    assert.equal(alice.stats().connections, 2);
    assert.equal(aliceAtHub()?.half_open, undefined, 'the new connection is a healthy one');
  });

  it('probes a silent connection with a JSON ping and stays up when the pong comes (the same timings, no fault)', async () => {
    const clock = new ManualClock(Date.now());
    const alice = await h.connected(h.client(ALICE, { clock, pingSilenceMs: 30_000, pongTimeoutMs: 10_000 }));
    for (let round = 0; round < 2; round++) {
      // 30 s of silence since the last frame: a probe; its pong arrives before the clock moves on.
      const pong = next(alice, 'frame', (f) => f.event === 'pong');
      clock.advance(round === 0 ? 30_000 : 20_000);
      await pong;
      clock.advance(10_000);
      assert.equal(alice.state, 'connected', `round ${round}: the pong cleared the probe`);
    }
    assert.equal(alice.stats().connections, 1);
    assert.equal(h.hub.admin.received({ user_id: ALICE.id, event: 'ping' }).length, 2);
    assert.equal(h.hub.admin.received({ user_id: ALICE.id, event: 'pong' }).length, 0, 'never an unsolicited pong');
  });

  for (const [mode, closeCode] of [
    ['end', 1006],
    ['close', 1005],
  ] as const) {
    it(`retries a handshake cut before hello-ok (${mode}) with the normal backoff, and sends what waited once`, async () => {
      const clock = new ManualClock(Date.now());
      h.hub.admin.failHandshake({ user_id: ALICE.id, count: 2, mode });
      const alice = h.client(ALICE, { clock, backoff: {}, random: () => 0 });
      let handshakes = 0;
      h.hub.admin.on('kick', (k) => {
        if (k.user_id === ALICE.id) handshakes++;
      });
      const waiting = alice.send({ chatId: CHAT, text: 'queued before the first attempt' });
      const states = collect(alice, 'state');
      alice.start();
      const delays: number[] = [];
      for (let i = 0; i < 2; i++) {
        const s: HubStatus = alice.state === 'backoff' ? alice.status() : await next(alice, 'state', (x) => x.state === 'backoff');
        assert.deepEqual([s.cause, s.closeCode], ['no-hello', closeCode]);
        delays.push(s.retryInMs as number);
        const leaving = next(alice, 'state', (x) => x.state === 'connecting');
        clock.advance(s.retryInMs as number);
        await leaving;
      }
      await next(alice, 'state', (s) => s.state === 'connected');
      assert.deepEqual(delays, [1000, 2000], 'exponential, without the 5 s floor of a lost session');
      assert.equal(handshakes, 2);
      assert.equal((await waiting).attempts, 1, 'nothing went out on a connection that never reached hello-ok');
      assert.equal(h.hub.admin.received({ user_id: ALICE.id, event: 'message.send' }).length, 1);
      assert.equal(alice.status().attempt, 0);
      assert.ok(!states.some((s) => s.state === 'auth_failed'));
    });
  }
});
