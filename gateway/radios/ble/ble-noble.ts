/**
 * The part of `@stoprocent/noble` the BLE radio uses, as interfaces, and the lazy loader of the real package.
 *
 * noble is split in two: the `Noble` class (peripherals, services, characteristics, callbacks; pure JavaScript)
 * and a *binding* that talks to the platform (HCI socket on Linux). `withBindings('hci', { deviceId })` picks the
 * adapter. Tests build the real `Noble` class over a fake binding (`new Noble(binding)` from
 * `@stoprocent/noble/lib/noble`), so everything above the binding is the code that runs on a Pi.
 *
 * The interfaces are ours rather than noble's own typings so that the gateway still compiles where the optional
 * package failed to install.
 */
import { packageHint } from '../package-hint';
import { RadioError } from '../radio';

/** Listener type for the loosely typed `removeListener`; method parameters are checked bivariantly. */
type Listener = (...args: never[]) => void;

export interface NobleCharacteristic {
  readonly uuid: string;
  readonly properties: string[];
  read(callback: (err: Error | null | undefined, data: Buffer) => void): void;
  write(data: Buffer, withoutResponse: boolean, callback?: (err?: Error | null) => void): void;
  subscribe(callback?: (err?: Error | null) => void): void;
  on(event: 'data', listener: (data: Buffer, isNotification: boolean) => void): this;
  removeListener(event: string, listener: Listener): this;
}

export interface NoblePeripheral {
  readonly id: string;
  readonly address: string;
  readonly rssi: number;
  readonly mtu: number | null;
  readonly state: string;
  readonly connectable: boolean;
  connect(options: Record<string, unknown> | undefined, callback: (err?: Error | null) => void): void;
  cancelConnect(options?: object): void;
  disconnect(callback?: () => void): void;
  discoverSomeServicesAndCharacteristics(
    serviceUuids: string[],
    characteristicUuids: string[],
    callback: (err: unknown, services: unknown[] | null, characteristics: NobleCharacteristic[] | null) => void,
  ): void;
  on(event: 'disconnect', listener: (reason: unknown) => void): this;
  on(event: 'mtu', listener: (mtu: number) => void): this;
  removeListener(event: string, listener: Listener): this;
}

export interface NobleLike {
  readonly state: string;
  on(event: 'stateChange', listener: (state: string) => void): this;
  on(event: 'scanStart' | 'scanStop', listener: () => void): this;
  on(event: 'discover', listener: (peripheral: NoblePeripheral) => void): this;
  on(event: 'warning', listener: (message: string) => void): this;
  removeAllListeners(event?: string): this;
  startScanning(serviceUuids: string[], allowDuplicates: boolean, callback: (err?: Error | null) => void): void;
  stopScanning(callback?: () => void): void;
  stop(): void;
}

/**
 * Builds a noble for an adapter; the default loads the real package, tests pass one over a fake binding.
 * `legacy`: keep to legacy (Bluetooth 4.x) scanning and connection commands even on a Bluetooth 5 controller, as
 * the GATT server's advertising on the same controller requires (a controller refuses legacy advertising commands
 * once extended ones were used, until it is reset).
 */
export type NobleFactory = (options: { adapter: number; legacy?: boolean }) => NobleLike;

interface NobleModule {
  withBindings(type: string, options: Record<string, unknown>): NobleLike;
}

/** The real noble on the chosen adapter. Throws `RadioError` `UNSUPPORTED` naming the package when it does not load. */
export const loadNoble: NobleFactory = ({ adapter, legacy = false }) => {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require('@stoprocent/noble') as NobleModule;
    // HCI is the Linux binding and the only one with adapter choice; elsewhere noble picks the platform's own.
    // The binding loads its native HCI socket module here, so a missing prebuild also surfaces here.
    // Without `extended`, the HCI binding switches to extended commands when the controller supports them.
    const hci: Record<string, unknown> = legacy ? { deviceId: adapter, extended: false } : { deviceId: adapter };
    return process.platform === 'linux' ? mod.withBindings('hci', hci) : mod.withBindings('default', {});
  } catch (err) {
    throw new RadioError(
      'UNSUPPORTED',
      packageHint('@stoprocent/noble', err),
      { package: '@stoprocent/noble' },
      { cause: err },
    );
  }
};

