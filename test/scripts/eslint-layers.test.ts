/**
 * The layer rule in eslint-layers.mjs: imports are resolved against the importing file, so a crossing is caught
 * whatever the depth, and `gateway/mesh-nodes/` is not mistaken for the Node-RED `nodes/`; and the rules below the
 * top folders (DEEP_RULES) each fire on a made-up file.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';
import { PACKAGE_ROOT } from '../../demo/node-red-launcher';

/** The project's config without its type-aware rules: they need a file the TypeScript project holds, these are made up. */
const UNTYPED = {
  languageOptions: { parserOptions: { projectService: false } },
  rules: {
    '@typescript-eslint/no-floating-promises': 'off',
    '@typescript-eslint/no-misused-promises': 'off',
    '@typescript-eslint/await-thenable': 'off',
    '@typescript-eslint/no-base-to-string': 'off',
  },
} as const;

async function crossings(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: PACKAGE_ROOT, overrideConfig: UNTYPED });
  const [result] = await eslint.lintText(code, { filePath: path.join(PACKAGE_ROOT, file) });
  return result.messages.filter((m) => m.ruleId === 'layers/imports').map((m) => m.message);
}

describe('lint: import layers', function () {
  this.timeout(60_000);

  it('refuses lib/ importing a face, at any depth', async () => {
    assert.deepEqual(await crossings('lib/mesh/x.ts', "import { Router } from '../../gateway/router';\nexport const r = Router;\n"), [
      'lib/ may not import gateway/ (allowed: lib)',
    ]);
    assert.equal((await crossings('lib/x.ts', "export { a } from '../nodes/shared/fail';\n")).length, 1);
  });

  it('keeps nodes/ and gateway/ apart, and tells gateway/mesh-nodes/ from nodes/', async () => {
    assert.equal((await crossings('nodes/x.ts', "import '../gateway/router';\n")).length, 1);
    assert.equal((await crossings('gateway/extensions/x/x.ts', "import '../../../nodes/shared/fail';\n")).length, 1);
    assert.deepEqual(await crossings('gateway/extensions/x/x.ts', "import { NodeRegistry } from '../../mesh-nodes/registry';\nexport const t = NodeRegistry;\n"), []);
  });

  it('keeps lib/mesh to itself and lib/ basics', async () => {
    assert.deepEqual(await crossings('lib/mesh/x.ts', "import { Store } from '../store/index';\nexport type S = Store;\n"), [
      'lib/mesh imports no other lib/ package: lib/mesh/x.ts may not import lib/store/index',
    ]);
    assert.equal((await crossings('lib/mesh/x.ts', "import '../hub/json';\n")).length, 1);
    assert.deepEqual(await crossings('lib/mesh/x.ts', "import '../coded-error';\nimport './message';\n"), []);
  });

  it('keeps each gateway extension out of the others', async () => {
    assert.deepEqual(await crossings('gateway/extensions/site/x.ts', "import '../home-assistant/ha-device';\n"), [
      'a gateway extension imports no other extension: gateway/extensions/site/x.ts may not import gateway/extensions/home-assistant/ha-device',
    ]);
    assert.deepEqual(await crossings('gateway/extensions/site/x.ts', "import './site';\nimport '../../mqtt/topics';\nimport '../../extension';\n"), []);
  });

  it('keeps radios away from extensions', async () => {
    assert.equal((await crossings('gateway/radios/ble/x.ts', "import '../../extensions/status/health';\n")).length, 1);
    assert.equal((await crossings('gateway/radios/x.ts', "import '../extension';\n")).length, 1);
    assert.deepEqual(await crossings('gateway/radios/x.ts', "import './radio';\nimport '../bus';\n"), []);
  });

  it('lets demo/ use the gateway but never cli/, and require() counts too', async () => {
    assert.deepEqual(await crossings('demo/x.ts', "import '../gateway/gateway';\n"), []);
    assert.equal((await crossings('demo/x.ts', "import '../cli/command';\n")).length, 1);
    assert.equal((await crossings('devhub/x.ts', "export const c = require('../cli/command');\n")).length, 1);
  });

  it('lets tests import anything', async () => {
    assert.deepEqual(await crossings('test/x.test.ts', "import '../cli/command';\nimport '../gateway/router';\n"), []);
  });
});
