/**
 * scripts/check-import-graph.mjs, which `npm run lint` runs: a circle between files, and an arrow back up between
 * folders, are each found in a made-up tree; a tree without either passes; and the project's own tree passes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../demo/node-red-launcher';

type Check = (root: string, folders?: string[]) => string[];

async function loadCheck(): Promise<Check> {
  // An ES module script: loaded with a real dynamic import, which tsc's CommonJS output would turn into require().
  const load = new Function('specifier', 'return import(specifier)') as (s: string) => Promise<{ importGraphProblems: Check }>;
  return (await load(path.join(PACKAGE_ROOT, 'scripts/check-import-graph.mjs'))).importGraphProblems;
}

function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'import-graph-'));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

describe('lint: import graph', function () {
  this.timeout(60_000);
  let check: Check;
  before(async () => {
    check = await loadCheck();
  });

  it('finds a circle between files, type-only imports included', () => {
    const root = tree({
      'lib/a.ts': "import { b } from './b';\nexport const a = b;\n",
      'lib/b.ts': "import type { C } from './c';\nexport const b: C = 1;\n",
      'lib/c.ts': "import { a } from './a';\nexport type C = typeof a;\n",
    });
    const problems = check(root, ['lib']);
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /^import circle: lib\/a\.ts → lib\/b\.ts → lib\/c\.ts$/);
  });

  it('finds an arrow back up between folders that no file circle shows', () => {
    const root = tree({
      'gateway/extension.ts': "import type { Conn } from './mqtt/connection';\nexport type Ext = Conn;\n",
      'gateway/mqtt/connection.ts': 'export type Conn = number;\n',
      'gateway/mqtt/send.ts': "import type { Ext } from '../extension';\nexport type Send = Ext;\n",
    });
    const problems = check(root, ['gateway']);
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /^folder circle: gateway\/extension\.ts ⇄ gateway\/mqtt\/ /);
    assert.match(problems[0]!, /gateway\/mqtt\/send\.ts → gateway\/extension\.ts/);
  });

  it('lets a folder use what sits above it when nothing there comes back', () => {
    const root = tree({
      'gateway/gateway.ts': "import './extensions/a';\nimport './mqtt/connection';\n",
      'gateway/extensions/a/index.ts': "import '../../mqtt/connection';\nimport '../../errors';\n",
      'gateway/mqtt/connection.ts': "import '../errors';\n",
      'gateway/errors.ts': 'export {};\n',
    });
    assert.deepEqual(check(root, ['gateway']), []);
  });

  it('passes on the project itself', () => {
    assert.deepEqual(check(PACKAGE_ROOT), []);
  });
});
