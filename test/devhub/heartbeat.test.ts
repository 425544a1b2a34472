import assert from 'node:assert/strict';
import { TestClient, useHub, withSettings } from './support';

async function handshake(client: TestClient): Promise<void> {
  const { payload } = await client.event('connect.challenge');
  client.send({ version: '2', event: 'connect', trace_id: 'c', emitted_at: 1, payload: { token: 'ta', nonce: payload.nonce } });
  await client.event('replay.done');
}

/** The next RFC 6455 ping the client's socket receives; rejects if the socket closes first. */
function nextPing(client: TestClient): Promise<void> {
  return new Promise((resolve, reject) => {
    if (client.closeInfo) return reject(new Error(`socket closed (${client.closeInfo.code})`));
    const onPing = (): void => resolve();
    client.ws.once('ping', onPing);
    void client.closed.then((c) => {
      client.ws.off('ping', onPing);
      reject(new Error(`socket closed (${c.code}) while waiting for a ping`));
    });
  });
}

describe('devhub RFC 6455 heartbeat (§12)', () => {
  // The hub judges pong deadlines on its injected clock, and only the test moves it: a loaded machine that runs the
  // ping timer late cannot make a live connection look dead (deadline: 20 × 1 + 20 = 40 clock ms).
  let now = 1_700_000_000_000;
  const f = useHub(withSettings({ ping_interval_ms: 20, max_miss_pong: 1, pong_timeout_ms: 20 }), { now: () => now });

  it('pings with control frames and keeps a connection whose library answers them', async () => {
    const client = await f.open();
    await handshake(client);
    for (let round = 0; round < 4; round++) {
      // 30 ms after the last recorded pong: alive; 60 ms after the one before: a hub ignoring pongs kicks here.
      now += 30;
      // The second ping comes from a tick that ran after the first arrived, so after the move: that tick judged us.
      await nextPing(client);
      await nextPing(client);
      // The client's pong went out before this JSON ping: once its pong is back, the hub has recorded the pong.
      await client.barrier();
    }
    assert.equal(client.closeInfo, undefined);
    assert.equal(client.queue.some((fr) => fr.event === 'ping'), false, 'never a JSON ping');
  });

  it('closes a connection that stops answering with Pong', async () => {
    const client = await TestClient.open(f.hub().wsUrl, { autoPong: false });
    await handshake(client);
    await nextPing(client);
    await nextPing(client);
    assert.equal(client.closeInfo, undefined, 'unanswered pings change nothing while the clock stands still');
    const kick = f.hub().admin.waitFor('kick');
    now += 41;
    assert.equal((await kick).reason, 'pong_timeout');
    assert.equal((await client.closed).code, 1006);
  });
});
