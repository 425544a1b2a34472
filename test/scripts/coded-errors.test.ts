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

describe('one Clock for every timer in lib/ and gateway/', () => {
  it('arms no raw setTimeout or setInterval outside lib/clock.ts (and the run loop keep-alive)', () => {
    const found: string[] = [];
    for (const top of ['lib', 'gateway']) {
      for (const file of sources(path.join(PACKAGE_ROOT, top))) {
        const rel = path.relative(PACKAGE_ROOT, file).split(path.sep).join('/');
        if (rel === 'lib/clock.ts') continue;
        fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
          if (!/(^|[^.\w])(setTimeout|setInterval|clearTimeout|clearInterval)\(/.test(line)) return;
          if (rel === 'gateway/main.ts' && /keepAlive/.test(line)) return;
          found.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    assert.deepEqual(found, []);
  });
});
