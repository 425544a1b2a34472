/**
 * Makes serialport's reads finish on Node 26 (found by the Node 26 leg of issue 22).
 *
 * Since Node 26.4 the microtask queue is no longer drained after a native addon calls into JavaScript without
 * `MakeCallback` (nodejs/node#62969). @serialport/bindings-cpp 13's poller calls back that way: its native fd poller
 * reports "readable", the JavaScript side resolves the promise its read is waiting on, and the continuation (the
 * actual `read`) then waits until something else wakes the event loop. On a quiet line that is for ever: a BLE
 * controller's answer to HCI Reset sat unread until the 1 s answer timeout closed the port, and `--check` called a
 * working controller silent. The fix upstream (serialport/bindings-cpp#239, deliver poller events with MakeCallback)
 * is not released yet.
 *
 * Until it is, every event the poller delivers also queues a no-op `setImmediate`: Node runs the queued microtasks
 * after each immediate, in the same turn of the loop, so the read goes on at once. On Nodes that drain by themselves
 * the immediate finds nothing to do. Patched once per bindings-cpp copy, found from the serialport that `require`
 * loads (an install may hold more than one copy).
 */
import { createRequire } from 'node:module';
import path from 'node:path';

const PATCHED = Symbol.for('clawling.serialport-wakeup');
const noop = (): void => undefined;

interface PollerPrototype {
  emit(event: string | symbol, ...args: unknown[]): boolean;
  [PATCHED]?: true;
}

/**
 * Patches the poller of the bindings-cpp that `serialport`, as resolved by `req`, uses. Returns what it did, as a
 * value: a serialport without bindings-cpp's poller (another platform, another major) is left alone.
 */
export function wakeAfterPollerEvents(req: NodeJS.Require = require): 'patched' | 'already' | 'no-poller' {
  let prototype: PollerPrototype;
  try {
    const serialportReq = createRequire(req.resolve('serialport'));
    const bindingsEntry = serialportReq.resolve('@serialport/bindings-cpp');
    const poller = serialportReq(path.join(path.dirname(bindingsEntry), 'poller.js')) as { Poller?: { prototype: PollerPrototype } };
    if (poller.Poller === undefined) return 'no-poller';
    prototype = poller.Poller.prototype;
  } catch {
    return 'no-poller';
  }
  if (prototype[PATCHED]) return 'already';
  const original = Object.prototype.hasOwnProperty.call(prototype, 'emit') ? prototype.emit : undefined;
  prototype.emit = function (this: PollerPrototype, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'readable' || event === 'writable' || event === 'disconnect') setImmediate(noop);
    return original !== undefined ? original.call(this, event, ...args) : Object.getPrototypeOf(prototype).emit.call(this, event, ...args);
  };
  prototype[PATCHED] = true;
  return 'patched';
}
