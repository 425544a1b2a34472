/**
 * The Node-RED routes of docs/install.md, on Node-RED 5 and Node 24, each in a fresh user dir:
 * - the Palette Manager's upload (POST /nodes with the tarball; Node-RED installs it with the npm it bundles);
 * - `npm install <tarball>` in the user dir with npm 12, then the documented `npm approve-scripts` and `npm rebuild`.
 * Each must end with all seven node types loaded without an error (GET /nodes), and the second also runs an example
 * flow: inject → mesh-encode → mesh-decode, read back from the debug sidebar's WebSocket.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { installEnv, NATIVE_PACKAGES, PACKAGE_NAME, type InstallEnv } from './install-env';
import { nativeStatus, readManifest, storeStatus } from './installed-package';
import { DebugTap, deployFlows, nodeSets, pressInject, startNodeRed, uploadTarball, type NodeRed } from './node-red-5';
import { run, scriptWarnings, seconds, toolchainEnv } from './run';

const EXAMPLE = 'mesh-encode-decode.json';
const DOOR_OPENED_INJECT = '3e5a000000000003';
const ENCODED_DEBUG = '3e5a000000000005';
const DECODED_DEBUG = '3e5a000000000007';

function assertAllTypesLoaded(sets: Awaited<ReturnType<typeof nodeSets>>, declared: string[]): void {
  const ours = sets.filter((s) => s.module === PACKAGE_NAME);
  assert.ok(ours.length > 0, `Node-RED lists no node set of ${PACKAGE_NAME}`);
  for (const set of ours) {
    // GET /nodes carries `err` for a set that failed to load and nothing else about loading.
    assert.equal(set.err, undefined, `${set.id}: ${set.err}`);
    assert.equal(set.enabled, true, `${set.id} is not enabled`);
  }
  assert.deepEqual(ours.flatMap((s) => s.types).sort(), [...declared].sort());
}

describe('install route: the nodes in a Node-RED 5 user dir', function () {
  this.timeout(30 * 60_000);
  let env: InstallEnv;
  let cmdEnv: NodeJS.ProcessEnv;
  let declared: string[];
  const running: NodeRed[] = [];

  before(async () => {
    env = installEnv();
    cmdEnv = toolchainEnv(env.node24Bin);
    const unpacked = path.join(env.workDir, 'unpacked');
    fs.mkdirSync(unpacked);
    await run('tar', ['-xzf', env.tarball, '-C', unpacked]);
    declared = Object.keys(readManifest(path.join(unpacked, 'package'))['node-red'].nodes);
    assert.equal(declared.length, 7);
  });
  afterEach(async () => {
    for (const nr of running.splice(0)) await nr.stop();
  });
  after(() => fs.rmSync(env.workDir, { recursive: true, force: true }));

  it("Palette Manager upload: Node-RED installs the tarball with its own npm and loads all seven types", async () => {
    const userDir = path.join(env.workDir, 'upload');
    const nr = await startNodeRed(env.nodeRedDir, env.node24Bin, userDir, cmdEnv);
    running.push(nr);
    const started = Date.now();
    await uploadTarball(nr.url, env.tarball);
    console.log(`      upload and install through Node-RED (native builds included): ${seconds(Date.now() - started)}`);
    assertAllTypesLoaded(await nodeSets(nr.url), declared);
    const saved = JSON.parse(fs.readFileSync(path.join(userDir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    assert.match(saved.dependencies[PACKAGE_NAME], /nodes[/\\]clawling-node-red-mesh-.*\.tgz$/);
    const status = await nativeStatus(env.node24Bin, path.join(userDir, 'node_modules', PACKAGE_NAME), NATIVE_PACKAGES, cmdEnv);
    assert.deepEqual(status, Object.fromEntries(NATIVE_PACKAGES.map((n) => [n, 'ok'])));
    assert.equal(await storeStatus(env.node24Bin, userDir, path.join(env.workDir, 'upload-state.db'), cmdEnv), 'ok');
  });

  it('npm 12 in the user dir: approve-scripts and rebuild, then all seven types load and an example runs', async () => {
    const userDir = path.join(env.workDir, 'npm12');
    fs.mkdirSync(userDir);
    // What Node-RED writes on its first start; the docs' commands run in an existing ~/.node-red.
    fs.writeFileSync(path.join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-project', description: 'A Node-RED Project', version: '0.0.1', private: true }, null, 2));
    const npm = path.join(env.npm12Bin, 'npm');

    // As docs/install.md does it: the tarball kept in nodes/, where the Palette Manager keeps uploads too.
    fs.mkdirSync(path.join(userDir, 'nodes'));
    const local = path.join('nodes', path.basename(env.tarball));
    fs.copyFileSync(env.tarball, path.join(userDir, local));
    const install = await run(npm, ['install', '--omit=dev', `./${local}`], { cwd: userDir, env: cmdEnv });
    console.log(`      npm 12 install in the user dir, scripts blocked: ${seconds(install.ms)}`);
    const blocked = scriptWarnings(install.stderr);
    for (const name of NATIVE_PACKAGES) assert.ok(blocked.includes(name), `${name} not in npm's blocked list:\n${install.stderr}`);
    const packageDir = path.join(userDir, 'node_modules', PACKAGE_NAME);
    // Nothing approved yet, nothing built: the store (a hub-config node's state) already works, on node:sqlite.
    assert.equal(await storeStatus(env.node24Bin, userDir, path.join(env.workDir, 'npm12-state.db'), cmdEnv), 'ok');

    await run(npm, ['approve-scripts', ...NATIVE_PACKAGES], { cwd: userDir, env: cmdEnv });
    const allow = (JSON.parse(fs.readFileSync(path.join(userDir, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
    for (const name of NATIVE_PACKAGES) assert.ok(Object.keys(allow).some((k) => k === name || k.startsWith(`${name}@`)), `allowScripts lacks ${name}`);
    const rebuild = await run(npm, ['rebuild'], { cwd: userDir, env: cmdEnv });
    console.log(`      npm 12 rebuild after approve-scripts: ${seconds(rebuild.ms)}`);
    assert.deepEqual(await nativeStatus(env.node24Bin, packageDir, NATIVE_PACKAGES, cmdEnv), Object.fromEntries(NATIVE_PACKAGES.map((n) => [n, 'ok'])));

    const nr = await startNodeRed(env.nodeRedDir, env.node24Bin, userDir, cmdEnv);
    running.push(nr);
    assertAllTypesLoaded(await nodeSets(nr.url), declared);

    const flows = JSON.parse(fs.readFileSync(path.join(packageDir, 'examples', EXAMPLE), 'utf8')) as unknown[];
    const tap = await DebugTap.open(nr.url);
    try {
      await deployFlows(nr.url, flows);
      await pressInject(nr.url, DOOR_OPENED_INJECT);
      const decoded = await tap.next(DECODED_DEBUG);
      assert.match(decoded.msg, /Front door opened/);
      const encoded = await tap.next(ENCODED_DEBUG);
      assert.ok(encoded.msg.length > 0);
    } finally {
      tap.close();
    }
  });
});
