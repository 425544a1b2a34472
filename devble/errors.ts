/**
 * The errors of the virtual BLE controller: `PYTHON3_MISSING` when there is no python3 to open the pseudo-terminals
 * (pty.ts says why it takes one), `PTY_FAILED` when python3 ran but could not open one.
 */
import { CodedError } from '../lib/coded-error';

export type DevBleErrorCode = 'PYTHON3_MISSING' | 'PTY_FAILED';

export class DevBleError extends CodedError<DevBleErrorCode> {}
