/**
 * scripts/build-inputs.js, which `npm start` trusts to skip tsc: its fingerprint of a package folder must change when
 * a compiled source is edited, added or deleted (even with an old mtime), and stay put for files no build reads.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../demo/node-red-launcher';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { fingerprint } = require(path.join(PACKAGE_ROOT, 'scripts', 'build-inputs.js')) as {
  fingerprint(root: string): { count: number; newestMs: number; newest: string };
};

describe('scripts/build-inputs.js fingerprint', () => {
  let root: string;
  const at = (rel: string): string => path.join(root, rel);
  const past = new Date(Date.now() - 3_600_000);

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-inputs-'));
    fs.writeFileSync(at('tsconfig.json'), JSON.stringify({ include: ['src', 'test'] }));
    fs.mkdirSync(at('src'));
    fs.mkdirSync(at('test/editor/screenshots'), { recursive: true });
    fs.writeFileSync(at('src/a.ts'), 'export const a = 1;\n');
    fs.writeFileSync(at('src/b.ts'), 'export const b = 2;\n');
    for (const rel of ['tsconfig.json', 'src/a.ts', 'src/b.ts', 'src', 'test/editor/screenshots', 'test/editor', 'test']) fs.utimesSync(at(rel), past, past);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('changes when a source is edited, and names it', () => {
    const before = fingerprint(root);
    fs.writeFileSync(at('src/a.ts'), 'export const a = 3;\n');
    const after = fingerprint(root);
    assert.ok(after.newestMs > before.newestMs);
    assert.equal(after.newest, path.join('src', 'a.ts'));
  });

  it('changes when a source is added or deleted, even when every mtime is old', () => {
    const before = fingerprint(root);
    fs.writeFileSync(at('src/c.ts'), '');
    fs.utimesSync(at('src/c.ts'), past, past);
    fs.utimesSync(at('src'), past, past);
    assert.equal(fingerprint(root).count, before.count + 1);
    fs.rmSync(at('src/c.ts'));
    fs.rmSync(at('src/b.ts'));
    fs.utimesSync(at('src'), past, past);
    assert.equal(fingerprint(root).count, before.count - 1);
  });

  it('changes when tsconfig.json does, and not for screenshots a test run writes', () => {
    const before = fingerprint(root);
    fs.writeFileSync(at('test/editor/screenshots/shot.png'), 'png');
    assert.deepEqual(fingerprint(root), before);
    fs.writeFileSync(at('tsconfig.json'), JSON.stringify({ include: ['src'] }));
    assert.notDeepEqual(fingerprint(root), before);
  });
});
