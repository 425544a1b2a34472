/**
 * The gateway route of docs/install.md: the packed tarball installed globally with --omit=dev into an empty prefix,
 * with the machine's npm (11, run by the Node first on PATH: 24 in CI) and with npm 12 (Node 24), each with the
 * documented `--allow-scripts` list. Every `exports` entry must load, `clawling --help` and `--check` must work, and
 * the gateway must start with its sqlite store. npm 12 is also run once without the list: the store needs no
 * script (node:sqlite), so that gateway starts too, and keeps starting when the machine's Node moves from 24 to 26.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { installEnv, NATIVE_PACKAGES, PACKAGE_NAME, type InstallEnv } from './install-env';
import { checkCli, startAndProbe, writeGatewayConfig } from './installed-gateway';
import { nativeStatus, readManifest, requireAll, specifiers } from './installed-package';
import { run, scriptWarnings, seconds, toolchainEnv } from './run';

interface Toolchain {
  label: string;
  /** undefined: the machine's node and npm, as found on PATH. */
  nodeBin: string | undefined;
  npm: string;
}

function which(command: string): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, command))) return dir;
  }
  throw new Error(`${command} is not on PATH`);
}

describe('install route: the tarball installed globally for the gateway', function () {
  this.timeout(30 * 60_000);
  let env: InstallEnv;
  before(() => {
    env = installEnv();
  });
  after(() => fs.rmSync(env.workDir, { recursive: true, force: true }));

  const chains = (): Toolchain[] => [
    { label: "the machine's npm", nodeBin: undefined, npm: env.machineNpm },
    { label: 'npm 12 on Node 24', nodeBin: env.node24Bin, npm: path.join(env.npm12Bin, 'npm') },
  ];

  for (const index of [0, 1]) {
    describe(index === 0 ? "with the machine's npm (the Node first on PATH)" : 'with npm 12 (Node 24)', () => {
      let chain: Toolchain;
      let prefix: string;
      let packageDir: string;
      let nodeBin: string;
      let cmdEnv: NodeJS.ProcessEnv;

      before(async () => {
        chain = chains()[index];
        prefix = path.join(env.workDir, `prefix-${index}`);
        fs.mkdirSync(prefix);
        cmdEnv = toolchainEnv(chain.nodeBin);
        nodeBin = chain.nodeBin ?? which('node');
        const npmVersion = (await run(chain.npm, ['--version'], { env: cmdEnv })).stdout.trim();
        const install = await run(
          chain.npm,
          ['install', '-g', '--prefix', prefix, '--omit=dev', '--no-audit', '--no-fund', `--allow-scripts=${NATIVE_PACKAGES.join(',')}`, env.tarball],
          { env: cmdEnv },
        );
        console.log(`      npm ${npmVersion} install -g (native builds included): ${seconds(install.ms)}`);
        packageDir = path.join(prefix, 'lib', 'node_modules', PACKAGE_NAME);
        const blocked = scriptWarnings(install.stderr).filter((name) => (NATIVE_PACKAGES as readonly string[]).includes(name));
        assert.deepEqual(blocked, [], `npm still reports install scripts it did not run:\n${install.stderr}`);
      });

      it('installs no development dependency', () => {
        const installed = fs.readdirSync(path.join(packageDir, 'node_modules'));
        for (const dev of ['node-red', 'typescript', 'mocha', 'aedes', 'eslint']) assert.ok(!installed.includes(dev), `${dev} was installed`);
      });

      it('loads every exports entry from the install', async () => {
        const specs = specifiers(readManifest(packageDir));
        assert.ok(specs.length >= 8, `only ${specs.length} exports entries`);
        const loaded = await requireAll(nodeBin, path.join(prefix, 'lib'), specs, cmdEnv);
        for (const spec of specs) assert.ok(loaded[spec] > 0, `${spec} exports nothing`);
      });

      it('builds or loads every native dependency', async () => {
        const status = await nativeStatus(nodeBin, packageDir, NATIVE_PACKAGES, cmdEnv);
        assert.deepEqual(status, Object.fromEntries(NATIVE_PACKAGES.map((n) => [n, 'ok'])));
      });

      it('runs clawling --help and clawling gateway --check', async () => {
        const dir = path.join(env.workDir, `gateway-check-${index}`);
        await checkCli(path.join(prefix, 'bin', 'clawling'), writeGatewayConfig(dir), cmdEnv);
      });

      it('starts clawling gateway with its sqlite outbox and answers /health', async () => {
        const dir = path.join(env.workDir, `gateway-run-${index}`);
        const { health, log } = await startAndProbe(path.join(prefix, 'bin', 'clawling'), writeGatewayConfig(dir), cmdEnv);
        assert.equal(health.status, 'ok');
        assert.deepEqual(
          health.radios.map((r) => [r.id, r.state]),
          [['sim0', 'ready']],
        );
        assert.ok(fs.existsSync(path.join(dir, 'state', 'gateway.db')), 'no gateway.db in the state folder');
        assert.ok(!log.some((l) => l.includes('outbox lives in memory')), log.join('\n'));
      });
    });
  }

  describe('with npm 12 and no approvals: nothing is compiled, the store still works', () => {
    let prefix: string;
    let packageDir: string;
    let configFile: string;

    before(async () => {
      prefix = path.join(env.workDir, 'prefix-blocked');
      fs.mkdirSync(prefix);
      const install = await run(path.join(env.npm12Bin, 'npm'), ['install', '-g', '--prefix', prefix, '--omit=dev', env.tarball], { env: toolchainEnv(env.node24Bin) });
      console.log(`      npm 12 install -g, scripts blocked: ${seconds(install.ms)}`);
      const blocked = scriptWarnings(install.stderr);
      // The premise: npm 12 ran none of the native packages' scripts, so nothing was built on this machine.
      for (const name of NATIVE_PACKAGES) assert.ok(blocked.includes(name), `${name} not in npm's blocked list:\n${install.stderr}`);
      packageDir = path.join(prefix, 'lib', 'node_modules', PACKAGE_NAME);
      configFile = writeGatewayConfig(path.join(env.workDir, 'gateway-blocked'));
    });

    it('starts clawling gateway on Node 24 with its sqlite outbox (node:sqlite needs no install script)', async () => {
      const { health, log } = await startAndProbe(path.join(prefix, 'bin', 'clawling'), configFile, toolchainEnv(env.node24Bin));
      assert.equal(health.status, 'ok');
      assert.ok(fs.existsSync(path.join(path.dirname(configFile), 'state', 'gateway.db')), 'no gateway.db in the state folder');
      assert.ok(!log.some((l) => l.includes('outbox lives in memory')), log.join('\n'));
    });

    it("loads serialport's binding from its prebuilt file (serial radios work without approval)", async () => {
      const status = await nativeStatus(env.node24Bin, packageDir, ['@serialport/bindings-cpp'], toolchainEnv(env.node24Bin));
      assert.deepEqual(status, { '@serialport/bindings-cpp': 'ok' });
    });

    it('keeps working when the machine moves to Node 26: the same install starts and reopens the store Node 24 wrote', async () => {
      const node26 = toolchainEnv(env.node26Bin);
      const version = (await run(path.join(env.node26Bin, 'node'), ['--version'], { env: node26 })).stdout.trim();
      assert.match(version, /^v26\./);
      const db = path.join(path.dirname(configFile), 'state', 'gateway.db');
      assert.ok(fs.existsSync(db), 'the Node 24 start left no gateway.db to reopen');
      const { health, log } = await startAndProbe(path.join(prefix, 'bin', 'clawling'), configFile, node26);
      assert.equal(health.status, 'ok');
      assert.ok(!log.some((l) => l.includes('outbox lives in memory')), log.join('\n'));
      assert.deepEqual(await nativeStatus(env.node26Bin, packageDir, ['@serialport/bindings-cpp'], node26), { '@serialport/bindings-cpp': 'ok' });
    });
  });
});
