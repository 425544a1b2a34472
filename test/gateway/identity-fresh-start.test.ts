/**
 * Fresh starts under the shipped unit's Node flags: the first start creates the identity, and that must end. A first
 * start was once seen to hang for ever inside the Ed25519 key generation under `--single-threaded` (issue 22 §3,
 * timing-dependent), so this runs it many times as separate processes; a run that does not exit is a hang.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { shippedNodeFlags } from '../support/systemd-unit';

const RUNS = 16;
const AT_ONCE = 4;
// Far above a normal start (tens of milliseconds): only a process that is stuck gets here.
const STUCK_MS = 30_000;

function freshStart(stateDir: string): Promise<{ code: number | null; stuck: boolean; stderr: string }> {
  const identityModule = path.join(__dirname, '..', '..', 'gateway', 'identity.js');
  const script = `const id = require(${JSON.stringify(identityModule)}).loadOrCreateIdentity(${JSON.stringify(stateDir)}); process.stdout.write(id.address);`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...shippedNodeFlags(), '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), STUCK_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, stuck: signal === 'SIGKILL', stderr });
    });
  });
}

describe("gateway identity: fresh starts under the unit's Node flags", function () {
  this.timeout(RUNS * STUCK_MS);
  let root: string;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-fresh-'));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it(`creates the identity and exits, ${RUNS} times in a row`, async () => {
    const results = [];
    for (let i = 0; i < RUNS; i += AT_ONCE) {
      const batch = Array.from({ length: Math.min(AT_ONCE, RUNS - i) }, (_, j) => freshStart(path.join(root, `state-${i + j}`)));
      results.push(...(await Promise.all(batch)));
    }
    const stuck = results.filter((r) => r.stuck).length;
    assert.equal(stuck, 0, `${stuck} of ${RUNS} fresh starts never finished`);
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    for (let i = 0; i < RUNS; i++) assert.ok(fs.existsSync(path.join(root, `state-${i}`, 'identity.json')));
  });
});
