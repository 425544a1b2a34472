import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const BIN = path.join(__dirname, '..', '..', 'cli', 'clawling.js');

describe('clawling', () => {
  it('lists its commands with --help and exits 0', () => {
    const run = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
    assert.equal(run.status, 0);
    assert.match(run.stdout, /usage: clawling <command>/);
  });

  it('refuses an unknown command with exit code 2 on stderr', () => {
    const run = spawnSync(process.execPath, [BIN, 'frobnicate'], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /unknown command 'frobnicate'/);
  });
});