/** noble's HCI binding compares UUIDs as lowercase hex without dashes; anything else never matches. */
export function nobleUuid(uuid: string): string {
  return uuid.replace(/-/g, '').toLowerCase();
}

/** The mesh GATT characteristics (mesh-reference-facts.md §3), as noble spells them. */
export const MESH_CHARACTERISTICS = Object.freeze({
  MESSAGE: nobleUuid('6E400002-B5A3-F393-E0A9-E50E24DCCA9E'),
  DEVICE_ID: nobleUuid('6E400003-B5A3-F393-E0A9-E50E24DCCA9E'),
  IDENTITY: nobleUuid('6E400004-B5A3-F393-E0A9-E50E24DCCA9E'),
});

/**
 * noble's HCI binding installs a SIGINT handler that calls `process.exit(1)` when it is the last one registered,
 * which would cut the gateway's graceful shutdown short. Remove it; the gateway owns signals.
 */
export function detachNobleSignalHandlers(noble: NobleLike): void {
  const bindings = (noble as unknown as { _bindings?: { _sigIntHandler?: () => void } })._bindings;
  const handler = bindings?._sigIntHandler;
  if (typeof handler === 'function') process.removeListener('SIGINT', handler);
}

interface NobleHciInternals {
  _socket?: { on(event: 'data', listener: (data: Buffer) => void): unknown; listeners(event: 'data'): unknown[] };
  emit?(event: 'stateChange', state: string): boolean;
  once?(event: 'reset', listener: () => void): unknown;
  reset?(): void;
  readLeSupportedFeatures?(): void;
}

interface NobleBindingsInternals {
  _hci?: NobleHciInternals | null;
  _isScanning?: boolean;
  _isScanningStarted?: boolean;
  onScanStop?(): void;
}

const watchers = new WeakMap<object, (data: Buffer) => void>();

/**
 * noble ignores HCI Hardware Error: after an adapter resets on its own (firmware crash), it keeps links and scanning
 * the controller has forgotten, and the radio would wait forever on a dead link. Where the kernel does not step in
 * (the UART and user-channel drivers bypass it; noble's raw-socket filter does not pass the event), this replays
 * what noble does when the kernel powers an adapter off and on: the links go down, the state goes `poweredOff`,
 * then a Reset and noble's own start-up sequence bring it back to `poweredOn`.
 *
 * Call it on every `poweredOn`: noble drops its socket listeners when it starts again after a power-off. Returns
 * false when noble's internals are not the expected shape (nothing done).
 */
export function recoverFromHardwareErrors(noble: NobleLike, onError: (code: number) => void): boolean {
  const bindings = (noble as unknown as { _bindings?: NobleBindingsInternals })._bindings;
  const hci = bindings?._hci ?? undefined;
  const socket = hci?._socket;
  if (hci === undefined || socket === undefined || !hci.emit || !hci.once || !hci.reset || !hci.readLeSupportedFeatures) return false;
  const known = watchers.get(socket);
  if (known !== undefined && socket.listeners('data').includes(known)) return true;
  const { emit, once, reset, readLeSupportedFeatures } = { emit: hci.emit, once: hci.once, reset: hci.reset, readLeSupportedFeatures: hci.readLeSupportedFeatures };
  const listener = (data: Buffer): void => {
    // HCI event packet (0x04), Hardware Error (0x10), one parameter: the hardware code.
    if (data.length < 4 || data[0] !== 0x04 || data[1] !== 0x10) return;
    onError(data[3]);
    const off = (): void => {
      emit.call(hci, 'stateChange', 'poweredOff');
      // noble keeps its scanning flags across a power-off, and would answer the next startScanning with a
      // scanStart and no scan: the controller forgot it.
      if ((bindings?._isScanning === true || bindings?._isScanningStarted === true) && typeof bindings.onScanStop === 'function') bindings.onScanStop();
    };
    off();
    // Commands already queued ahead of the Reset can complete into noble's start-up steps and report poweredOn
    // early; what they set up the Reset wipes, so the state goes off again once it is done.
    once.call(hci, 'reset', () => {
      off();
      readLeSupportedFeatures.call(hci);
    });
    reset.call(hci);
  };
  watchers.set(socket, listener);
  socket.on('data', listener);
  return true;
}
