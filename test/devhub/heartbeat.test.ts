import assert from 'node:assert/strict';
import { TestClient, useHub, withSettings } from './support';

async function handshake(client: TestClient): Promise<void> {
  const { payload } = await client.event('connect.challenge');
  client.send({ version: '2', event: 'connect', trace_id: 'c', emitted_at: 1, payload: { token: 'ta', nonce: payload.nonce } });
  await client.event('replay.done');
}

describe('devhub RFC 6455 heartbeat (§12)', () => {
  const f = useHub(withSettings({ ping_interval_ms: 20, max_miss_pong: 1, pong_timeout_ms: 20 }));

  it('pings with control frames and keeps a connection whose library answers them', async () => {
    const client = await f.open();
    await handshake(client);
    await new Promise<void>((resolve) => {
      let pings = 0;
      client.ws.on('ping', () => {
        if (++pings === 4) resolve();
      });
    });
    await client.barrier();
    assert.equal(client.closeInfo, undefined);
    assert.equal(client.queue.some((fr) => fr.event === 'ping'), false, 'never a JSON ping');
  });

  it('closes a connection that stops answering with Pong', async () => {
    const client = await TestClient.open(f.hub().wsUrl, { autoPong: false });
    await handshake(client);
    const kick = await f.hub().admin.waitFor('kick');
    assert.equal(kick.reason, 'pong_timeout');
    assert.equal((await client.closed).code, 1006);
  });
});
