/**
 * `clawling gateway --check` and start-up refusals as users meet them: the real CLI in a child process, real config
 * files, and a Node.js without node:sqlite (support/redirect-modules.ts).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './support/gateway';

const BIN = path.join(__dirname, '..', '..', 'cli', 'clawling.js');
const PRELOAD = path.join(__dirname, 'support', 'redirect-modules.js');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], modules: Record<string, string | null> = {}, env: NodeJS.ProcessEnv = {}): Run {
  const r = spawnSync(process.execPath, ['-r', PRELOAD, BIN, 'gateway', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, TEST_MODULE_REDIRECTS: JSON.stringify(modules), ...env },
    timeout: 30000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the gateway until it logs that it started (then SIGTERM), or until it exits by itself. */
function runGateway(file: string, modules: Record<string, string | null>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-r', PRELOAD, BIN, 'gateway', '--config', file], {
      env: { PATH: process.env.PATH, TEST_MODULE_REDIRECTS: JSON.stringify(modules) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let signalled = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!signalled && stdout.includes('"gateway started"')) {
        signalled = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('clawling gateway --check (readiness) and store refusals', function () {
  this.timeout(60000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('gw-check-');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function config(text: string, gatewayExtra = ''): string {
    const file = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(file, `gateway:\n${gatewayExtra}  state_dir: ${path.join(dir, 'state')}\nlog:\n  level: info\nmqtt:\n  enabled: false\nhttp:\n  port: 0\n${text}`);
    return file;
  }

  it('reports every problem at once, one line each with its path, without the validator\'s internal lines', () => {
    const file = config(
      'radios:\n' +
        '  - {id: sim0, kind: simulated, queue_limit: 2000000}\n' +
        '  - {id: usb0, kind: serial}\n' +
        '  - {id: ble0, kind: ble, adapter: usb0}\n' +
        '  - {id: ble1, kind: ble, peripheral: {advertise_name: "a name far too long to fit a scan response"}}\n',
    );
    const r = run(['--check', '--config', file]);
    assert.equal(r.status, 1);
    const lines = r.stderr.trim().split('\n').slice(1);
    assert.deepEqual(lines.sort(), [
      '  radios[0].queue_limit: must be <= 100000 (got 2000000)',
      '  radios[1]: needs one of path, match',
      '  radios[2].adapter: does not match ^(hci)?[0-9]{1,2}$ (got "usb0")',
      '  radios[3].peripheral.advertise_name: must be a name of 1 to 29 UTF-8 bytes',
    ]);
    assert.doesNotMatch(r.stderr, /anyOf|oneOf|"then"|must match/);
  });

  it('lists the store and each radio with its readiness and remedy, and exits 0 unless --strict', () => {
    const file = config(`radios:\n  - {id: sim0, kind: simulated}\n  - {id: usb0, kind: serial, path: ${path.join(dir, 'ttyACM9')}}\n`);
    const r = run(['--check', '--config', file]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^store: sqlite, ready/m);
    assert.match(r.stdout, /^radio sim0 \(simulated\): ready$/m);
    assert.match(r.stdout, new RegExp(`^radio usb0 \\(serial\\): not ready: ${path.join(dir, 'ttyACM9')} does not exist .*; fix: plug the device in, or correct radios\\[1\\]\\.path`, 'm'));
    assert.equal(run(['--check', '--strict', '--config', file]).status, 3);
    fs.writeFileSync(path.join(dir, 'ttyACM9'), '');
    const plugged = run(['--check', '--strict', '--config', file]);
    assert.equal(plugged.status, 0, plugged.stdout);
    assert.match(plugged.stdout, /^radio usb0 \(serial\): ready$/m);
  });

  it('a Node.js without node:sqlite refuses to start unless gateway.store is memory, which starts with a warning', async () => {
    const modules = { 'node:sqlite': null };
    const refused = await runGateway(config('radios:\n  - {id: sim0, kind: simulated}\n'), modules);
    assert.equal(refused.status, 1, refused.stdout);
    assert.match(refused.stderr, /STORE_DRIVER: gateway\.store is sqlite, and the durable store needs node:sqlite, which Node\.js v[\d.]+ does not have; run the gateway on Node\.js 22\.13\.0 or later/);
    assert.match(refused.stderr, /set gateway\.store: memory/);
    assert.ok(!fs.existsSync(path.join(dir, 'state', 'gateway.db')));

    const memory = await runGateway(config('radios:\n  - {id: sim0, kind: simulated}\n', '  store: memory\n'), modules);
    assert.equal(memory.status, 0, memory.stderr + memory.stdout);
    assert.match(memory.stdout, /"level":"warn".*gateway\.store is memory: the outbox and queues live in memory/);
    assert.match(memory.stdout, /"gateway started"/);
  });
});
