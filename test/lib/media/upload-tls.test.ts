/**
 * uploadMedia to an `https://` media service (the dev hub with a certificate from the private CA of
 * test/fixtures/tls): the caller's `https.Agent` carries the CA; without it the certificate error is `TLS_FAILED`,
 * a setting to fix, so it is not retried.
 */
import assert from 'node:assert/strict';
import https from 'node:https';
import { startDevHub, type DevHub } from '../../../devhub';
import { MediaError, uploadMedia, type RetryEvent } from '../../../lib/media';
import { TLS_FILES, testCa } from '../../support/tls';
import * as fx from './fixtures';

const TOKEN = 't-alice';

describe('media upload over https:// (dev hub with TLS)', () => {
  let hub: DevHub;
  before(async () => {
    hub = await startDevHub({ users: [{ id: 'usr_alice', token: TOKEN }], tls: TLS_FILES });
  });
  after(() => hub.stop());

  it('uploads through an agent that trusts the private CA, and the stored file is served over https', async () => {
    const agent = new https.Agent({ ca: testCa() });
    try {
      const image = fx.png(3, 2);
      const fragment = await uploadMedia(image, { url: hub.mediaUrl, token: TOKEN, name: 'tls.png', agent });
      assert.equal(fragment.kind, 'image');
      assert.deepEqual([fragment.width, fragment.height, fragment.size], [3, 2, image.length]);
      assert.match(fragment.url, /^https:\/\//);
      const served = await fetchBytes(fragment.url, agent);
      assert.deepEqual(served, image);
    } finally {
      agent.destroy();
    }
  });

  it('fails with TLS_FAILED, once, when the certificate does not verify', async () => {
    const retries: RetryEvent[] = [];
    await assert.rejects(
      uploadMedia(fx.png(1, 1), { url: hub.mediaUrl, token: TOKEN, retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 2 }, onRetry: (r) => retries.push(r) }),
      (e: unknown) => e instanceof MediaError && e.code === 'TLS_FAILED' && e.retryable === false && /certificate/i.test(e.message) && !e.message.includes(TOKEN),
    );
    assert.equal(retries.length, 0);
  });
});

function fetchBytes(url: string, agent: https.Agent): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { agent }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve(Buffer.concat(parts)));
      })
      .on('error', reject);
  });
}
