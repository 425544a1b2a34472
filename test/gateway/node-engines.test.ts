/**
 * The Node.js check `clawling gateway` makes before it loads anything (gateway/node-engines.ts), against the
 * engines range of the real package.json: the versions around its bound, the Node this suite runs on (every CI
 * leg must be inside the range it tests), and ranges the check cannot read.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { checkEngines, packageEnginesNode, parseRange, parseVersion } from '../../gateway/node-engines';

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { engines: { node: string } };
const ENGINES = manifest.engines.node;

describe('gateway: Node.js against engines.node', () => {
  it('reads the range from the package.json the gateway ships with', () => {
    assert.equal(packageEnginesNode(), ENGINES);
    assert.ok(parseRange(ENGINES), `engines.node "${ENGINES}" is a range the check cannot read`);
  });

  it('refuses the Nodes below the range, naming the version, the node binary and the range', () => {
    const bound = parseVersion(ENGINES.replace(/^>=/, ''))!;
    const below = [`v${bound[0] - 2}.20.2`, `v${bound[0]}.${bound[1] - 1}.9`, 'v18.0.0'];
    for (const version of below) {
      const verdict = checkEngines(version, ENGINES, '/usr/bin/node');
      assert.equal(verdict.ok, false, version);
      if (verdict.ok) continue;
      assert.equal(verdict.code, 'NODE_OUTSIDE_ENGINES', version);
      assert.ok(verdict.message.includes(`Node.js ${version} (/usr/bin/node)`), verdict.message);
      assert.ok(verdict.message.includes(`needs Node.js ${ENGINES}`), verdict.message);
    }
  });

  it('admits the minimum itself, its patch releases and the later majors CI runs (24, 26)', () => {
    const bound = parseVersion(ENGINES.replace(/^>=/, ''))!;
    for (const version of [`v${bound.join('.')}`, `v${bound[0]}.${bound[1]}.1`, 'v24.22.3', 'v26.12.1']) {
      assert.deepEqual(checkEngines(version, ENGINES), { ok: true, version, range: ENGINES });
    }
  });

  it('admits the Node this suite runs on (each CI leg runs inside engines)', () => {
    assert.equal(checkEngines(process.version, ENGINES).ok, true, `${process.version} is outside ${ENGINES}`);
  });

  it('reads upper bounds and alternatives as npm does', () => {
    assert.equal(checkEngines('v26.0.0', '>=22.13 <26').ok, false);
    assert.equal(checkEngines('v25.9.9', '>=22.13 <26').ok, true);
    assert.equal(checkEngines('v21.0.0', '>=22.13 || =21.0.0').ok, true);
    assert.equal(checkEngines('v21.0.1', '>=22.13 || =21.0.0').ok, false);
    assert.equal(checkEngines('v22.13.0', '>22.13').ok, false);
  });

  it('reports a range it cannot read as such instead of guessing', () => {
    for (const range of ['^22.13.0', '22', '22.x', 'latest', '', undefined]) {
      const verdict = checkEngines('v24.22.3', range);
      assert.equal(verdict.ok, false, String(range));
      if (!verdict.ok) assert.equal(verdict.code, 'ENGINES_UNREADABLE', String(range));
    }
    const verdict = checkEngines('not a version', '>=22.13');
    assert.equal(!verdict.ok && verdict.code, 'ENGINES_UNREADABLE');
  });
});
