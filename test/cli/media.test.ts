/** `clawling media` as a user runs it: a child process against the dev hub's media service. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startDevHub, type DevHub } from '../../devhub';
import * as fx from '../lib/media/fixtures';

const BIN = path.join(__dirname, '..', '..', 'cli', 'clawling.js');
const TOKEN = 't-cli';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = {}, stdin?: Buffer): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('clawling media', function () {
  this.timeout(30_000);
  let hub: DevHub;
  let dir: string;
  let env: Record<string, string>;

  before(async () => {
    hub = await startDevHub({ users: [{ id: 'usr_cli', token: TOKEN }] });
    dir = await mkdtemp(path.join(os.tmpdir(), 'media-cli-'));
    env = { CLAWLING_TOKEN: TOKEN, CLAWLING_MEDIA_URL: hub.mediaUrl };
  });
  after(async () => {
    await hub.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('upload FILE prints the enriched fragment as one JSON line', async () => {
    const file = path.join(dir, 'clip.mp4');
    await writeFile(file, fx.mp4({ durationMs: 2500, width: 320, height: 240 }));
    const out = await run(['media', 'upload', file], env);
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.stdout.trim().split('\n').length, 1);
    const fragment = JSON.parse(out.stdout) as Record<string, unknown>;
    assert.equal(fragment.kind, 'video');
    assert.equal(fragment.name, 'clip.mp4');
    assert.equal(fragment.mime, 'video/mp4');
    assert.equal(fragment.width, 320);
    assert.equal(fragment.duration, 2500);
    assert.ok(hub.admin.media().some((m) => m.url === fragment.url));
  });

  it('takes --url, the token from the variable --token-env names, --mime and --name', async () => {
    const file = path.join(dir, 'blob');
    await writeFile(file, fx.oggOpus(1000));
    const out = await run(['media', 'upload', file, '--url', `${hub.mediaUrl}/media/upload`, '--token-env', 'MY_TOKEN', '--mime', 'audio/ogg', '--name', 'voice.opus', '--pretty'], {
      MY_TOKEN: TOKEN,
    });
    assert.equal(out.status, 0, out.stderr);
    const fragment = JSON.parse(out.stdout) as Record<string, unknown>;
    assert.deepEqual([fragment.kind, fragment.name, fragment.mime, fragment.duration], ['audio', 'voice.opus', 'audio/ogg', 1000]);
    assert.match(out.stdout, /\n {2}"kind"/);
  });

  it('reads standard input for -', async () => {
    const out = await run(['media', 'upload', '-', '--name', 'dot.png'], env, fx.png(7, 5));
    assert.equal(out.status, 0, out.stderr);
    const fragment = JSON.parse(out.stdout) as Record<string, unknown>;
    assert.deepEqual([fragment.kind, fragment.width, fragment.height], ['image', 7, 5]);
  });

  it('prints progress on stderr with --progress and warnings unless --quiet', async () => {
    const file = path.join(dir, 'cat.png');
    await writeFile(file, Buffer.concat([fx.EXE, Buffer.alloc(300_000)]));
    const loud = await run(['media', 'upload', file, '--progress'], env);
    assert.equal(loud.status, 0, loud.stderr);
    assert.match(loud.stderr, /warning: MIME_MISMATCH/);
    assert.match(loud.stderr, /sent 100%/);
    const quiet = await run(['media', 'upload', file, '--quiet'], env);
    assert.equal(quiet.status, 0);
    assert.equal(quiet.stderr, '');
  });

  it('exits 1 with CODE: message on a refused upload, and never prints the token', async () => {
    const file = path.join(dir, 'a.png');
    await writeFile(file, fx.png(1, 1));
    const out = await run(['media', 'upload', file, '--retries', '0'], { ...env, CLAWLING_TOKEN: 'wrong-secret-123' });
    assert.equal(out.status, 1);
    assert.match(out.stderr, /^clawling media: UNAUTHORIZED: /);
    assert.ok(!out.stderr.includes('wrong-secret-123') && !out.stdout.includes('wrong-secret-123'));
  });

  it('exits 1 with TOO_LARGE for --max-bytes, and SOURCE_UNREADABLE for a missing file', async () => {
    const file = path.join(dir, 'k.bin');
    await writeFile(file, Buffer.alloc(3000));
    const big = await run(['media', 'upload', file, '--max-bytes', '2KiB'], env);
    assert.equal(big.status, 1);
    assert.match(big.stderr, /TOO_LARGE: .*3000 bytes.*2048 bytes/);
    const missing = await run(['media', 'upload', path.join(dir, 'missing.png')], env);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /SOURCE_UNREADABLE: .*no such file/);
  });

  it('exits 2 on bad usage: no file, no URL, no token, bad numbers, unknown subcommand', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['media', 'upload'], env, /exactly one FILE/],
      [['media', 'upload', 'x'], { CLAWLING_TOKEN: TOKEN }, /no media URL/],
      [['media', 'upload', 'x'], { CLAWLING_MEDIA_URL: hub.mediaUrl }, /no token: set the environment variable CLAWLING_TOKEN/],
      [['media', 'upload', 'x', '--max-bytes', 'lots'], env, /--max-bytes/],
      [['media', 'upload', 'x', '--retries', '-1'], env, /--retries/],
      [['media', 'frobnicate'], env, /unknown subcommand/],
      [['media', 'upload', 'x', '--bogus'], env, /bogus/],
    ];
    for (const [args, e, pattern] of cases) {
      const out = await run(args, e);
      assert.equal(out.status, 2, `${args.join(' ')}: ${out.stderr}`);
      assert.match(out.stderr, pattern);
    }
  });

  it('health prints ok and exits 0; exits 1 when nothing answers', async () => {
    const ok = await run(['media', 'health', '--url', hub.mediaUrl]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /^ok \(HTTP 200, [\d.]+ ms\)/);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const down = await run(['media', 'health', '--url', `http://127.0.0.1:${port}`]);
    assert.equal(down.status, 1);
    assert.match(down.stderr, /NETWORK/);
  });

  it('--help lists the options', async () => {
    const out = await run(['media', '--help']);
    assert.equal(out.status, 0);
    assert.match(out.stdout, /--token-env NAME/);
  });
});
