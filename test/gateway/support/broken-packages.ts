/**
 * Real copies of optional packages, broken the ways installs break: better-sqlite3 installed with
 * `--ignore-scripts` (its JavaScript and `bindings`, no native build), or with a native file that is not a loadable
 * addon for this Node.js. The failures are the packages' own: nothing here imitates an error message.
 */
import fs from 'node:fs';
import path from 'node:path';

const NODE_MODULES = path.resolve(__dirname, '..', '..', '..', '..', 'node_modules');

function copyPackage(name: string, into: string, parts?: string[]): string {
  const from = path.join(NODE_MODULES, name);
  const to = path.join(into, 'node_modules', name);
  fs.mkdirSync(to, { recursive: true });
  for (const part of parts ?? fs.readdirSync(from)) fs.cpSync(path.join(from, part), path.join(to, part), { recursive: true });
  return to;
}

/** better-sqlite3 as `npm install --ignore-scripts` leaves it; returns the package folder. */
export function sqliteWithoutBuild(root: string): string {
  const pkg = copyPackage('better-sqlite3', root, ['package.json', 'lib']);
  copyPackage('bindings', root);
  copyPackage('file-uri-to-path', root);
  return pkg;
}

/** better-sqlite3 whose `build/Release/better_sqlite3.node` is `bytes` (garbage, or a shared object that is no addon). */
export function sqliteWithNative(root: string, bytes: Buffer): string {
  const pkg = sqliteWithoutBuild(root);
  fs.mkdirSync(path.join(pkg, 'build', 'Release'), { recursive: true });
  fs.writeFileSync(path.join(pkg, 'build', 'Release', 'better_sqlite3.node'), bytes);
  return pkg;
}

/** A package whose `index.js` loads `native.node` with `bytes`, under `root/node_modules/<name>`. */
export function packageWithNative(root: string, name: string, bytes: Buffer, index = "module.exports = require('./native.node');\n"): string {
  const dir = path.join(root, 'node_modules', name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '0.0.0-test', main: 'index.js' }));
  fs.writeFileSync(path.join(dir, 'index.js'), index);
  fs.writeFileSync(path.join(dir, 'native.node'), bytes);
  return dir;
}
