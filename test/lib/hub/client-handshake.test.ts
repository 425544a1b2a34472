import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CAPABILITY_NAMES, HubClient, ManualClock, type HubStatus } from '../../../lib/hub';
import { openStore } from '../../../lib/store';
import { ALICE, BOB, CAROL, collect, Harness, next } from './support/harness';

/** Lets socket I/O run (the hub and the client are in this process). */
const ioTurn = (ms = 30): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('HubClient: handshake and reconnect policy', () => {
  const h = new Harness();
  beforeEach(() => h.start());
  afterEach(() => h.cleanup());

  it('connects with the echoed nonce, a device id, client_version, protocol_version 2 and every capability but e2ee', async () => {
    const client = h.client(ALICE);
    const states = collect(client, 'state');
    const hello = h.hub.admin.waitFor('hello');
    await h.connected(client);
    const info = await hello;
    assert.deepEqual(states.map((s) => s.state), ['connecting', 'replaying', 'connected']);
    assert.equal(states[2].deliveryMode, 'v2');
    assert.equal(info.device_id, 'usr_alice-d1');
    assert.equal(info.protocol_version, 2);
    assert.match(info.client_version ?? '', /^@clawling\/node-red-mesh/);
    for (const name of CAPABILITY_NAMES) assert.equal(info.capabilities[name] ?? false, name !== 'e2ee', name);
    assert.equal(info.ack_mode, 'dseq');
  });

  it('keeps one device id per installation in its store', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawling-device-'));
    try {
      const file = path.join(dir, 'hub.sqlite');
      let store = openStore(file);
      const first = h.client(ALICE, { deviceId: undefined, store });
      await h.connected(first);
      const id = first.deviceId;
      assert.match(id, /^dev-[0-9A-Z]{26}$/);
      await first.stop();
      store.close();
      store = openStore(file);
      const second = h.client(ALICE, { deviceId: undefined, store });
      const hello = h.hub.admin.waitFor('hello');
      await h.connected(second);
      assert.equal(second.deviceId, id);
      assert.equal((await hello).device_id, id);
      await second.stop();
      store.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const reason of [
    'nonce mismatch',
    'remote auth service unavailable',
    'invalid connect event',
    'invalid connect payload',
    'a reason from the future',
    'Authentication failed',
    'authentication failed: token expired',
  ]) {
    it(`treats hello-fail "${reason}" as transient: backoff, then the same token again`, async () => {
      const tokens: string[] = [];
      const client = h.client(ALICE, {
        token: () => {
          tokens.push(ALICE.token);
          return ALICE.token;
        },
      });
      const states = collect(client, 'state');
      h.hub.admin.refuseAuth({ reason, user_id: ALICE.id, count: 1 });
      await h.connected(client);
      const backoff = states.find((s) => s.state === 'backoff');
      assert.ok(backoff, 'went through backoff');
      assert.equal(backoff.cause, 'hello-fail');
      assert.equal(backoff.reason, reason);
      assert.ok(!states.some((s) => s.state === 'auth_failed'));
      assert.deepEqual(tokens, [ALICE.token, ALICE.token]);
    });
  }

  it('stops for good on exactly "authentication failed": no retry with the same token, however long we wait', async () => {
    const clock = new ManualClock();
    const client = h.client(ALICE, { clock });
    let handshakes = 0;
    h.hub.admin.on('hello-fail', () => handshakes++).on('hello', () => handshakes++);
    h.hub.admin.refuseAuth({ reason: 'authentication failed', user_id: ALICE.id, count: 1 });
    const failed = next(client, 'state', (s) => s.state === 'auth_failed');
    const warned = next(client, 'warning', (w) => w.code === 'AUTH_FAILED');
    client.start();
    const status = await failed;
    assert.equal(status.reason, 'authentication failed');
    await warned;
    for (let i = 0; i < 10; i++) {
      clock.advance(10 * 60_000);
      await ioTurn(5);
    }
    assert.equal(handshakes, 1);
    assert.equal(client.state, 'auth_failed');
    assert.equal(clock.pending(), 0, 'no reconnect timer is armed');

    const live = next(client, 'state', (s) => s.state === 'connected');
    client.setToken(ALICE.token);
    await live;
    assert.equal(handshakes, 2);
  });

  it('asks a token provider once for a fresh token after "authentication failed", and never retries the refused one', async () => {
    const given: string[] = [];
    const fresh = h.client(ALICE, {
      token: () => {
        const t = given.length === 0 ? 'revoked-token' : ALICE.token;
        given.push(t);
        return t;
      },
    });
    const states = collect(fresh, 'state');
    await h.connected(fresh);
    assert.deepEqual(given, ['revoked-token', ALICE.token]);
    assert.ok(states.some((s) => s.state === 'auth_failed'));

    const calls: string[] = [];
    const stale = h.client({ id: 'usr_bob', token: 'x' }, {
      token: () => {
        calls.push('bad');
        return 'still-revoked';
      },
    });
    const failed = next(stale, 'state', (s) => s.state === 'auth_failed');
    stale.start();
    await failed;
    await ioTurn(100);
    assert.equal(stale.state, 'auth_failed');
    assert.equal(calls.length, 2, 'one connect, one refresh; the same token is not tried again');
  });

  it('backs off at least 5 s after a 4001 takeover by a newer session of the same device', async () => {
    const clock = new ManualClock();
    const older = h.client(ALICE, { clock, backoff: {} });
    const olderLive = next(older, 'state', (s) => s.state === 'connected');
    older.start();
    await olderLive;
    const kicked = next(older, 'state', (s) => s.state === 'backoff');
    const newer = h.client(ALICE);
    await h.connected(newer);
    const status = await kicked;
    assert.equal(status.closeCode, 4001);
    assert.equal(status.cause, 'takeover');
    assert.ok((status.retryInMs as number) >= 5000, `retry in ${status.retryInMs}`);
    clock.advance(1000);
    assert.equal(older.status().retryInMs, (status.retryInMs as number) - 1000, 'the countdown follows the clock');
    clock.advance(3999);
    await ioTurn();
    assert.equal(older.state, 'backoff', 'not before the floor');
    await newer.stop();
    const back = next(older, 'state', (s) => s.state === 'connected');
    clock.advance((status.retryInMs as number) - 4999);
    await back;
  });

  for (const mode of ['close', 'terminate'] as const) {
    it(`raises the floor after an unexplained close of a good session (${mode})`, async () => {
      const clock = new ManualClock();
      const client = h.client(ALICE, { clock, backoff: {} });
      const live = next(client, 'state', (s) => s.state === 'connected');
      client.start();
      await live;
      const lost = next(client, 'state', (s) => s.state === 'backoff');
      h.hub.admin.dropConnection({ user_id: ALICE.id }, { mode });
      const status = await lost;
      assert.equal(status.cause, 'lost-session');
      assert.equal(status.closeCode, mode === 'close' ? 1005 : 1006);
      assert.ok((status.retryInMs as number) >= 5000);
      const back = next(client, 'state', (s) => s.state === 'connected');
      clock.advance(status.retryInMs as number);
      await back;
      assert.equal(client.status().attempt, 0, 'hello-ok resets the attempt count');
    });
  }

  it('reads a close before hello-ok without hello-fail as a collision or handshake timeout, and retries', async () => {
    // A connect frame above the hub's pre-auth cap (here, a long token) makes it close (1009) before any hello.
    const longToken = 'T'.repeat(2000);
    await h.hub.stop();
    await h.start({ users: [{ id: ALICE.id, token: longToken }, BOB, CAROL], settings: { max_connect_frame_bytes: 1024 } });
    const client = h.client({ id: ALICE.id, token: longToken });
    const states = collect(client, 'state');
    const closed = next(client, 'state', (s) => s.state === 'backoff');
    client.start();
    const s = await closed;
    assert.deepEqual([s.cause, s.closeCode], ['no-hello', 1009]);
    await next(client, 'state', (x) => x.state === 'backoff' && x.attempt === 2);
    assert.ok(!states.some((x) => x.state === 'auth_failed'));
    await client.stop();
  });

  it('closes a live connection and reconnects with a refreshed token', async () => {
    await h.hub.stop();
    await h.start({ users: [{ id: ALICE.id, tokens: ['old-token', 'new-token'] }, BOB, CAROL] });
    const client = h.client({ id: ALICE.id, token: 'old-token' });
    await h.connected(client);
    const tokens: string[] = [];
    const again = next(client, 'state', (s) => s.state === 'connected');
    client.setToken(() => {
      tokens.push('new-token');
      return 'new-token';
    });
    await again;
    assert.deepEqual(tokens, ['new-token']);
    assert.equal(client.stats().connections, 2);
  });

  it('retries an unreachable hub with exponential backoff capped at 30 s, never a hot loop', async () => {
    const clock = new ManualClock();
    const port = await closedPort();
    const client = new HubClient({ url: `ws://127.0.0.1:${port}/ws`, token: 't', userId: ALICE.id, deviceId: 'd', clock, random: () => 0, pingSilenceMs: 0 });
    const delays: number[] = [];
    const causes = new Set<string>();
    try {
      client.start();
      for (let i = 0; i < 9; i++) {
        const s: HubStatus = client.state === 'backoff' ? client.status() : await next(client, 'state', (x) => x.state === 'backoff');
        delays.push(s.retryInMs as number);
        causes.add(s.cause as string);
        const leaving = next(client, 'state', (x) => x.state === 'connecting');
        clock.advance(s.retryInMs as number);
        await leaving;
      }
    } finally {
      await client.stop();
    }
    assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]);
    assert.deepEqual([...causes], ['unreachable']);
  });

  it('keeps backing off while the hub refuses every handshake with a transient reason', async () => {
    const clock = new ManualClock();
    const client = h.client(ALICE, { clock, backoff: {}, random: () => 0.5 });
    h.hub.admin.refuseAuth({ reason: 'remote auth service unavailable', user_id: ALICE.id });
    const delays: number[] = [];
    client.start();
    for (let i = 0; i < 8; i++) {
      const s = client.state === 'backoff' ? client.status() : await next(client, 'state', (x) => x.state === 'backoff');
      delays.push(s.retryInMs as number);
      const leaving = next(client, 'state', (x) => x.state === 'connecting');
      clock.advance(s.retryInMs as number);
      await leaving;
    }
    assert.deepEqual(delays, [750, 1500, 3000, 6000, 12_000, 22_500, 22_500, 22_500]);
  });
});
