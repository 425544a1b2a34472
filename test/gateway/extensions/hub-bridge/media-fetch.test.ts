import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchMedia } from '../../../../gateway/extensions/hub-bridge/media-fetch';

describe('gateway/hub/media-fetch', () => {
  let server: http.Server;
  let base: string;
  let streamed = 0;

  before(async () => {
    server = http.createServer((req, res) => {
      switch (req.url) {
        case '/ok':
          res.writeHead(200, { 'Content-Type': 'image/png; charset=binary', 'Content-Length': '4' });
          res.end(Buffer.from([1, 2, 3, 4]));
          return;
        case '/declared-large':
          res.writeHead(200, { 'Content-Length': '5000' });
          res.end(Buffer.alloc(5000));
          return;
        case '/lying': {
          // No length announced; keeps sending well past any limit until the client hangs up.
          res.writeHead(200);
          const timer = setInterval(() => {
            streamed += 1024;
            res.write(Buffer.alloc(1024));
          }, 1);
          res.on('close', () => clearInterval(timer));
          return;
        }
        case '/down':
          res.writeHead(503);
          res.end();
          return;
        case '/gone':
          res.writeHead(404);
          res.end();
          return;
        case '/drip': {
          // A byte every 50 ms for 2 s: never idle long enough for the idle timeout.
          res.writeHead(200);
          let sent = 0;
          const timer = setInterval(() => {
            if (++sent === 40) {
              clearInterval(timer);
              res.end('x');
            } else res.write('x');
          }, 50);
          res.on('close', () => clearInterval(timer));
          return;
        }
        case '/stall':
          res.writeHead(200);
          res.write('x');
          return;
        default:
          res.writeHead(500);
          res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const code = async (p: Promise<unknown>): Promise<{ code: string; retryable: unknown }> => {
    try {
      await p;
    } catch (err) {
      const e = err as { code: string; details?: { retryable?: unknown } };
      return { code: e.code, retryable: e.details?.retryable };
    }
    return assert.fail('expected a refusal');
  };

  it('returns the bytes and the declared type', async () => {
    const got = await fetchMedia(`${base}/ok`, { maxBytes: 10, timeoutMs: 5000 });
    assert.deepEqual([...got.data], [1, 2, 3, 4]);
    assert.equal(got.mime, 'image/png');
  });

  it('refuses a declared length above the limit before reading, and cuts off a body that grows past it', async () => {
    assert.deepEqual(await code(fetchMedia(`${base}/declared-large`, { maxBytes: 4096, timeoutMs: 5000 })), { code: 'MEDIA_TOO_LARGE', retryable: false });
    assert.deepEqual(await code(fetchMedia(`${base}/lying`, { maxBytes: 8192, timeoutMs: 5000 })), { code: 'MEDIA_TOO_LARGE', retryable: false });
    assert.ok(streamed < 1024 * 1024, `the client stopped reading (${streamed} bytes served)`);
  });

  it('says which failures are worth another attempt', async () => {
    assert.deepEqual(await code(fetchMedia(`${base}/down`, { maxBytes: 10, timeoutMs: 5000 })), { code: 'MEDIA_HTTP', retryable: true });
    assert.deepEqual(await code(fetchMedia(`${base}/gone`, { maxBytes: 10, timeoutMs: 5000 })), { code: 'MEDIA_HTTP', retryable: false });
    assert.deepEqual(await code(fetchMedia(`${base}/stall`, { maxBytes: 10, timeoutMs: 100 })), { code: 'MEDIA_TIMEOUT', retryable: true });
    assert.deepEqual(await code(fetchMedia(`${base}/drip`, { maxBytes: 100, timeoutMs: 1000, deadlineMs: 300 })), { code: 'MEDIA_DEADLINE', retryable: true });
    assert.deepEqual(await code(fetchMedia('file:///etc/passwd', { maxBytes: 10, timeoutMs: 100 })), { code: 'MEDIA_BAD_URL', retryable: false });
    assert.deepEqual(await code(fetchMedia('not a url', { maxBytes: 10, timeoutMs: 100 })), { code: 'MEDIA_BAD_URL', retryable: false });
  });
});
