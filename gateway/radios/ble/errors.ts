/**
 * The errors of the BLE controller transports and the HCI multiplexer: `GARBAGE` for bytes no controller sends,
 * `NO_DEVICE`, `PERMISSION`, `IN_USE` (another process holds the UART), `NO_ANSWER` (no HCI answer in time: wrong
 * baud rate or not HCI firmware), `HELD_BY_BLUEZ` (the user channel needs the adapter down), `UNSUPPORTED` (no HCI user channel on this
 * system), `CLOSED`.
 */
import { CodedError } from '../../../lib/coded-error';

export type BleTransportErrorCode = 'GARBAGE' | 'NO_DEVICE' | 'PERMISSION' | 'IN_USE' | 'NO_ANSWER' | 'HELD_BY_BLUEZ' | 'UNSUPPORTED' | 'CLOSED';

export class BleTransportError extends CodedError<BleTransportErrorCode> {}
