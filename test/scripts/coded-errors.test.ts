/**
 * `lib/` throws only its own coded errors (CONTRIBUTING.md): a caller branches on `code`, never on message text. A
 * plain `Error`, `TypeError` or `RangeError` thrown from a file of lib/ fails this test with the file and line.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../demo/node-red-launcher';

function sources(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

describe('lib/ throws coded errors only', () => {
  it('has no throw of a plain Error, TypeError or RangeError', () => {
    const found: string[] = [];
    for (const file of sources(path.join(PACKAGE_ROOT, 'lib'))) {
      fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        if (/\bthrow new (Error|TypeError|RangeError)\(/.test(line)) found.push(`${path.relative(PACKAGE_ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    assert.deepEqual(found, []);
  });
});
