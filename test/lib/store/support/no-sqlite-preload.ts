/**
 * Preloaded (`node -r`) into a child process to make `better-sqlite3` unresolvable, as on an install where the
 * optional native build failed.
 */
import Module from 'node:module';

type Resolve = (request: string, ...rest: unknown[]) => string;
const modules = Module as unknown as { _resolveFilename: Resolve };
const original = modules._resolveFilename;
modules._resolveFilename = function (request: string, ...rest: unknown[]): string {
  if (request === 'better-sqlite3') {
    const err = new Error(`Cannot find module '${request}'`) as NodeJS.ErrnoException;
    err.code = 'MODULE_NOT_FOUND';
    throw err;
  }
  return original.call(this, request, ...rest);
};
