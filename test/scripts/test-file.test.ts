/**
 * `npm run test:file -- <path>` (scripts/test-file.js): one test file runs from its source path, alone, without
 * mocha's project config pulling in every suite.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../demo/node-red-launcher';

interface MochaJson {
  stats: { tests: number; failures: number };
  tests: { file: string }[];
}

function runTestFile(...args: string[]): { status: number | null; report: MochaJson | undefined; stderr: string } {
  const run = spawnSync(process.execPath, [path.join(PACKAGE_ROOT, 'scripts', 'test-file.js'), ...args], { cwd: PACKAGE_ROOT, encoding: 'utf8', timeout: 120_000 });
  // build-if-stale prints one line before mocha's JSON.
  const json = run.stdout.slice(run.stdout.indexOf('{'));
  let report: MochaJson | undefined;
  try {
    report = JSON.parse(json) as MochaJson;
  } catch {
    report = undefined;
  }
  return { status: run.status, report, stderr: run.stderr };
}

describe('npm run test:file', function () {
  this.timeout(180_000);

  it('runs only the named source file, through its compiled output', () => {
    const { status, report, stderr } = runTestFile('test/lib/backoff.test.ts', '--reporter', 'json');
    assert.equal(status, 0, stderr);
    assert.ok(report, 'mocha printed its JSON report');
    assert.ok(report.stats.tests > 0);
    assert.equal(report.stats.failures, 0);
    const files = new Set(report.tests.map((t) => path.relative(PACKAGE_ROOT, t.file)));
    assert.deepEqual([...files], [path.join('dist', 'test', 'lib', 'backoff.test.js')]);
  });

  it('takes a folder as every test file under it, and passes mocha flags on', () => {
    const { status, report, stderr } = runTestFile('test/scripts', '--reporter', 'json', '--grep', 'fingerprint');
    assert.equal(status, 0, stderr);
    assert.ok(report && report.stats.tests > 0);
    for (const t of report.tests) assert.equal(path.relative(PACKAGE_ROOT, t.file), path.join('dist', 'test', 'scripts', 'build-inputs.test.js'));
  });

  it('refuses to run without a path', () => {
    const { status, stderr } = runTestFile('--grep', 'x');
    assert.equal(status, 2);
    assert.match(stderr, /usage: npm run test:file/);
  });
});
