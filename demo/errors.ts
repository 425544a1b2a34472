/**
 * The demo's own failures, each with a stable code: `PORT_IN_USE`, `NODE_RED_FAILED`, and with `--virtual-ble`
 * `VIRTUAL_BLE_TIMEOUT` (the gateway did not connect to its BLE phones). The virtual controller's own
 * (`PYTHON3_MISSING`, `PTY_FAILED`) come through as `DevBleError`.
 */
import { CodedError } from '../lib/coded-error';

export type DemoErrorCode = 'PORT_IN_USE' | 'NODE_RED_FAILED' | 'VIRTUAL_BLE_TIMEOUT';

export class DemoError extends CodedError<DemoErrorCode> {}
