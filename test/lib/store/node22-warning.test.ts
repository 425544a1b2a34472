/**
 * On Node 22 the first load of `node:sqlite` prints "ExperimentalWarning: SQLite is an experimental feature"; the
 * store keeps that one warning from users (lib/store/sqlite-driver.ts) and no other. Run on a real Node 22 from the
 * CI toolchain (`.ci/toolchain node 22`, cached once from the npm registry) and on the Node running the tests.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..', '..');
const STORE_INDEX = path.join(__dirname, '..', '..', '..', 'lib', 'store', 'index.js');

function node22(): string {
  const bin = execFileSync('bash', [path.join(ROOT, '.ci', 'toolchain'), 'node', '22'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  return path.join(bin, 'node');
}

/** Opens a file store in a child `node`, then emits two warnings of its own; returns the child's stdout and stderr. */
function openInChild(nodeBin: string, dir: string): { status: number | null; stdout: string; stderr: string } {
  const script = `
    const { openStore } = require(${JSON.stringify(STORE_INDEX)});
    const store = openStore(${JSON.stringify(path.join(dir, 'a.db'))});
    store.kv.set('k', 'v'); console.log('stored ' + store.kv.get('k') + ' on ' + process.version); store.close();
    process.emitWarning('a feature of ours is experimental', 'ExperimentalWarning');
    process.emitWarning('something else went odd');
  `;
  const run = spawnSync(nodeBin, ['-e', script], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('node:sqlite warning', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-warning-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const [label, bin] of [
    ['Node 22', node22],
    ['this Node', () => process.execPath],
  ] as const) {
    it(`on ${label}: opening a file store prints no SQLite warning, while other warnings still print`, function () {
      this.timeout(120_000); // the first call may fetch Node 22 into the toolchain cache
      const nodeBin = bin();
      const out = openInChild(nodeBin, dir);
      assert.equal(out.status, 0, out.stderr);
      assert.match(out.stdout, /^stored v on v\d+/m);
      if (label === 'Node 22') assert.match(out.stdout, / on v22\./);
      assert.doesNotMatch(out.stderr, /SQLite/i);
      assert.match(out.stderr, /ExperimentalWarning: a feature of ours is experimental/);
      assert.match(out.stderr, /Warning: something else went odd/);
    });
  }

  it('on Node 22 the warning is there without the store (so the test above proves the filter, not its absence)', function () {
    this.timeout(120_000);
    const run = spawnSync(node22(), ['-e', "require('node:sqlite')"], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /ExperimentalWarning: SQLite is an experimental feature/);
  });
});
