/**
 * The upload's total deadline (issue 14 §1): a media server that answers a byte now and then never trips the idle
 * timeout, so without `deadlineMs` one such server holds the job for as long as it likes.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MediaError, uploadMedia } from '../../../lib/media';

describe('uploadMedia: total deadline', () => {
  let server: http.Server;
  let url: string;
  let requests = 0;

  before(async () => {
    server = http.createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        // A byte every 50 ms for 2 s, then something that is not an envelope.
        res.writeHead(200, { 'Content-Type': 'application/json' });
        let sent = 0;
        const timer = setInterval(() => {
          if (++sent === 40) {
            clearInterval(timer);
            res.end('}');
          } else res.write(' ');
        }, 50);
        res.on('close', () => clearInterval(timer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('fails with DEADLINE, not retried, when a dripping server outlasts deadlineMs', async () => {
    requests = 0;
    const err = await uploadMedia(Buffer.from('hello'), { url, token: 'tok', mime: 'text/plain', name: 'a.txt', timeoutMs: 1000, deadlineMs: 300 }).then(
      () => assert.fail('the upload should have failed'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof MediaError, String(err));
    assert.equal(err.code, 'DEADLINE');
    assert.equal(err.retryable, false);
    assert.equal(requests, 1);
  });

  it('refuses a deadline that is not a positive whole number', async () => {
    await assert.rejects(uploadMedia(Buffer.from('x'), { url, deadlineMs: 0 }), (e: unknown) => e instanceof MediaError && e.code === 'BAD_OPTIONS');
  });
});
