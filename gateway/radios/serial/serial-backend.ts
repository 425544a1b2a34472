/**
 * The part of `serialport` the serial radio uses, as an interface, and the lazy loader of the real package.
 *
 * `serialport` is an optional native dependency: requiring it at module load would make the whole gateway (and
 * every Node-RED node importing lib/) fail on a host without its prebuild. It is loaded on the first serial radio
 * only, and a missing package becomes state `unsupported` with the install hint. Tests pass `SerialPortMock`
 * (the same stream class over `@serialport/binding-mock`) through the same interface.
 *
 * Two routes to an open line, chosen by the radio's `io` setting: serialport's own stream (`createPort`), and the
 * fd route (`createFdPort`, fd-serial-port.ts: serialport configures, a libuv stream reads and writes). A backend
 * without the fd route (Windows, where the binding has no fd; the mock) leaves `createFdPort` out.
 */
import { wakeAfterPollerEvents } from '../serialport-wakeup';
import { FdSerialPort, type BindingOpener } from './fd-serial-port';
import { packageHint } from '../package-hint';
import { RadioError } from '../radio';

export interface SerialPortInfo {
  path: string;
  manufacturer?: string;
  serialNumber?: string;
  vendorId?: string;
  productId?: string;
  pnpId?: string;
}

/** What the radio calls on a port; `SerialPortStream` (serialport 10–13) has this shape. */
export interface SerialPortLike {
  readonly isOpen: boolean;
  open(callback: (err: Error | null) => void): void;
  close(callback?: (err: Error | null) => void): void;
  write(data: Buffer, callback?: (err: Error | null | undefined) => void): boolean;
  drain(callback: (err: Error | null) => void): void;
  /**
   * The fd route's write (fd-serial-port.ts): resolves once the port has taken the bytes within its buffer, and
   * writes what one turn of the event loop handed over at once. Without it the radio writes and drains.
   */
  enqueue?(data: Buffer): Promise<void>;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'close', listener: (err?: (Error & { disconnected?: boolean }) | null) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  removeAllListeners(event?: string): this;
}

export interface SerialBackend {
  /** A port object, not yet open. */
  createPort(options: { path: string; baudRate: number }): SerialPortLike;
  /** A port on the fd route, not yet open; its `open` fails with `RadioError` `UNSUPPORTED` where the route cannot serve. */
  createFdPort?(options: { path: string; baudRate: number }): SerialPortLike;
  /** The ports the platform lists; may reject (Linux: when `udevadm` is missing). */
  list(): Promise<SerialPortInfo[]>;
}

interface SerialPortModule {
  SerialPort: (new (options: { path: string; baudRate: number; autoOpen: boolean }) => SerialPortLike) & {
    list(): Promise<SerialPortInfo[]>;
    readonly binding: BindingOpener;
  };
}

/** The real backend. Throws `RadioError` `UNSUPPORTED` naming the package when it is not installed or does not load. */
export function loadSerialBackend(): SerialBackend {
  let mod: SerialPortModule;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require('serialport') as SerialPortModule;
  } catch (err) {
    throw new RadioError(
      'UNSUPPORTED',
      packageHint('serialport', err),
      { package: 'serialport' },
      { cause: err },
    );
  }
  // Node 26 leaves serialport's reads hanging on a quiet line without it (serialport-wakeup.ts); the fd route does
  // not need it, the serialport route still does.
  wakeAfterPollerEvents();
  const { SerialPort } = mod;
  return {
    createPort: ({ path, baudRate }) => new SerialPort({ path, baudRate, autoOpen: false }),
    ...(process.platform !== 'win32' ? { createFdPort: ({ path, baudRate }) => new FdSerialPort({ path, baudRate, binding: SerialPort.binding }) } : {}),
    list: () => SerialPort.list(),
  };
}
