/**
 * The part of `@stoprocent/bleno` (0.12.x) the BLE radio's GATT server uses, as interfaces, and the lazy loader of
 * the real package.
 *
 * bleno is split like noble: the `Bleno` class with `PrimaryService`, `Characteristic` and `Descriptor` (pure
 * JavaScript), over a *binding*. On Linux the binding is `lib/hci-socket/bindings.js`: it owns the raw HCI socket,
 * advertising, and the ATT/GATT server (`lib/hci-socket/gatt.js`), and it drives the characteristics by emitting
 * `readRequest`, `writeRequest`, `subscribe`, `unsubscribe`, `notify` and `indicate` on them, and `accept`,
 * `mtuChange`, `disconnect`, `stateChange`, `advertisingStart` on the binding. `withBindings('hci', { deviceId })`
 * (`lib/resolve-bindings.js`) picks the adapter; tests build the real `Bleno` class (`lib/bleno.js`) over a fake
 * binding that emits the same events, so everything above the binding is the code that runs on a Pi.
 *
 * The package's `index.js` builds a default instance on hci0 as soon as it is required; the loader requires
 * `lib/resolve-bindings` instead, so nothing touches an adapter the configuration did not name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { packageHint } from '../package-hint';
import { RadioError } from '../radio';

type Listener = (...args: never[]) => void;

/** An HCI connection handle (a number on Linux; the macOS binding uses strings). */
export type BlenoHandle = number | string;

/** `callback(result, data)` of a read request; `result` is an ATT error code (0 = success). */
export type BlenoReadCallback = (result: number, data?: Buffer) => void;
export type BlenoWriteCallback = (result: number) => void;
export type BlenoUpdateValue = (data: Buffer) => void;

export interface BlenoCharacteristicOptions {
  uuid: string;
  properties: string[];
  onReadRequest?: (handle: BlenoHandle, offset: number, callback: BlenoReadCallback) => void;
  onWriteRequest?: (handle: BlenoHandle, data: Buffer, offset: number, withoutResponse: boolean, callback: BlenoWriteCallback) => void;
  onSubscribe?: (handle: BlenoHandle, maxValueSize: number, updateValue: BlenoUpdateValue) => void;
  onUnsubscribe?: (handle: BlenoHandle) => void;
  /** A notification was handed to the controller. */
  onNotify?: (handle: BlenoHandle) => void;
  /** The central confirmed an indication. */
  onIndicate?: (handle: BlenoHandle) => void;
}

export interface BlenoCharacteristic {
  readonly uuid: string;
  readonly properties: readonly string[];
}

export interface BlenoPrimaryService {
  readonly uuid: string;
  readonly characteristics: readonly BlenoCharacteristic[];
}

export interface BlenoLike {
  readonly state: string;
  readonly Characteristic: new (options: BlenoCharacteristicOptions) => BlenoCharacteristic;
  readonly PrimaryService: new (options: { uuid: string; characteristics: BlenoCharacteristic[] }) => BlenoPrimaryService;
  on(event: 'stateChange', listener: (state: string) => void): this;
  on(event: 'accept' | 'disconnect', listener: (clientAddress: string, handle: BlenoHandle) => void): this;
  on(event: 'mtuChange', listener: (mtu: number) => void): this;
  on(event: 'advertisingStart', listener: (err?: Error | null) => void): this;
  on(event: 'advertisingStop', listener: () => void): this;
  on(event: 'warning', listener: (message: string) => void): this;
  removeListener(event: string, listener: Listener): this;
  removeAllListeners(event?: string): this;
  setServices(services: BlenoPrimaryService[], callback?: (err?: Error | null) => void): void;
  startAdvertisingWithEIRData(advertisementData: Buffer, scanData: Buffer, callback?: (err?: Error | null) => void): void;
  stopAdvertising(callback?: () => void): void;
  disconnect(handle?: BlenoHandle | null): void;
  stop(): void;
}

/** ATT result codes bleno's `Characteristic` names. */
export const ATT_RESULT = Object.freeze({
  SUCCESS: 0x00,
  INVALID_OFFSET: 0x07,
  INVALID_ATTRIBUTE_LENGTH: 0x0d,
  UNLIKELY_ERROR: 0x0e,
});

/** Builds a bleno for an adapter; the default loads the real package, tests pass one over a fake binding. */
export type BlenoFactory = (options: { adapter: number; sysDir?: string }) => BlenoLike;

type ResolveBindings = (type: string, options: Record<string, unknown>) => BlenoLike;

/**
 * The real bleno on the chosen adapter. Throws `RadioError` `UNSUPPORTED` when the adapter is missing or the package
 * does not load.
 *
 * The adapter is looked up in sysfs first: bleno's HCI binding, started on a host whose kernel has no Bluetooth
 * socket family (containers, CI), keeps a one-second poll running that throws an uncaught error once its listeners
 * are gone; on a missing adapter nothing of bleno is started.
 */
