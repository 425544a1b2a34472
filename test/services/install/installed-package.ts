/**
 * Looks at the package as installed, not at the checkout: the `exports` it declares, and whether each entry and each
 * native dependency loads in the Node.js that will run it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_NAME } from './install-env';
import { run } from './run';

export interface InstalledManifest {
  version: string;
  exports: Record<string, unknown>;
  'node-red': { nodes: Record<string, string> };
}

export function readManifest(packageDir: string): InstalledManifest {
  return JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as InstalledManifest;
}

/** `@clawling/node-red-mesh/mesh` for `./mesh`. */
export function specifiers(manifest: InstalledManifest): string[] {
  return Object.keys(manifest.exports).map((sub) => (sub === '.' ? PACKAGE_NAME : `${PACKAGE_NAME}${sub.slice(1)}`));
}

/**
 * Requires each specifier in a child `node` resolving from `fromDir` (a folder whose node_modules holds the
 * package), the way a user's script there would. Returns specifier → number of exported names.
 */
export async function requireAll(nodeBin: string, fromDir: string, specs: string[], env: NodeJS.ProcessEnv): Promise<Record<string, number>> {
  const script = `
    const { createRequire } = require('node:module');
    const req = createRequire(require('node:path').join(${JSON.stringify(fromDir)}, 'noop.js'));
    const out = {};
    for (const spec of ${JSON.stringify(specs)}) out[spec] = Object.keys(req(spec)).length;
    // noble opens its HCI binding on require and would keep the process alive.
    process.stdout.write(JSON.stringify(out));
    process.exit(0);`;
  const result = await run(path.join(nodeBin, 'node'), ['-e', script], { env, cwd: fromDir });
  return JSON.parse(result.stdout) as Record<string, number>;
}

/**
 * Which native dependencies actually work: each loads, and serialport's binding is picked for this platform (loading
 * the package alone succeeds without it). Returns name → "ok" or the first line of the error.
 */
export async function nativeStatus(nodeBin: string, packageDir: string, names: readonly string[], env: NodeJS.ProcessEnv): Promise<Record<string, string>> {
  const script = `
    const req = require('node:module').createRequire(require('node:path').join(${JSON.stringify(packageDir)}, 'package.json'));
    const out = {};
    for (const name of ${JSON.stringify(names)}) {
      try {
        const mod = req(name);
        if (name === '@serialport/bindings-cpp') mod.autoDetect();
        out[name] = 'ok';
      } catch (err) { out[name] = String(err.message).split('\\n')[0]; }
    }
    // noble opens its HCI binding on require and would keep the process alive.
    process.stdout.write(JSON.stringify(out));
    process.exit(0);`;
  const result = await run(path.join(nodeBin, 'node'), ['-e', script], { env, cwd: packageDir });
  return JSON.parse(result.stdout) as Record<string, string>;
}

/**
 * Opens a file store through the installed package's `./store` entry with `nodeBin` (what a hub-config node's state
 * folder and the gateway's outbox do), writes a value, closes, reopens and reads it back. "ok" or the error's code
 * and message: the store is on node:sqlite, so it must work whatever npm did with install scripts.
 */
export async function storeStatus(nodeBin: string, fromDir: string, file: string, env: NodeJS.ProcessEnv): Promise<string> {
  const script = `
    const req = require('node:module').createRequire(require('node:path').join(${JSON.stringify(fromDir)}, 'noop.js'));
    const { openStore } = req(${JSON.stringify(`${PACKAGE_NAME}/store`)});
    try {
      const a = openStore(${JSON.stringify(file)});
      a.kv.set('written-by', process.version);
      a.close();
      const b = openStore(${JSON.stringify(file)});
      const read = b.kv.get('written-by');
      b.close();
      process.stdout.write(read === process.version ? 'ok' : 'read back ' + read);
    } catch (err) { process.stdout.write((err.code ? err.code + ': ' : '') + String(err.message).split('\\n')[0]); }`;
  return (await run(path.join(nodeBin, 'node'), ['-e', script], { env, cwd: fromDir })).stdout;
}
