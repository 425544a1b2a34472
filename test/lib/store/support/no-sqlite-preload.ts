/**
 * Preloaded (`node -r`) into a child process to make `node:sqlite` unloadable, as on a Node.js older than 22.13
 * (Node 20 throws this same ERR_UNKNOWN_BUILTIN_MODULE for it).
 */
import Module from 'node:module';

type Load = (request: string, ...rest: unknown[]) => unknown;
const modules = Module as unknown as { _load: Load };
const original = modules._load;
modules._load = function (request: string, ...rest: unknown[]): unknown {
  if (request === 'node:sqlite') {
    const err = new Error(`No such built-in module: ${request}`) as NodeJS.ErrnoException;
    err.code = 'ERR_UNKNOWN_BUILTIN_MODULE';
    throw err;
  }
  return original.call(this, request, ...rest);
};
