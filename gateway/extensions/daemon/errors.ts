/** The errors of the gateway-daemon extension: configuration it cannot run with, a listener it cannot open. */
import { CodedError } from '../../../lib/coded-error';

export type DaemonErrorCode = 'BAD_CONFIG' | 'BAD_LISTEN' | 'LISTEN_FAILED';

export class DaemonError extends CodedError<DaemonErrorCode> {}
