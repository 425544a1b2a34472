/**
 * Optional native packages broken the ways installs break: a native file that is not a loadable addon for this
 * Node.js. The failures are Node.js's own: nothing here imitates an error message.
 */
import fs from 'node:fs';
import path from 'node:path';

/** A package whose `index.js` loads `native.node` with `bytes`, under `root/node_modules/<name>`. */
export function packageWithNative(root: string, name: string, bytes: Buffer, index = "module.exports = require('./native.node');\n"): string {
  const dir = path.join(root, 'node_modules', name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '0.0.0-test', main: 'index.js' }));
  fs.writeFileSync(path.join(dir, 'index.js'), index);
  fs.writeFileSync(path.join(dir, 'native.node'), bytes);
  return dir;
}
