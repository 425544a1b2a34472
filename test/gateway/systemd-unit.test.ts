/**
 * The shipped systemd unit starts the gateway: its own `ExecStartPre=` and `ExecStart=` lines, with its own
 * `Environment=` assignments, read as systemd reads them (test/support/systemd-unit.ts), run as real processes with
 * only two words swapped: the installed path of clawling.js for this checkout's, and /etc/clawling/gateway.yaml for a
 * simulated-radio config in a temporary folder. The environment is what systemd gives a service (PATH, the unit's
 * assignments, STATE_DIRECTORY), not this test's.
 *
 * `systemd-analyze verify` of the unit runs in CI from `.ci/systemd-verify` (where the tool exists).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { NotifySocket } from '../support/notify-socket';
import { parseCommand, parseUnit, readUnit, shippedNodeFlags, shippedUnitPath, unitEnvironment, values } from '../support/systemd-unit';

const INSTALLED_SCRIPT = '/usr/local/lib/node_modules/@clawling/node-red-mesh/dist/cli/clawling.js';
const INSTALLED_CONFIG = '/etc/clawling/gateway.yaml';
const SCRIPT = path.join(__dirname, '..', '..', 'cli', 'clawling.js');

/** The command with exactly the two installed paths replaced; each must occur exactly once. */
function swapped(argv: string[], config: string): string[] {
  for (const word of [INSTALLED_SCRIPT, INSTALLED_CONFIG]) {
    assert.equal(argv.filter((a) => a === word).length, 1, `the command names ${word} once: ${argv.join(' ')}`);
  }
  return argv.map((a) => (a === INSTALLED_SCRIPT ? SCRIPT : a === INSTALLED_CONFIG ? config : a));
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function exited(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('systemd unit file parsing (systemd.syntax rules)', () => {
  it('reads quotes, escapes, %%, several assignments per Environment= line and continued lines', () => {
    const unit = parseUnit(
      [
        '[Service]',
        '# a comment',
        'Environment="A=one two" B=3 \'C=it\\\'s\'',
        'Environment=D=50%% E=x\\ty',
        'Environment=A=again F="a"b"c d"',
        'ExecStart=/usr/bin/env node $FLAGS \\',
        '; a comment inside the continuation',
        '  /opt/x.js "${A} and $B" --k=%%',
        'Environment="FLAGS=--a  --b"',
      ].join('\n'),
    );
    const env = unitEnvironment(unit);
    assert.deepEqual(env, { A: 'again', B: '3', C: "it's", D: '50%', E: 'x\ty', F: 'abc d', FLAGS: '--a  --b' });
    const [start] = values(unit, 'Service', 'ExecStart');
    assert.deepEqual(parseCommand(start!, env).argv, ['/usr/bin/env', 'node', '--a', '--b', '/opt/x.js', 'again and 3', '--k=%']);
  });

  it('expands an empty $VAR to no word, strips command prefixes, and refuses what it does not know', () => {
    assert.deepEqual(parseCommand('-/bin/true $NONE x', {}), { prefixes: '-', argv: ['/bin/true', 'x'] });
    assert.throws(() => parseCommand('/bin/x %n', {}), /specifier %n/);
    assert.throws(() => parseCommand('/bin/x "open', {}), /unterminated/);
    assert.throws(() => unitEnvironment(parseUnit('[Service]\nEnvironment=A=\\q')), /unknown escape/);
    assert.deepEqual(parseCommand('/bin/x %d/pw', {}, { specifiers: { d: '/run/c' } }).argv, ['/bin/x', '/run/c/pw']);
  });
});

describe('the shipped systemd unit (gateway/systemd/clawling-gateway.service)', function () {
  this.timeout(60000);
  const unit = readUnit(shippedUnitPath());
  const env = unitEnvironment(unit);
  let dir: string;
  let child: ChildProcess | undefined;
  let notify: NotifySocket | undefined;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-unit-'));
  });
  after(() => {
    child?.kill('SIGKILL');
    notify?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('passes Node its flags on the command line, not in NODE_OPTIONS (where node refuses some, such as --single-threaded)', () => {
    assert.equal(env.NODE_OPTIONS, undefined);
    const flags = shippedNodeFlags();
    assert.ok(flags.includes('--max-semi-space-size=1') && flags.some((f) => f.startsWith('--max-old-space-size=')), flags.join(' '));
    for (const key of ['ExecStartPre', 'ExecStart']) {
      const [line] = values(unit, 'Service', key);
      const argv = parseCommand(line!, env).argv;
      assert.deepEqual(argv.slice(0, 2), ['/usr/bin/env', 'node'], key);
      assert.deepEqual(argv.slice(2, 2 + flags.length), flags, `${key} gives node the same flags`);
    }
  });

  it('is Type=notify with a watchdog, which the gateway feeds through the systemd-notify program', () => {
    assert.deepEqual(values(unit, 'Service', 'Type'), ['notify']);
    assert.deepEqual(values(unit, 'Service', 'NotifyAccess'), ['all']);
    assert.ok(Number(values(unit, 'Service', 'WatchdogSec')[0]) > 0);
  });

  it('ExecStartPre (--check) exits 0, ExecStart answers /health and tells READY=1 then WATCHDOG=1 on NOTIFY_SOCKET, and SIGTERM ends it with STOPPING=1 and exit code 0', async () => {
    const config = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(
      config,
      YAML.stringify({
        gateway: { id: 'unit-test' },
        log: { level: 'info' },
        radios: [{ id: 'sim0', kind: 'simulated', peers: [{ id: 'alice', wire_versions: [1] }] }],
        mqtt: { enabled: false },
        http: { enabled: true, host: '127.0.0.1', port: 0 },
      }),
    );
    const state = path.join(dir, 'state');
    fs.mkdirSync(state, { mode: 0o700 });
    // What systemd hands a system service: its own PATH (here this machine's, to find the same node), the unit's
    // Environment= and the StateDirectory= path. Nothing of this test's environment leaks in.
    // Type=notify adds NOTIFY_SOCKET, and WatchdogSec= adds WATCHDOG_USEC (here a fraction of a second, not to wait).
    notify = new NotifySocket(dir);
    await notify.open();
    const serviceEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env, STATE_DIRECTORY: state, NOTIFY_SOCKET: notify.path, WATCHDOG_USEC: '300000' };
    const run = (key: string): ChildProcess => {
      const lines = values(unit, 'Service', key);
      assert.equal(lines.length, 1, `one ${key}=`);
      const argv = swapped(parseCommand(lines[0]!, env).argv, config);
      return spawn(argv[0]!, argv.slice(1), { env: serviceEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    };

    const check = run('ExecStartPre');
    let checkErr = '';
    check.stderr!.on('data', (c: Buffer) => (checkErr += c.toString()));
    check.stdout!.resume();
    assert.deepEqual(await exited(check), { code: 0, signal: null }, `--check failed: ${checkErr}`);

    child = run('ExecStart');
    const done = exited(child);
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      child!.stdout!.on('data', (c: Buffer) => {
        buffered += c.toString();
        for (const line of buffered.split('\n').slice(0, -1)) {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'status page listening' && entry.url) resolve(entry.url);
        }
        buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
      });
      void done.then((e) => reject(new Error(`the gateway ended before listening (${JSON.stringify(e)}): ${stderr}`)));
    });
    const health = await get(`${url}/health`);
    assert.equal(health.status, 200, health.body);
    const body = JSON.parse(health.body) as { status?: string; radios?: unknown };
    assert.equal(typeof body.status, 'string');
    assert.ok(fs.existsSync(path.join(state, 'identity.json')), 'the identity went to $STATE_DIRECTORY');

    await notify.until((m) => m.filter((line) => line.includes('WATCHDOG=1')).length >= 2);
    const ready = notify.messages.findIndex((line) => line.includes('READY=1'));
    assert.ok(ready >= 0 && ready < notify.messages.findIndex((line) => line.includes('WATCHDOG=1')), notify.messages.join(' | '));
    assert.match(notify.messages[ready]!, /STATUS=running; sim0 ready; MQTT disabled/);

    child.kill('SIGTERM');
    assert.deepEqual(await done, { code: 0, signal: null }, stderr);
    child = undefined;
    await notify.until((m) => m.some((line) => line.includes('STOPPING=1')));
  });
});
