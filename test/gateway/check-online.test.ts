/**
 * `clawling gateway --check --online` as a user runs it: the real CLI in a child process against a real broker that
 * checks credentials (aedes) and a real dev hub; plain `--check` stays offline.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import YAML from 'yaml';
import { startDevHub, type DevHub } from '../../devhub';
import { startBroker, type TestBroker } from './support/broker';
import { tempDir } from './support/gateway';

const BIN = path.join(__dirname, '..', '..', 'cli', 'clawling.js');

function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'gateway', ...args], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('clawling gateway --check --online', function () {
  this.timeout(60_000);
  let dir: string;
  let broker: TestBroker;
  let hub: DevHub;

  before(async () => {
    broker = await startBroker(0, { credentials: { username: 'clawling', password: 'right-password' } });
    hub = await startDevHub({ users: [{ id: 'agt_gw', token: 'hub-token-right' }] });
  });
  after(async () => {
    await broker.stop();
    await hub.stop();
  });
  beforeEach(() => {
    dir = tempDir('gw-online-');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function config(mqtt: Record<string, unknown>, hubSection?: Record<string, unknown>): string {
    const file = path.join(dir, 'gateway.yaml');
    const body: Record<string, unknown> = { gateway: { state_dir: path.join(dir, 'state') }, radios: [{ id: 'sim0', kind: 'simulated' }], http: { enabled: false }, mqtt: { url: broker.url, ...mqtt } };
    if (hubSection) body.hub = hubSection;
    fs.writeFileSync(file, YAML.stringify(body));
    return file;
  }

  it('logs in with the configured credentials and says so', async () => {
    const r = await run(['--check', '--online', '--config', config({ username: 'clawling', password: 'right-password' }, { enabled: true, url: hub.wsUrl, token: 'hub-token-right', user_id: 'agt_gw' })]);
    assert.equal(r.status, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /^online mqtt: ok: logged in to mqtt:\/\/127\.0\.0\.1:\d+ with MQTT 3\.1\.1 as clawling$/m);
    assert.match(r.stdout, /^online hub: ok: logged in to ws:\/\/127\.0\.0\.1:\d+\/ws as agt_gw$/m);
  });

  it('reports a refused login for the broker and for the hub, without quoting the secrets, and exits 4', async () => {
    const r = await run(['--check', '--online', '--config', config({ username: 'clawling', password: 'wrong-password' }, { enabled: true, url: hub.wsUrl, token: 'hub-token-wrong', user_id: 'agt_gw' })]);
    assert.equal(r.status, 4, r.stderr + r.stdout);
    assert.match(r.stdout, /^online mqtt: refused: .*refused the login of clawling.*check mqtt\.username and the password$/m);
    assert.match(r.stdout, /^online hub: refused: .*refused the token of agt_gw/m);
    assert.equal(/wrong-password|hub-token-wrong/.test(r.stdout + r.stderr), false);
  });

  it('reports an unreachable broker, and plain --check does not reach for it at all', async () => {
    const port = await closedPort();
    const file = config({ url: `mqtt://127.0.0.1:${port}` });
    const online = await run(['--check', '--online', '--config', file]);
    assert.equal(online.status, 4);
    assert.match(online.stdout, /^online mqtt: unreachable: mqtt:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED.*check mqtt\.url/m);
    const offline = await run(['--check', '--config', file]);
    assert.equal(offline.status, 0, offline.stderr);
    assert.equal(/^online /m.test(offline.stdout), false, offline.stdout);
  });
});
