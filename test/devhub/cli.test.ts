import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { resolveOptions } from '../../devhub/config';
import { TestClient } from './support';

const BIN = path.join(__dirname, '..', '..', 'cli', 'clawling.js');

describe('clawling devhub', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'devhub-cli-'));
  });
  // A test that fails while waiting must not leave its hub running.
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prints an example config that is itself a valid configuration', () => {
    const run = spawnSync(process.execPath, [BIN, 'devhub', '--example-config'], { encoding: 'utf8' });
    assert.equal(run.status, 0);
    const config = resolveOptions(YAML.parse(run.stdout));
    assert.equal(config.users.length, 3);
    assert.equal(YAML.parse(run.stdout).admin.host, '127.0.0.1');
    assert.match(run.stdout, /^ {2}# token: \S{16,} +# Authorization: Bearer/m, 'the admin token setting is shown, commented out');
  });

  it('exits 2 without --config, and with a config error naming the path', () => {
    const none = spawnSync(process.execPath, [BIN, 'devhub'], { encoding: 'utf8' });
    assert.equal(none.status, 2);
    assert.match(none.stderr, /--config FILE is required/);
    fs.writeFileSync(path.join(dir, 'bad.yaml'), 'port: many\n');
    const bad = spawnSync(process.execPath, [BIN, 'devhub', '--config', path.join(dir, 'bad.yaml')], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /port: must be integer \(got "many"\)/);
  });

  it('runs from a config file, prints its URLs, serves a handshake, and stops on SIGINT', async function () {
    this.timeout(20_000);
    fs.writeFileSync(path.join(dir, 'hub.yaml'), 'users:\n  - id: usr_a\n    token: cli-token\n');
    const child = spawn(process.execPath, [BIN, 'devhub', '--config', path.join(dir, 'hub.yaml'), '--port', '0', '--state', path.join(dir, 'state.json')], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const urls = await new Promise<Record<string, string>>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const ws = /websocket: (\S+)/.exec(out);
        const media = /media: +(\S+)/.exec(out);
        const admin = /admin: +(\S+)/.exec(out);
        const adminToken = /admin token: +(\S+)/.exec(out);
        if (ws && media && admin && adminToken && out.includes('Ctrl-C')) resolve({ ws: ws[1], media: media[1], admin: admin[1], adminToken: adminToken[1] });
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)));
    });
    assert.match(urls.ws, /^ws:\/\/127\.0\.0\.1:\d+\/ws$/);
    assert.equal(out.includes('cli-token'), false, 'the token is never printed');
    const client = await TestClient.open(urls.ws);
    const { payload } = await client.event('connect.challenge');
    client.send({ version: '2', event: 'connect', trace_id: 'c', emitted_at: 1, payload: { token: 'cli-token', nonce: payload.nonce } });
    assert.equal((await client.event('hello-ok')).payload.device_id, 'usr_a');
    assert.equal((await fetch(`${urls.media}/health`)).status, 200);
    assert.equal((await fetch(`${urls.admin}/devices`)).status, 401, 'the admin API wants the printed token');
    const devices = (await (await fetch(`${urls.admin}/devices`, { headers: { authorization: `Bearer ${urls.adminToken}` } })).json()) as { result: unknown[] };
    assert.equal(devices.result.length, 1);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    assert.equal(await exited, 0);
    await client.closed;
    const state = fs.readFileSync(path.join(dir, 'state.json'), 'utf8');
    assert.equal(JSON.parse(state).format, 'clawling-devhub-state');
    assert.match(urls.adminToken, /^[\w-]{43}$/, 'a drawn token: 32 random bytes');
    assert.equal(out.split(urls.adminToken).length, 2, 'the admin token is printed once');
    assert.ok(err.includes('dev hub listening'), err);
    assert.equal(err.includes(urls.adminToken), false, 'no log line carries the admin token');
    assert.equal(state.includes(urls.adminToken), false, 'the state file does not hold the admin token');
  });

  it('takes the admin token from $CLAWLING_DEVHUB_ADMIN_TOKEN and does not echo it', async function () {
    this.timeout(20_000);
    const token = 'env-admin-token-0123456789';
    fs.writeFileSync(path.join(dir, 'hub.yaml'), 'users: []\n');
    const child = spawn(process.execPath, [BIN, 'devhub', '--config', path.join(dir, 'hub.yaml')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CLAWLING_DEVHUB_ADMIN_TOKEN: token },
    });
    children.push(child);
    let out = '';
    const admin = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const url = /admin: +(\S+)/.exec(out);
        if (url && out.includes('Ctrl-C')) resolve(url[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      assert.match(out, /admin token: \(\$CLAWLING_DEVHUB_ADMIN_TOKEN\)/);
      assert.equal(out.includes(token), false);
      assert.equal((await fetch(`${admin}/devices`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
      assert.equal((await fetch(`${admin}/devices`, { headers: { authorization: 'Bearer some-other-token-0123' } })).status, 401);
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 0);
  });
});
