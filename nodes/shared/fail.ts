/**
 * The one way a node reports a failed message: a coded error through `done(err)`, so Catch nodes see it with
 * `msg.error.code`, and a red status naming the code. Node-RED copies an own `code` property onto `msg.error`.
 */
import { CodedError } from '../../lib/coded-error';
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

export function fail(err: unknown, status: NodeStatusReporter | undefined, done: Done): void {
  const coded = toCodedError(err);
  status?.failed(coded.code);
  done(coded);
}
