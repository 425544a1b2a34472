/**
 * A stray `.only` or a skipped test must fail a run, not quietly shrink it: every way the suites are run carries
 * mocha's forbid-only and forbid-pending, and mocha does fail a file that has either.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../demo/node-red-launcher';

describe('mocha: no .only, no skipped test', () => {
  it('is forbidden by the project config and by each script that runs mocha without it', () => {
    const config = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, '.mocharc.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(config['forbid-only'], true);
    assert.equal(config['forbid-pending'], true);
    const scripts = (JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const [name, line] of Object.entries(scripts)) {
      if (!line.includes('mocha --no-config')) continue;
      assert.match(line, /--forbid-only --forbid-pending/, `npm run ${name}`);
    }
  });

  it('fails a run that has an .only or a skipped test', function () {
    this.timeout(30_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mocha-forbid-'));
    try {
      const mocha = path.join(PACKAGE_ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
      for (const body of ["it.only('focused', () => undefined); it('other', () => undefined);", "it('kept', () => undefined); it.skip('skipped', () => undefined);"]) {
        const file = path.join(dir, 'x.test.js');
        fs.writeFileSync(file, body);
        const r = spawnSync(process.execPath, [mocha, '--no-config', '--forbid-only', '--forbid-pending', file], { encoding: 'utf8' });
        assert.notEqual(r.status, 0, `${body}\n${r.stdout}${r.stderr}`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
