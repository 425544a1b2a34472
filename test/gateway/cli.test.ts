/** `clawling gateway` as users run it: a real child process, a real config file, a real broker. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Recorder, startBroker } from './support/broker';
import { tempDir } from './support/gateway';

const BIN = path.join(__dirname, '..', '..', 'cli', 'clawling.js');

function run(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, 'gateway', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('clawling gateway (CLI)', function () {
  this.timeout(20000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('gw-cli-');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('--check accepts a valid file and says what it will run', () => {
    const file = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(file, 'radios:\n  - {id: sim0, kind: simulated, peers: [{id: a}]}\nmqtt:\n  enabled: false\n');
    const r = run(['--check', '--config', file]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /configuration OK .*1 radio\(s\), MQTT off, status page http:\/\/127\.0\.0\.1:8089\//);
  });

  it('--check refuses an invalid file with exit 1 and one line per problem, naming its path', () => {
    const file = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(file, 'mqtt:\n  url: nope\n  qos: 2\nhttp:\n  port: 70000\n');
    const r = run(['--check', '--config', file]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^ {2}mqtt\.url: does not match/m);
    assert.match(r.stderr, /^ {2}mqtt\.qos: is not a known setting$/m);
    assert.match(r.stderr, /^ {2}http\.port: must be <= 65535 \(got 70000\)$/m);
  });

  it('--print-config shows the resolved YAML with environment overrides and no secrets', () => {
    const r = run(['--print-config'], { CLAWLING_MQTT_PASSWORD: 'p4ssw0rd!', CLAWLING_MQTT_USERNAME: 'gw', CLAWLING_HTTP_PORT: '9100', CLAWLING_MQTT_TYPO: 'x', CLAWLING_GATEWAY_STATE_DIR: dir });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(!r.stdout.includes('p4ssw0rd!'));
    assert.match(r.stdout, /password: "?\[redacted\]"?/);
    assert.match(r.stdout, /username: gw/);
    assert.match(r.stdout, /port: 9100/);
    assert.match(r.stderr, /warning: CLAWLING_MQTT_TYPO names no setting/);
  });

  it('--print-config hides a password written inside a URL', () => {
    const r = run(['--print-config'], { CLAWLING_MQTT_URL: 'mqtt://gw:s3cr%40t!@127.0.0.1:1883', CLAWLING_GATEWAY_STATE_DIR: dir });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(!r.stdout.includes('s3cr'), r.stdout);
    assert.match(r.stdout, /url: "?mqtt:\/\/gw:\[redacted\]@127\.0\.0\.1:1883"?/);
  });

  it('runs, publishes online, and on SIGTERM publishes offline and exits 0', async () => {
    const broker = await startBroker();
    const rec = await Recorder.connect(broker.url, ['clawling/cli/bridge/state']);
    const file = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(file, `gateway:\n  id: cli\n  state_dir: ${path.join(dir, 'state')}\nlog:\n  level: warn\nmqtt:\n  url: ${broker.url}\nhttp:\n  port: 0\n`);
    const child = spawn(process.execPath, [BIN, 'gateway', '--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await rec.until(() => rec.on('clawling/cli/bridge/state').some((m) => m.payload.toString() === 'online'), 10000, 'online');
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
      await rec.until(() => rec.on('clawling/cli/bridge/state').at(-1)?.payload.toString() === 'offline', 5000, 'offline');
      assert.equal(fs.statSync(path.join(dir, 'state', 'identity.json')).mode & 0o777, 0o600);
    } finally {
      child.kill('SIGKILL');
      await rec.close();
      await broker.stop();
    }
  });
});
