/**
 * Preloaded (`node -r`) into a gateway child process to make named packages resolve to other folders, as on a host
 * where they are installed differently: `TEST_MODULE_REDIRECTS='{"serialport": "/tmp/x/node_modules/serialport"}'`.
 * Only where the package is found changes; what loading it does is the package's own code. A `null` folder makes
 * the package not installed: resolving it fails as Node.js fails for any absent package. A `null` built-in
 * (`"node:sqlite": null`) is made absent as on a Node.js that lacks it (Node 20 for node:sqlite), with that error.
 */
import Module from 'node:module';

type Resolve = (request: string, ...rest: unknown[]) => string;
const modules = Module as unknown as { _resolveFilename: Resolve };
const original = modules._resolveFilename;
const map = JSON.parse(process.env.TEST_MODULE_REDIRECTS ?? '{}') as Record<string, string | null>;

// Built-ins named `node:…` are loaded before any resolution, so their absence is made in `_load`.
type Load = (request: string, ...rest: unknown[]) => unknown;
const loader = Module as unknown as { _load: Load };
const originalLoad = loader._load;
loader._load = function (request: string, ...rest: unknown[]): unknown {
  if (request.startsWith('node:') && map[request] === null) {
    const err = new Error(`No such built-in module: ${request}`) as NodeJS.ErrnoException;
    err.code = 'ERR_UNKNOWN_BUILTIN_MODULE';
    throw err;
  }
  return originalLoad.call(this, request, ...rest);
};

modules._resolveFilename = function (request: string, ...rest: unknown[]): string {
  for (const [name, folder] of Object.entries(map)) {
    if (folder === null && (request === name || request.startsWith(`${name}/`))) {
      const err = new Error(`Cannot find module '${request}'`) as NodeJS.ErrnoException;
      err.code = 'MODULE_NOT_FOUND';
      throw err;
    }
    if (folder === null) continue;
    if (request === name) return original.call(this, folder, ...rest);
    if (request.startsWith(`${name}/`)) return original.call(this, `${folder}${request.slice(name.length)}`, ...rest);
  }
  return original.call(this, request, ...rest);
};
