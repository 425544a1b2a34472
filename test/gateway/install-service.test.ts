import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { installService, SYSTEM_UNIT_DIR, UNIT_NAME } from '../../gateway/install-service';
import { parseCommand, parseUnit, unitEnvironment, values } from '../support/systemd-unit';

const CLI = path.join(__dirname, '..', '..', 'cli', 'clawling.js');

describe('clawling gateway install-service', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'install-service-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes the unit with this Node, this package, the config and the user; the unit it wrote runs its --check', async () => {
    const config = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(config, YAML.stringify({ gateway: { id: 'svc', state_dir: path.join(dir, 'state') }, radios: [{ id: 'sim0', kind: 'simulated' }], mqtt: { enabled: false }, http: { enabled: false } }));
    const units = path.join(dir, 'units');
    const run = spawnSync(process.execPath, [CLI, 'gateway', 'install-service', '--unit-dir', units, '--config', config, '--user', 'nobody'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`wrote ${path.join(units, UNIT_NAME)}`));
    assert.match(run.stdout, /sudo systemctl enable --now clawling-gateway/);

    const unit = parseUnit(fs.readFileSync(path.join(units, UNIT_NAME), 'utf8'));
    assert.equal((fs.statSync(path.join(units, UNIT_NAME)).mode & 0o777).toString(8), '644');
    assert.deepEqual(values(unit, 'Service', 'User'), ['nobody']);
    assert.deepEqual(values(unit, 'Service', 'Type'), ['notify']);
    const env = unitEnvironment(unit);
    const start = parseCommand(values(unit, 'Service', 'ExecStart')[0]!, env).argv;
    assert.equal(start[0], process.execPath);
    assert.ok(start.includes(fs.realpathSync(CLI)) || start.includes(path.resolve(CLI)), start.join(' '));
    assert.deepEqual(start.slice(-3), ['gateway', '--config', config]);

    const pre = parseCommand(values(unit, 'Service', 'ExecStartPre')[0]!, env).argv;
    const check = spawn(pre[0]!, pre.slice(1), { env: { PATH: process.env.PATH ?? '/usr/bin', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    check.stdout.on('data', (c: Buffer) => (out += c.toString()));
    check.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => check.on('exit', resolve));
    assert.equal(code, 0, out);
    assert.match(out, /configuration OK/);
  });

  it('refuses a Node outside engines, a user that is not a name, and a caller that is not root, writing nothing', () => {
    const install = { node: '/usr/bin/node', cli: '/opt/x/dist/cli/clawling.js', config: '/etc/clawling/gateway.yaml', user: 'clawling' };
    const unitDir = path.join(dir, 'units');
    const old = installService(install, { unitDir, nodeVersion: 'v20.19.0', uid: 0 });
    assert.equal(!old.ok && old.code, 'NODE_OUTSIDE_ENGINES');
    assert.match(!old.ok ? old.message : '', /20\.19\.0/);
    const user = installService({ ...install, user: 'x\nExecStart=/bin/sh' }, { unitDir, nodeVersion: process.version, uid: 0 });
    assert.equal(!user.ok && user.code, 'BAD_USER');
    const notRoot = installService(install, { unitDir: SYSTEM_UNIT_DIR, nodeVersion: process.version, uid: 1000 });
    assert.equal(!notRoot.ok && notRoot.code, 'NOT_ROOT');
    const relative = installService({ ...install, config: 'gateway.yaml' }, { unitDir, nodeVersion: process.version, uid: 0 });
    assert.equal(!relative.ok && relative.code, 'RELATIVE_PATH');
    assert.equal(fs.existsSync(unitDir), false);
  });
});
