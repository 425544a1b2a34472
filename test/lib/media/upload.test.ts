/**
 * uploadMedia against the dev hub's real media service (POST /media/upload, §15): kinds, the error catalogue, retries,
 * streaming, cancellation and local enrichment, each checked on what the hub stored.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { truncateSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { startDevHub, type DevHub } from '../../../devhub';
import { MediaError, uploadMedia, uploadMediaDetailed, type MediaWarning, type RetryEvent, type UploadProgress } from '../../../lib/media';
import { readUploadReply } from '../../../lib/media/envelope';
import * as fx from './fixtures';

const TOKEN = 't-alice';
const FAST_RETRY = { retries: 2, baseDelayMs: 1, maxDelayMs: 5 };

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function expectMediaError(promise: Promise<unknown>, code: string): Promise<MediaError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof MediaError, `expected a MediaError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected ${code}, but the upload succeeded`);
}

function get(url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve(Buffer.concat(parts)));
      })
      .on('error', reject);
  });
}

/** A port on loopback that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A raw multipart POST, for shapes uploadMedia never produces. */
function rawPost(url: string, body: Buffer, boundary: string, token = TOKEN): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/media/upload`, {
      method: 'POST',
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, Authorization: `Bearer ${token}`, 'Content-Length': body.length },
    });
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('uploadMedia (dev hub media service)', function () {
  this.timeout(60_000);
  let hub: DevHub;
  let dir: string;

  before(async () => {
    hub = await startDevHub({ users: [{ id: 'usr_alice', token: TOKEN }] });
    dir = await mkdtemp(path.join(os.tmpdir(), 'media-upload-'));
  });
  after(async () => {
    await hub.stop();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => hub.admin.clearFaults());

  describe('kinds and enrichment', () => {
    it('infers image, video, audio and file from the MIME prefix (§15.4) and adds what the headers say', async () => {
      const cases = [
        { bytes: fx.png(33, 17), mime: 'image/png', name: 'dot.png', kind: 'image', extra: { width: 33, height: 17 } },
        { bytes: fx.jpeg(40, 24, { orientation: 6 }), mime: 'image/jpeg', name: 'portrait.jpg', kind: 'image', extra: { width: 24, height: 40 } },
        { bytes: fx.gif(5, 3), mime: 'image/gif', name: 'a.gif', kind: 'image', extra: { width: 5, height: 3 } },
        { bytes: fx.webpLossless(64, 48), mime: 'image/webp', name: 'a.webp', kind: 'image', extra: { width: 64, height: 48 } },
        { bytes: fx.mp4({ durationMs: 2500, width: 320, height: 240 }), mime: 'video/mp4', name: 'clip.mp4', kind: 'video', extra: { width: 320, height: 240, duration: 2500 } },
        { bytes: fx.webm({ durationMs: 4200, width: 640, height: 360 }), mime: 'video/webm', name: 'clip.webm', kind: 'video', extra: { width: 640, height: 360, duration: 4200 } },
        { bytes: fx.oggOpus(3000), mime: 'audio/ogg', name: 'voice.opus', kind: 'audio', extra: { duration: 3000 } },
        { bytes: fx.wav(1500), mime: 'audio/wav', name: 'beep.wav', kind: 'audio', extra: { duration: 1500 } },
        { bytes: fx.mp4({ durationMs: 2500 }), mime: 'audio/mp4', name: 'note.m4a', kind: 'audio', extra: { duration: 2500 } },
        { bytes: fx.PDF, mime: 'application/pdf', name: 'doc.pdf', kind: 'file', extra: {} },
      ];
      for (const c of cases) {
        const fragment = await uploadMedia(c.bytes, { url: hub.mediaUrl, token: TOKEN, mime: c.mime, name: c.name });
        const { url, ...rest } = fragment;
        assert.deepEqual(rest, { kind: c.kind, name: c.name, mime: c.mime, size: c.bytes.length, ...c.extra }, c.name);
        assert.equal(typeof url, 'string');
        const stored = hub.admin.media().find((m) => m.url === url);
        assert.ok(stored, `${c.name} stored`);
        assert.equal(stored.sha256, sha256(c.bytes));
        assert.equal(stored.user_id, 'usr_alice');
      }
    });

    it('the returned url serves exactly the uploaded bytes', async () => {
      const bytes = fx.png(8, 8);
      const fragment = await uploadMedia(bytes, { url: hub.mediaUrl, token: TOKEN, name: 'x.png' });
      assert.deepEqual(await get(fragment.url), bytes);
    });

    it('without a MIME type or name, declares the sniffed type and names the file after it', async () => {
      const result = await uploadMediaDetailed(fx.gif(2, 2), { url: hub.mediaUrl, token: TOKEN });
      assert.equal(result.mime, 'image/gif');
      assert.equal(result.fragment.name, 'file.gif');
      assert.equal(result.fragment.kind, 'image');
    });

    it('a path uploads under its own name, with the type from its extension', async () => {
      const file = path.join(dir, 'report.pdf');
      await writeFile(file, fx.PDF);
      const fragment = await uploadMedia(file, { url: hub.mediaUrl, token: TOKEN });
      assert.equal(fragment.name, 'report.pdf');
      assert.equal(fragment.mime, 'application/pdf');
      assert.equal(fragment.kind, 'file');
    });

    it('a file name with quotes and non-ASCII characters comes back unchanged', async () => {
      const name = 'say "cheese" – Überraschung 🎉.png';
      const fragment = await uploadMedia(fx.png(1, 1), { url: hub.mediaUrl, token: TOKEN, name });
      assert.equal(fragment.name, name);
    });

    it('a name with a directory (either separator) is sent as its last segment', async () => {
      for (const name of ['/home/pi/cam/shot.png', 'C:\\Users\\pi\\shot.png']) {
        const fragment = await uploadMedia(fx.png(1, 1), { url: hub.mediaUrl, token: TOKEN, name });
        assert.equal(fragment.name, 'shot.png');
      }
    });

    it('enrich: false returns the hub fragment as it is', async () => {
      const fragment = await uploadMedia(fx.png(3, 3), { url: hub.mediaUrl, token: TOKEN, name: 'a.png', enrich: false });
      assert.equal(fragment.width, undefined);
      assert.equal(fragment.height, undefined);
    });

    it('warns when the content contradicts the declared type, and uploads as declared', async () => {
      const warnings: MediaWarning[] = [];
      const fragment = await uploadMedia(fx.EXE, { url: hub.mediaUrl, token: TOKEN, mime: 'image/png', name: 'cat.png', onWarning: (w) => warnings.push(w) });
      assert.equal(warnings.length, 1);
      assert.equal(warnings[0].code, 'MIME_MISMATCH');
      assert.equal(warnings[0].detected, 'application/x-msdownload');
      assert.equal(fragment.mime, 'image/png');
      assert.equal(fragment.kind, 'image');
      // The prober follows the content, so a program is not given a picture's size.
      assert.equal(fragment.width, undefined);
    });
  });

  describe('the error catalogue (§15.6)', () => {
    it('an empty file is EMPTY_UPLOAD (40002), not retried', async () => {
      const retries: RetryEvent[] = [];
      const err = await expectMediaError(uploadMedia(Buffer.alloc(0), { url: hub.mediaUrl, token: TOKEN, name: 'empty.txt', retry: FAST_RETRY, onRetry: (r) => retries.push(r) }), 'EMPTY_UPLOAD');
      assert.equal(err.hubCode, 40002);
      assert.equal(err.status, 400);
      assert.equal(retries.length, 0);
    });

    it('a multipart body without a part named file is MISSING_FILE (40001)', async () => {
      const boundary = 'b0undary';
      const body = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="other"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`);
      const reply = await rawPost(hub.mediaUrl, body, boundary);
      const outcome = readUploadReply(reply.status, reply.text);
      assert.ok(!outcome.ok);
      assert.equal(outcome.error.code, 'MISSING_FILE');
      assert.equal(outcome.error.hubCode, 40001);
    });

    it('a bad token is UNAUTHORIZED (40101), not retried, and the token is in no message', async () => {
      const retries: RetryEvent[] = [];
      const secret = 'secret-token-xyz';
      const err = await expectMediaError(
        uploadMedia(fx.png(1, 1), { url: hub.mediaUrl, token: secret, retry: FAST_RETRY, onRetry: (r) => retries.push(r) }),
        'UNAUTHORIZED',
      );
      assert.equal(err.hubCode, 40101);
      assert.equal(err.details?.attempts, 1);
      assert.equal(retries.length, 0);
      assert.ok(!JSON.stringify({ message: err.message, stack: err.stack, details: err.details }).includes(secret));
    });

    it('no token at all is UNAUTHORIZED (missing Bearer token)', async () => {
      const err = await expectMediaError(uploadMedia(fx.png(1, 1), { url: hub.mediaUrl }), 'UNAUTHORIZED');
      assert.equal(err.hubCode, 40101);
    });

    it('a file above the limit is refused before sending, with a message that says the sizes', async () => {
      const stored = hub.admin.media().length;
      const err = await expectMediaError(uploadMedia(Buffer.alloc(2048, 1), { url: hub.mediaUrl, token: TOKEN, maxBytes: 1024 }), 'TOO_LARGE');
      assert.equal(err.details?.source, 'client');
      assert.match(err.message, /2048 bytes.*1024 bytes/);
      assert.equal(err.hubCode, undefined);
      assert.equal(hub.admin.media().length, stored);
    });

    it('a failed storage backend (500, 50001) is retried, and the retry succeeds', async () => {
      hub.admin.failMedia({ count: 1 });
      const retries: RetryEvent[] = [];
      const result = await uploadMediaDetailed(fx.png(2, 2), { url: hub.mediaUrl, token: TOKEN, retry: FAST_RETRY, onRetry: (r) => retries.push(r) });
      assert.equal(result.attempts, 2);
      assert.equal(retries.length, 1);
      assert.equal(retries[0].error.code, 'UPLOAD_FAILED');
      assert.equal(retries[0].error.hubCode, 50001);
      assert.equal(result.fragment.kind, 'image');
    });

    it('a client error injected by the hub is not retried, whatever the budget', async () => {
      hub.admin.failMedia({ count: 5, status: 415, code: 41501, msg: 'mime type not allowed: image/png' });
      const retries: RetryEvent[] = [];
      const err = await expectMediaError(
        uploadMedia(fx.png(2, 2), { url: hub.mediaUrl, token: TOKEN, retry: { retries: 4, baseDelayMs: 1 }, onRetry: (r) => retries.push(r) }),
        'MIME_NOT_ALLOWED',
      );
      assert.equal(err.hubCode, 41501);
      assert.equal(retries.length, 0);
    });

    it('an error message never carries the token, even when the service quotes it', async () => {
      hub.admin.failMedia({ count: 1, status: 401, code: 40101, msg: `invalid token: Bearer ${TOKEN}` });
      const err = await expectMediaError(uploadMedia(fx.png(2, 2), { url: hub.mediaUrl, token: TOKEN, retry: false }), 'UNAUTHORIZED');
      assert.match(err.message, /invalid token: Bearer \[redacted\]/);
      assert.ok(!JSON.stringify({ message: err.message, details: err.details, stack: err.stack }).includes(TOKEN));
    });

    it('the envelope code decides even when the status says otherwise', async () => {
      hub.admin.failMedia({ count: 1, status: 200, code: 41301, msg: 'upload too large: 5 bytes (limit 4)' });
      const err = await expectMediaError(uploadMedia(fx.png(2, 2), { url: hub.mediaUrl, token: TOKEN, retry: false }), 'TOO_LARGE');
      assert.equal(err.status, 200);
    });

    it('a Readable is retried after a connection failure, since nothing past its head was consumed', async () => {
      const port = await closedPort();
      const retries: RetryEvent[] = [];
      await expectMediaError(
        uploadMedia(Readable.from([fx.png(4, 4)]), { url: `http://127.0.0.1:${port}`, token: TOKEN, retry: FAST_RETRY, onRetry: (r) => retries.push(r) }),
        'NETWORK',
      );
      assert.equal(retries.length, 2);
    });

    it('a network failure is retried, then reported as NETWORK', async () => {
      const port = await closedPort();
      const retries: RetryEvent[] = [];
      const err = await expectMediaError(
        uploadMedia(fx.png(1, 1), { url: `http://127.0.0.1:${port}`, token: TOKEN, retry: FAST_RETRY, onRetry: (r) => retries.push(r) }),
        'NETWORK',
      );
      assert.equal(retries.length, 2);
      assert.equal(err.details?.attempts, 3);
      assert.equal(err.retryable, true);
    });
  });

  describe('hub settings', () => {
    it('above the hub limit: TOO_LARGE from the hub (413, 41301), not retried', async () => {
      const small = await startDevHub({ users: [{ id: 'usr_alice', token: TOKEN }], media: { max_size_bytes: 1024 } });
      try {
        const retries: RetryEvent[] = [];
        const err = await expectMediaError(
          uploadMedia(Buffer.alloc(4096, 7), { url: small.mediaUrl, token: TOKEN, name: 'big.bin', retry: FAST_RETRY, onRetry: (r) => retries.push(r) }),
          'TOO_LARGE',
        );
        assert.equal(err.hubCode, 41301);
        assert.equal(err.status, 413);
        assert.equal(retries.length, 0);
        assert.equal(small.admin.media().length, 0);
      } finally {
        await small.stop();
      }
    });

    it('storage not configured (503, 50301) is retried to the budget, then reported', async () => {
      const none = await startDevHub({ users: [{ id: 'usr_alice', token: TOKEN }], media: { storage: 'none' } });
      try {
        const retries: RetryEvent[] = [];
        const err = await expectMediaError(
          uploadMedia(fx.png(1, 1), { url: none.mediaUrl, token: TOKEN, retry: FAST_RETRY, onRetry: (r) => retries.push(r) }),
          'STORAGE_NOT_CONFIGURED',
        );
        assert.equal(err.hubCode, 50301);
        assert.equal(err.status, 503);
        assert.equal(retries.length, 2);
        assert.equal(err.details?.attempts, 3);
      } finally {
        await none.stop();
      }
    });
  });

  describe('streaming', () => {
    it('streams a 50 MiB file from disk with progress up to its size', async () => {
      const block = randomBytes(1024 * 1024);
      const file = path.join(dir, 'big.bin');
      const blocks = Array.from({ length: 50 }, (_, i) => Buffer.concat([Buffer.from([i]), block.subarray(1)]));
      await writeFile(file, Buffer.concat(blocks));
      const expected = createHash('sha256');
      for (const b of blocks) expected.update(b);
      const progress: UploadProgress[] = [];
      const fragment = await uploadMedia(file, { url: hub.mediaUrl, token: TOKEN, onProgress: (p) => progress.push(p) });
      assert.equal(fragment.size, 50 * 1024 * 1024);
      assert.equal(fragment.kind, 'file');
      const stored = hub.admin.media().find((m) => m.url === fragment.url);
      assert.equal(stored?.sha256, expected.digest('hex'));
      assert.ok(progress.length > 10);
      for (let i = 1; i < progress.length; i++) assert.ok(progress[i].sent >= progress[i - 1].sent);
      assert.deepEqual(progress.at(-1), { sent: 50 * 1024 * 1024, total: 50 * 1024 * 1024, attempt: 1 });
    });

    it('streams a Readable of unknown length (chunked) and keeps its bytes', async () => {
      const chunks = Array.from({ length: 40 }, () => randomBytes(100_000));
      const head = fx.wav(100);
      const all = Buffer.concat([head, ...chunks]);
      const fragment = await uploadMedia(Readable.from([head, ...chunks]), { url: hub.mediaUrl, token: TOKEN, name: 'stream.bin', mime: 'application/octet-stream' });
      assert.equal(fragment.size, all.length);
      assert.equal(hub.admin.media().find((m) => m.url === fragment.url)?.sha256, sha256(all));
    });

    it('a Readable of declared size is refused up front when too large', async () => {
      const stream = Readable.from([Buffer.alloc(10)]);
      await expectMediaError(uploadMedia(stream, { url: hub.mediaUrl, token: TOKEN, size: 5000, maxBytes: 4000 }), 'TOO_LARGE');
    });

    it('a Readable that outgrows maxBytes is cut off with TOO_LARGE and nothing is stored', async () => {
      const stored = hub.admin.media().length;
      const stream = Readable.from(Array.from({ length: 48 }, () => Buffer.alloc(64 * 1024, 3)));
      const err = await expectMediaError(uploadMedia(stream, { url: hub.mediaUrl, token: TOKEN, maxBytes: 1024 * 1024 }), 'TOO_LARGE');
      assert.equal(err.details?.source, 'client');
      assert.equal(hub.admin.media().length, stored);
    });

    it('a Readable shorter than its declared size fails with SOURCE_SIZE_MISMATCH', async () => {
      const stream = Readable.from([Buffer.alloc(300_000, 1)]);
      await expectMediaError(uploadMedia(stream, { url: hub.mediaUrl, token: TOKEN, size: 400_000 }), 'SOURCE_SIZE_MISMATCH');
    });

    it('a file that shrinks during the upload fails with SOURCE_SIZE_MISMATCH and nothing is stored', async () => {
      const file = path.join(dir, 'shrinking.bin');
      await writeFile(file, Buffer.alloc(4 * 1024 * 1024, 2));
      const stored = hub.admin.media().length;
      let cut = false;
      await expectMediaError(
        uploadMedia(file, {
          url: hub.mediaUrl,
          token: TOKEN,
          onProgress: (p) => {
            if (p.sent > 0 && !cut) {
              cut = true;
              truncateSync(file, 1024 * 1024);
            }
          },
        }),
        'SOURCE_SIZE_MISMATCH',
      );
      assert.equal(hub.admin.media().length, stored);
    });

    it('a missing file is SOURCE_UNREADABLE and nothing is sent', async () => {
      const err = await expectMediaError(uploadMedia(path.join(dir, 'nope.jpg'), { url: hub.mediaUrl, token: TOKEN }), 'SOURCE_UNREADABLE');
      assert.match(err.message, /no such file/);
    });
  });

  describe('cancellation', () => {
    it('an AbortSignal stops an upload in flight with ABORTED, and nothing is stored', async () => {
      const stored = hub.admin.media().length;
      const controller = new AbortController();
      let sentBeforeAbort = 0;
      async function* slow(): AsyncGenerator<Buffer> {
        for (let i = 0; i < 1000; i++) {
          yield Buffer.alloc(64 * 1024, 9);
          await new Promise((r) => setImmediate(r));
        }
      }
      const err = await expectMediaError(
        uploadMedia(Readable.from(slow()), {
          url: hub.mediaUrl,
          token: TOKEN,
          signal: controller.signal,
          onProgress: (p) => {
            if (p.sent > 1024 * 1024 && !controller.signal.aborted) {
              sentBeforeAbort = p.sent;
              controller.abort();
            }
          },
        }),
        'ABORTED',
      );
      assert.ok(sentBeforeAbort > 0);
      assert.match(err.message, /cancelled/);
      assert.equal(hub.admin.media().length, stored);
    });

    it('an already aborted signal refuses at once', async () => {
      await expectMediaError(uploadMedia(fx.png(1, 1), { url: hub.mediaUrl, token: TOKEN, signal: AbortSignal.abort() }), 'ABORTED');
    });

    it('aborting during the backoff wait stops the retries', async () => {
      const port = await closedPort();
      const controller = new AbortController();
      const err = await expectMediaError(
        uploadMedia(fx.png(1, 1), {
          url: `http://127.0.0.1:${port}`,
          token: TOKEN,
          signal: controller.signal,
          retry: { retries: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 },
          onRetry: () => controller.abort(),
        }),
        'ABORTED',
      );
      assert.equal(err.code, 'ABORTED');
    });
  });

  describe('options', () => {
    it("an error thrown by the caller's progress callback comes back as it is, not as a network failure", async () => {
      const retries: RetryEvent[] = [];
      const mine = new Error('my progress bar broke');
      await assert.rejects(
        uploadMedia(Buffer.alloc(300_000, 1), {
          url: hub.mediaUrl,
          token: TOKEN,
          retry: FAST_RETRY,
          onRetry: (r) => retries.push(r),
          onProgress: (p) => {
            if (p.sent > 0) throw mine;
          },
        }),
        (err) => err === mine,
      );
      assert.equal(retries.length, 0);
    });


    it('refuses bad options with BAD_OPTIONS before any I/O', async () => {
      await expectMediaError(uploadMedia(fx.png(1, 1), { url: 'not a url', token: TOKEN }), 'BAD_OPTIONS');
      await expectMediaError(uploadMedia(fx.png(1, 1), { url: hub.mediaUrl, token: TOKEN, maxBytes: 0 }), 'BAD_OPTIONS');
      await expectMediaError(uploadMedia(fx.png(1, 1), { url: hub.mediaUrl, token: TOKEN, mime: 'nonsense' }), 'BAD_OPTIONS');
      await expectMediaError(uploadMedia(42 as unknown as Buffer, { url: hub.mediaUrl, token: TOKEN }), 'BAD_OPTIONS');
    });
  });
});
