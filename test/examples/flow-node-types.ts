/**
 * Which file defines each node type an example may use: this package's nodes (package.json `node-red.nodes`) and
 * Node-RED's core nodes (every `registerType` in @node-red/nodes/core). Anything else in an example would make a
 * user install another package before the flow works, which the examples must not ask.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../demo/node-red-launcher';
import { declaredNodes } from '../editor/support/declared-nodes';
import { nodeRedPackage } from '../support/node-red-package';

/** Types the runtime knows without any node module. */
export const BUILT_IN_TYPES = ['tab', 'group', 'junction'];

export function ourNodeFiles(): Map<string, string> {
  return new Map(declaredNodes().map((n) => [n.type, path.join(PACKAGE_ROOT, n.file)]));
}

export function coreNodeFiles(): Map<string, string> {
  const core = path.join(nodeRedPackage().nodesDir, 'core');
  const files = new Map<string, string>();
  for (const dir of fs.readdirSync(core)) {
    const folder = path.join(core, dir);
    if (!fs.statSync(folder).isDirectory()) continue;
    for (const file of fs.readdirSync(folder).filter((f) => f.endsWith('.html'))) {
      const js = path.join(folder, file.replace(/\.html$/, '.js'));
      if (!fs.existsSync(js)) continue;
      for (const m of fs.readFileSync(path.join(folder, file), 'utf8').matchAll(/registerType\(\s*['"]([^'"]+)['"]/g)) files.set(m[1], js);
    }
  }
  return files;
}
