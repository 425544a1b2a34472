/**
 * The shell blocks of README.md's "Group metadata" and "Media upload" sections, run by bash exactly as written (with
 * `npx clawling` meaning this build's CLI): the dict block is pure CLI; the media block runs against a dev hub started
 * here with the demo's accounts, its address put in place of the demo's default one because tests listen on port 0.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startDevHub, type DevHub } from '../../devhub';
import { PACKAGE_ROOT } from '../../demo/node-red-launcher';
import { DEFAULT_PORTS, DEMO, devHubOptions } from '../../demo/settings';

const BIN = path.join(__dirname, '..', '..', 'cli', 'clawling.js');
const README = fs.readFileSync(path.join(PACKAGE_ROOT, 'README.md'), 'utf8');

/** The first ```sh block under the `## ` heading that starts with `heading`, its list indentation removed. */
function shellBlock(heading: string): string {
  const start = README.indexOf(`\n## ${heading}`);
  assert.ok(start >= 0, `README has no section '${heading}'`);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end < 0 ? undefined : end);
  const m = /\n( *)```sh\n([\s\S]*?)\n *```/.exec(section);
  assert.ok(m, `README section '${heading}' has no sh block`);
  return m[2]
    .split('\n')
    .map((l) => (l.startsWith(m[1]) ? l.slice(m[1].length) : l))
    .join('\n');
}

/** Runs without blocking: the dev hub the media block talks to lives in this process. */
function bash(script: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  // A shell function, so that the block's own text is what runs.
  const shim = `npx() { if [ "$1" = clawling ]; then shift; "${process.execPath}" "${BIN}" "$@"; else echo "unexpected npx $*" >&2; return 127; fi; }\n`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', shim + script], { cwd: PACKAGE_ROOT, env: { PATH: process.env.PATH ?? '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('README.md command blocks, run as written', function () {
  this.timeout(30_000);

  it('Group metadata: create, write and apply rename the group, and the printed answer is the one shown', async () => {
    const block = shellBlock('Group metadata');
    const shown = /^# (\{.*\})$/m.exec(block)?.[1];
    assert.ok(shown, 'the block shows the answer it prints');
    const run = await bash(block);
    assert.equal(run.status, 0, run.stderr);
    const answer = JSON.parse(run.stdout.trim()) as { ok: boolean; dictionary: string; changes: unknown };
    const expected = JSON.parse(shown.replace('"…"', '""')) as { changes: unknown };
    assert.equal(answer.ok, true);
    assert.match(answer.dictionary, /^[0-9a-f]+$/);
    assert.deepEqual(answer.changes, expected.changes);
  });

  describe('Media upload, against a dev hub with the demo accounts', () => {
    let hub: DevHub;
    before(async () => {
      hub = await startDevHub(devHubOptions(0));
    });
    after(async () => {
      await hub?.stop();
    });

    it('uploads the file it names with the token it names, and the answer has the shape shown', async () => {
      const block = shellBlock('Media upload');
      const demoMedia = `http://127.0.0.1:${DEFAULT_PORTS.hub}`;
      assert.ok(block.includes(`--url ${demoMedia} `), 'the block names the demo media URL');
      assert.ok(block.includes(DEMO.youToken), "the block names the demo's token for usr_you");
      const run = await bash(block.split(demoMedia).join(hub.mediaUrl));
      assert.equal(run.status, 0, run.stderr);
      const fragment = JSON.parse(run.stdout.trim()) as Record<string, unknown>;
      const shown = JSON.parse(/^# (\{.*\})$/m.exec(block)![1]) as Record<string, unknown>;
      assert.deepEqual(Object.keys(fragment).sort(), Object.keys(shown).sort());
      assert.equal(fragment.name, shown.name);
      assert.equal(fragment.size, shown.size);
      const stored = await fetch(String(fragment.url));
      assert.equal(stored.status, 200);
      assert.deepEqual(Buffer.from(await stored.arrayBuffer()), fs.readFileSync(path.join(PACKAGE_ROOT, 'icons', String(fragment.name))));
    });
  });
});