export const loadBleno: BlenoFactory = ({ adapter, sysDir = '/sys' }) => {
  if (process.platform === 'linux' && !fs.existsSync(path.join(sysDir, 'class', 'bluetooth', `hci${adapter}`))) {
    throw new RadioError('UNSUPPORTED', `hci${adapter}: no such Bluetooth adapter (${path.join(sysDir, 'class', 'bluetooth', `hci${adapter}`)} is missing)`, {
      adapter,
    });
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const withBindings = require('@stoprocent/bleno/lib/resolve-bindings') as ResolveBindings;
    // The HCI binding is Linux's and the only one with adapter choice; the binding module loads the native HCI
    // socket here, so a missing prebuild surfaces here too.
    return process.platform === 'linux' ? withBindings('hci', { deviceId: adapter }) : withBindings('default', {});
  } catch (err) {
    throw new RadioError(
      'UNSUPPORTED',
      packageHint('@stoprocent/bleno', err),
      { package: '@stoprocent/bleno' },
      { cause: err },
    );
  }
};

/** What the HCI binding keeps that the radio adjusts; absent on other bindings and on test fakes that do not model it. */
interface HciBindingInternals {
  _sigIntHandler?: () => void;
  _gatt?: { maxMtu?: number };
  _hci?: {
    setAdvertisingParameters?: () => void;
    pollIsDevUp?: () => void;
    _socket?: { on?: (event: string, listener: (err: unknown) => void) => void };
  };
}

function internals(bleno: BlenoLike): HciBindingInternals | undefined {
  return (bleno as unknown as { _bindings?: HciBindingInternals })._bindings;
}

/**
 * Like noble's, bleno's HCI binding installs a SIGINT handler that exits the process when it is the last one
 * registered. Remove it: the gateway owns signals and shuts down gracefully.
 */
export function detachBlenoSignalHandlers(bleno: BlenoLike): void {
  const handler = internals(bleno)?._sigIntHandler;
  if (typeof handler === 'function') process.removeListener('SIGINT', handler);
}

/**
 * bleno's HCI GATT server answers an MTU request with at most 256, which would leave a phone asking for 517
 * (Android's `requestMtu(517)`) at 253-byte notifications. Its L2CAP layer segments larger PDUs into the
 * controller's ACL packets, so the cap can be lifted to the largest ATT MTU (517).
 */
export function raiseGattMtuCap(bleno: BlenoLike, attMtu: number): void {
  const gatt = internals(bleno)?._gatt;
  if (gatt !== undefined && typeof gatt.maxMtu === 'number' && gatt.maxMtu < attMtu) gatt.maxMtu = attMtu;
}

/**
 * After an HCI Reset (which noble sends before a connection when the controller has no link) the controller's
 * advertising parameters are back to their defaults (1.28 s interval); bleno sends its own (100 ms) only while it
 * starts up. Re-send them while advertising is off. No-op on bindings without this step.
 */
export function restoreAdvertisingParameters(bleno: BlenoLike): void {
  const hci = internals(bleno)?._hci;
  if (typeof hci?.setAdvertisingParameters === 'function') hci.setAdvertisingParameters();
}

/**
 * `stop()` leaves the HCI binding's one-second adapter poll running (it is never cleared and keeps the process
 * alive), and a poll that fails after stop() has no error listener left and would throw. End the chain and keep a
 * last failure quiet.
 */
export function quietenStoppedBleno(bleno: BlenoLike): void {
  const hci = internals(bleno)?._hci;
  if (hci === undefined) return;
  if (typeof hci.pollIsDevUp === 'function') hci.pollIsDevUp = () => undefined;
  hci._socket?.on?.('error', () => undefined);
}

const EIR_FLAGS = 0x01;
const EIR_UUID128_COMPLETE = 0x07;
const EIR_NAME_COMPLETE = 0x09;
/** LE General Discoverable, BR/EDR not supported. */
const FLAGS_LE_GENERAL = 0x06;
const EIR_MAX = 31;
/** The longest advertised name: a scan response of its own (31 − 2 bytes of header). */
export const ADVERTISE_NAME_MAX_BYTES = EIR_MAX - 2;

/** A 128-bit UUID (dashed or not) in the little-endian byte order the air interface carries. */
function uuid128Le(uuid: string): Buffer {
  const hex = uuid.replace(/-/g, '');
  return Buffer.from(hex, 'hex').reverse();
}

/**
 * Advertising and scan-response data as the reference phones send them: flags and the complete list of one
 * 128-bit service UUID, the UUID again in the scan response, and nothing else (no name, no manufacturer or service
 * data). With a name, it goes into the scan response after the UUID when both fit, else alone (up to 29 bytes).
 */
export function meshAdvertisingData(serviceUuid: string, name?: string): { advertisement: Buffer; scanResponse: Buffer } {
  const uuid = uuid128Le(serviceUuid);
  const uuidField = Buffer.concat([Buffer.of(1 + uuid.length, EIR_UUID128_COMPLETE), uuid]);
  const advertisement = Buffer.concat([Buffer.of(2, EIR_FLAGS, FLAGS_LE_GENERAL), uuidField]);
  if (name === undefined || name.length === 0) return { advertisement, scanResponse: uuidField };
  const nameBytes = Buffer.from(name, 'utf8');
  const nameField = Buffer.concat([Buffer.of(1 + nameBytes.length, EIR_NAME_COMPLETE), nameBytes]);
  const scanResponse = uuidField.length + nameField.length <= EIR_MAX ? Buffer.concat([uuidField, nameField]) : nameField;
  return { advertisement, scanResponse };
}
