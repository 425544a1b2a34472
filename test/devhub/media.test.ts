import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startDevHub, type DevHub, type DevHubOptions } from '../../devhub';
import { BASE_OPTIONS } from './support';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);

interface Answer {
  status: number;
  body: { code: number; msg: string; data?: { kind: string; url: string; name: string; mime: string; size: number } };
}

async function upload(hub: DevHub, parts: Array<{ name: string; data: Buffer | string; type?: string; filename?: string }>, token: string | null = 'ta'): Promise<Answer> {
  const form = new FormData();
  for (const p of parts) {
    const blob = new Blob([typeof p.data === 'string' ? p.data : new Uint8Array(p.data)], p.type !== undefined ? { type: p.type } : {});
    if (p.filename === undefined) form.append(p.name, blob);
    else form.append(p.name, blob, p.filename);
  }
  const res = await fetch(`${hub.mediaUrl}/media/upload`, { method: 'POST', body: form, headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

function useMediaHub(media: DevHubOptions['media'] = {}): () => DevHub {
  let hub: DevHub | undefined;
  beforeEach(async () => {
    hub = await startDevHub({ ...BASE_OPTIONS, media });
  });
  afterEach(async () => {
    await hub?.stop();
  });
  return () => hub!;
}

describe('devhub media upload (§15)', () => {
  const hub = useMediaHub();

  it('serves on the WebSocket port by default and answers GET /health with 200 "ok"', async () => {
    assert.equal(new URL(hub().mediaUrl).port, new URL(hub().wsUrl).port);
    const res = await fetch(`${hub().mediaUrl}/health`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'ok');
  });

  it('stores a file and answers the envelope with a Fragment-shaped data, keeping the lower-cased extension', async () => {
    const got = await upload(hub(), [{ name: 'file', data: PNG, type: 'image/png', filename: 'Photo.PNG' }]);
    assert.equal(got.status, 200);
    assert.equal(got.body.code, 0);
    assert.equal(got.body.msg, 'ok');
    const data = got.body.data!;
    assert.deepEqual({ ...data, url: undefined }, { kind: 'image', url: undefined, name: 'Photo.PNG', mime: 'image/png', size: PNG.length });
    assert.match(data.url, /\/media\/[0-9A-HJKMNP-TV-Z]{26}\.png$/);
    const served = await fetch(data.url);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.match(served.headers.get('content-disposition')!, /^inline/);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), PNG);
    const [stored] = hub().admin.media();
    assert.equal(stored.sha256, createHash('sha256').update(PNG).digest('hex'));
    assert.equal(stored.user_id, 'usr_a');
  });

  for (const [mime, kind] of [
    ['video/mp4', 'video'],
    ['audio/ogg', 'audio'],
    ['application/pdf', 'file'],
    ['text/plain', 'file'],
  ] as const) {
    it(`infers kind "${kind}" from ${mime}`, async () => {
      const got = await upload(hub(), [{ name: 'file', data: 'abc', type: mime, filename: 'x.bin' }]);
      assert.equal(got.body.data!.kind, kind);
      assert.equal(got.body.data!.mime, mime);
    });
  }

  it('sniffs only when the declared type is empty, octet-stream or not singular, and trusts a singular one', async () => {
    assert.equal((await upload(hub(), [{ name: 'file', data: PNG, type: 'application/octet-stream', filename: 'a' }])).body.data!.mime, 'image/png');
    assert.equal((await upload(hub(), [{ name: 'file', data: PNG, type: 'image/*', filename: 'a' }])).body.data!.mime, 'image/png');
    assert.equal((await upload(hub(), [{ name: 'file', data: 'plain words', filename: 'a' }])).body.data!.mime, 'text/plain; charset=utf-8');
    const trusted = await upload(hub(), [{ name: 'file', data: 'MZ not an image', type: 'image/png', filename: 'evil.exe' }]);
    assert.equal(trusted.body.data!.mime, 'image/png');
  });

  it('downloads HTML as an attachment, never inline', async () => {
    const got = await upload(hub(), [{ name: 'file', data: '<html><script>alert(1)</script></html>', filename: 'page.html' }]);
    assert.equal(got.body.data!.mime, 'text/html; charset=utf-8');
    const served = await fetch(got.body.data!.url);
    assert.match(served.headers.get('content-disposition')!, /^attachment/);
  });

  it('falls back to the name "file" and no extension without a filename', async () => {
    const boundary = 'xyz';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`;
    const res = await fetch(`${hub().mediaUrl}/media/upload`, { method: 'POST', body, headers: { authorization: 'Bearer ta', 'content-type': `multipart/form-data; boundary=${boundary}` } });
    const json = (await res.json()) as Answer['body'];
    assert.equal(json.data!.name, 'file');
    assert.match(json.data!.url, /\/media\/[0-9A-Z]{26}$/);
  });

  it('answers 401 / 40101 for a missing or an invalid token', async () => {
    const missing = await upload(hub(), [{ name: 'file', data: 'x' }], null);
    assert.deepEqual([missing.status, missing.body], [401, { code: 40101, msg: 'missing Bearer token' }]);
    const invalid = await upload(hub(), [{ name: 'file', data: 'x' }], 'nope');
    assert.deepEqual([invalid.status, invalid.body], [401, { code: 40101, msg: 'invalid token' }]);
  });

  it('answers 400 / 40001 without a part named "file", and for a body that is not multipart', async () => {
    const other = await upload(hub(), [{ name: 'picture', data: 'x', filename: 'a' }]);
    assert.equal(other.status, 400);
    assert.equal(other.body.code, 40001);
    assert.match(other.body.msg, /^missing file: /);
    const res = await fetch(`${hub().mediaUrl}/media/upload`, { method: 'POST', body: 'raw', headers: { authorization: 'Bearer ta', 'content-type': 'text/plain' } });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as Answer['body']).code, 40001);
  });

  it('answers 400 / 40001 for a truncated multipart body', async () => {
    const body = `--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nno end`;
    const res = await fetch(`${hub().mediaUrl}/media/upload`, { method: 'POST', body, headers: { authorization: 'Bearer ta', 'content-type': 'multipart/form-data; boundary=b' } });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as Answer['body']).code, 40001);
    assert.deepEqual(hub().admin.media(), []);
  });

  it('answers 400 / 40002 for an empty file', async () => {
    const got = await upload(hub(), [{ name: 'file', data: '', filename: 'empty.txt' }]);
    assert.deepEqual([got.status, got.body], [400, { code: 40002, msg: 'empty upload' }]);
  });

  it('answers a forced storage failure with 500 / 50001 once', async () => {
    hub().admin.failMedia();
    const failed = await upload(hub(), [{ name: 'file', data: 'x', filename: 'a' }]);
    assert.deepEqual([failed.status, failed.body], [500, { code: 50001, msg: 'upload failed' }]);
    assert.equal((await upload(hub(), [{ name: 'file', data: 'x', filename: 'a' }])).status, 200);
  });
});

describe('devhub media limits and configuration', () => {
  describe('with a 1000-byte limit and an allowlist', () => {
    const hub = useMediaHub({ max_size_bytes: 1000, allowed_mime_prefixes: ['image/'] });

    it('answers 413 / 41301 above the limit and accepts exactly the limit', async () => {
      const big = await upload(hub(), [{ name: 'file', data: Buffer.alloc(1001, 7), type: 'image/png', filename: 'a.png' }]);
      assert.equal(big.status, 413);
      assert.equal(big.body.code, 41301);
      assert.match(big.body.msg, /^upload too large: \d+ bytes \(limit 1000\)$/);
      assert.equal((await upload(hub(), [{ name: 'file', data: Buffer.alloc(1000, 7), type: 'image/png', filename: 'a.png' }])).status, 200);
    });

    it('answers 413 to a declared body far above the limit', async () => {
      const got = await upload(hub(), [{ name: 'file', data: Buffer.alloc(200_000, 7), type: 'image/png', filename: 'a.png' }]);
      assert.equal(got.status, 413);
      assert.match(got.body.msg, /limit 1000/);
    });

    it('answers 415 / 41501 for a type outside the allowlist', async () => {
      const got = await upload(hub(), [{ name: 'file', data: 'x', type: 'text/plain', filename: 'a.txt' }]);
      assert.deepEqual([got.status, got.body.code], [415, 41501]);
      assert.match(got.body.msg, /^mime type not allowed: text\/plain/);
    });
  });

  describe('without storage', () => {
    const hub = useMediaHub({ storage: 'none' });
    it('answers 503 / 50301 storage not configured', async () => {
      const got = await upload(hub(), [{ name: 'file', data: 'x', filename: 'a' }]);
      assert.deepEqual([got.status, got.body], [503, { code: 50301, msg: 'storage not configured' }]);
    });
  });

  describe('on its own port with folder storage, in a process of its own', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'devhub-media-'));
    let child: ChildProcess | undefined;
    let urls: { mediaUrl: string; wsUrl: string };
    const reply = <T>(want: (m: Record<string, unknown>) => boolean): Promise<T> =>
      new Promise((resolve, reject) => {
        const onMessage = (m: Record<string, unknown>): void => {
          if (!want(m)) return;
          child!.off('exit', onExit);
          child!.off('message', onMessage);
          resolve(m as T);
        };
        const onExit = (code: number | null): void => reject(new Error(`the hub process exited (${code})`));
        child!.on('message', onMessage);
        child!.once('exit', onExit);
      });
    before(async () => {
      child = fork(path.join(__dirname, 'media', 'upload-memory-child.js'), [dir], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      urls = await reply<{ mediaUrl: string; wsUrl: string }>((m) => m.ready === true);
    });
    after(async () => {
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child!.once('exit', resolve));
        child.disconnect();
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    });

    // What is measured is the Buffer memory the hub still holds (after a full collection, in the hub's process),
    // not what it has allocated: received chunks are garbage once on disk, and how long they linger is the
    // collector's choice (on Node 24, 80 MB of them during this upload).
    it('listens apart from the WebSocket and streams a 100 MiB upload to disk without holding it in memory', async function () {
      this.timeout(120_000);
      assert.notEqual(new URL(urls.mediaUrl).port, new URL(urls.wsUrl).port);
      const size = 100 * 1024 * 1024;
      const chunk = Buffer.alloc(256 * 1024, 0x5a);
      const head = `--big\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/x-big\r\n\r\n`;
      const tail = `\r\n--big--\r\n`;
      const started = reply((m) => m.started === true);
      child!.send('start');
      await started;
      const answer = await new Promise<Answer>((resolve, reject) => {
        const url = new URL(`${urls.mediaUrl}/media/upload`);
        const req = http.request(
          { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: 'Bearer ta', 'content-type': 'multipart/form-data; boundary=big', 'content-length': head.length + size + tail.length } },
          (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Answer['body'] }));
          },
        );
        req.on('error', reject);
        req.write(head);
        let sent = 0;
        const pump = (): void => {
          while (sent < size) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          req.end(tail);
        };
        pump();
      });
      const measured = reply<{ peak: number; samples: number }>((m) => typeof m.peak === 'number');
      child!.send('stop');
      const { peak, samples } = await measured;
      assert.equal(answer.status, 200);
      assert.equal(answer.body.data!.size, size);
      assert.equal(answer.body.data!.kind, 'file');
      const key = path.basename(new URL(answer.body.data!.url).pathname);
      assert.equal(fs.statSync(path.join(dir, key)).size, size);
      assert.ok(samples > 0, 'the hub process took no memory sample while the upload was in flight');
      assert.ok(peak < size / 2, `the hub held up to ${peak} bytes of Buffers (after a full collection) during a ${size}-byte upload`);
    });
  });
});
