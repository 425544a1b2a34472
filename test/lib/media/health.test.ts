import assert from 'node:assert/strict';
import net from 'node:net';
import { startDevHub, type DevHub } from '../../../devhub';
import { checkHealth } from '../../../lib/media';

describe('checkHealth (dev hub GET /health)', () => {
  let hub: DevHub;
  before(async () => {
    hub = await startDevHub({ media: { storage: 'none' } });
  });
  after(() => hub.stop());

  it('is ok even when storage is not configured (§15.7 does not exercise it)', async () => {
    const report = await checkHealth(hub.mediaUrl);
    assert.equal(report.ok, true);
    assert.equal(report.status, 200);
    assert.equal(report.body, 'ok');
    assert.ok(report.latencyMs >= 0);
  });

  it('accepts the upload URL as well as the base', async () => {
    assert.equal((await checkHealth(`${hub.mediaUrl}/media/upload`)).body, 'ok');
  });

  it('reports NETWORK when nothing listens', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await assert.rejects(checkHealth(`http://127.0.0.1:${port}`), { code: 'NETWORK' });
  });

  it('reports UNHEALTHY for a non-2xx answer', async () => {
    // The WebSocket path answers plain HTTP with an error status, which is what a misrouted health URL looks like.
    await assert.rejects(checkHealth(hub.wsUrl.replace(/^ws/, 'http').replace(/\/ws$/, '/nothing-here')), { code: 'UNHEALTHY' });
  });
});
