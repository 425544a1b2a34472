/**
 * The one way a node reports a failed message: a coded error through `done(err)`, so Catch nodes see it with
 * `msg.error.code`, and a red status naming the code. Node-RED copies an own `code` property onto `msg.error`.
 * The message may quote what arrived (a fragment id, a hub's reason); Node-RED writes it to its log as is when no
 * Catch node takes it, so it goes out printable (lib/printable.ts), its stack with it.
 */
import { CodedError } from '../../lib/coded-error';
import { printable } from '../../lib/printable';
import type { NodeStatusReporter } from './status';

export type Done = (err?: Error) => void;

/** Whatever was thrown becomes a CodedError; foreign errors keep their message under code `INTERNAL`. */
export function toCodedError(err: unknown): CodedError {
  if (err instanceof CodedError) return err;
  if (err instanceof Error) {
    const own = (err as Error & { code?: unknown }).code;
    const code = typeof own === 'string' ? own : 'INTERNAL';
    return new CodedError(code, err.message, undefined, { cause: err });
  }
  return new CodedError('INTERNAL', String(err));
}

/**
 * The error as a node reports it: the same error when its message is printable already, else a copy with the
 * message escaped (same name, code and details; the original as its cause) whose stack keeps the original frames.
 */
export function reportable(err: unknown): CodedError {
  const coded = toCodedError(err);
  const message = printable(coded.message);
  if (message === coded.message) return coded;
  const copy = new CodedError(coded.code, message, coded.details === undefined ? undefined : { ...coded.details }, { cause: coded });
  copy.name = coded.name;
  const head = `${coded.name}: ${coded.message}`;
  const frames = coded.stack?.startsWith(head) ? coded.stack.slice(head.length) : '';
  copy.stack = `${copy.name}: ${message}${frames}`;
  return copy;
}

export function fail(err: unknown, status: NodeStatusReporter | undefined, done: Done): void {
  const coded = reportable(err);
  status?.failed(coded.code);
  done(coded);
}
