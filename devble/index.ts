/**
 * The controller's side of Bluetooth LE, simulated (as `devhub/` is the hub's side): virtual LE controllers that
 * speak HCI over H4 on pseudo-terminals, in one virtual air, so that noble's and bleno's own host stacks run above
 * them unchanged. What it models and what it does not: air.ts and docs/radios.md.
 *
 *   const ble = new VirtualBle();
 *   const host = await ble.host();   // host.path: the pty a host opens as its HCI UART
 *   // … noble or bleno on host.path …
 *   await ble.close();               // every pty relay ends
 */
export { VirtualBle, type VirtualBleOptions, type VirtualHost } from './virtual-ble';
export { VirtualAir, type AirOptions } from './air';
export { VirtualController, type ControllerOptions } from './controller';
export { PtyLink, DEFAULT_PYTHON, type PtyOptions } from './pty';
export { DevBleError, type DevBleErrorCode } from './errors';
