/**
 * An HCI controller on a serial device (H4 over UART): a dongle running HCI-over-UART firmware, the Pi's own UART
 * controller, or a pseudo-terminal (devble). Opened through `serialport` by path only: a pty has no sysfs entry and
 * `SerialPort.list()` does not show it, so nothing here lists ports.
 *
 * The port is locked exclusively (serialport's `lock`, flock on Linux), so a second gateway on the same path fails
 * with `IN_USE` instead of both reading half the controller's packets.
 */
import { wakeAfterPollerEvents } from '../serialport-wakeup';
import { BleTransportError } from './errors';
import { H4Reader } from './h4-reader';

/** What a write or read on a serial device that vanished fails with: a USB dongle pulled out, a pty whose master closed. */
const GONE = /\b(EIO|ENXIO|ENODEV)\b/;

export interface UartOptions {
  path: string;
  baudRate: number;
  /** RTS/CTS hardware flow control; what HCI UART firmware (Zephyr hci_uart, ESP-IDF) expects by default. */
  flowControl: boolean;
}

interface PortLike {
  readonly isOpen: boolean;
  open(callback: (err: Error | null) => void): void;
  close(callback?: (err: Error | null) => void): void;
  write(data: Buffer): boolean;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'close', listener: (err?: Error | null) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  removeAllListeners(): this;
}

type PortClass = new (options: { path: string; baudRate: number; rtscts: boolean; lock: boolean; autoOpen: boolean }) => PortLike;

export interface HciTransportEvents {
  packet(packet: Buffer): void;
  /** The transport is gone or unusable (unplugged, garbage); `err.code` says which. */
  failed(err: BleTransportError): void;
}

/** What the controller's owner needs of a transport: whole H4 packets each way (hci-user-channel.ts is the other one). */
export interface HciTransport {
  /** What names the controller in messages: the UART's path, or `hciN`. */
  readonly path: string;
  /** Why a transport that opened may get no HCI answer, for the NO_ANSWER message. */
  readonly silenceHint: string;
  open(): Promise<void>;
  write(packet: Buffer): void;
  close(): Promise<void>;
}

/** Maps an open error of serialport to ours, with the remedy in the message. */
export function uartOpenError(path: string, err: Error & { code?: string }): BleTransportError {
  const text = `${err.code ?? ''} ${err.message}`;
  if (/ENOENT|No such file/i.test(text)) return new BleTransportError('NO_DEVICE', `${path}: no such device (is the dongle plugged in? ls -l ${path})`, { path }, { cause: err });
  if (/EACCES|Permission denied/i.test(text)) {
    return new BleTransportError('PERMISSION', `${path}: permission denied (add the gateway's user to the dialout group: sudo usermod -aG dialout $USER, then log in again)`, { path }, { cause: err });
  }
  if (/lock|EAGAIN|temporarily unavailable|EBUSY/i.test(text)) {
    return new BleTransportError('IN_USE', `${path}: in use by another process (another gateway or program holds the port)`, { path }, { cause: err });
  }
  return new BleTransportError('NO_DEVICE', `${path}: cannot open: ${err.message}`, { path }, { cause: err });
}

export class HciUartTransport implements HciTransport {
  readonly #options: UartOptions;
  readonly #events: HciTransportEvents;
  readonly #reader = new H4Reader();
  #port: PortLike | undefined;
  #closing = false;

  constructor(options: UartOptions, events: HciTransportEvents) {
    this.#options = options;
    this.#events = events;
  }

  get path(): string {
    return this.#options.path;
  }

  get silenceHint(): string {
    return 'wrong baud rate, no flow control wiring, or the firmware does not speak HCI over UART';
  }

  /** Opens the port. Rejects with `BleTransportError` (`NO_DEVICE`, `PERMISSION`, `IN_USE`). */
  async open(): Promise<void> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { SerialPort } = require('serialport') as { SerialPort: PortClass };
    // Node 26 leaves serialport's reads hanging on a quiet line without it (serialport-wakeup.ts).
    wakeAfterPollerEvents();
    const { path, baudRate, flowControl } = this.#options;
    const port = new SerialPort({ path, baudRate, rtscts: flowControl, lock: true, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((err) => (err === null ? resolve() : reject(uartOpenError(path, err)))));
    this.#closing = false;
    this.#reader.clear();
    this.#port = port;
    port.on('data', (chunk) => this.#onData(chunk));
    port.on('error', (err) => this.#fail(new BleTransportError('CLOSED', `${path}: ${GONE.test(err.message) ? `the controller went away (unplugged?): ${err.message}` : err.message}`, { path }, { cause: err })));
    port.on('close', () => this.#fail(new BleTransportError('CLOSED', `${path}: the controller went away (unplugged?)`, { path })));
  }

  write(packet: Buffer): void {
    this.#port?.write(packet);
  }

  async close(): Promise<void> {
    this.#closing = true;
    const port = this.#port;
    this.#port = undefined;
    if (port === undefined) return;
    port.removeAllListeners();
    port.on('error', () => undefined);
    if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
  }

  #onData(chunk: Buffer): void {
    let packets: Buffer[];
    try {
      packets = this.#reader.push(chunk);
    } catch (err) {
      return this.#fail(err instanceof BleTransportError ? err : new BleTransportError('GARBAGE', String(err)));
    }
    for (const packet of packets) this.#events.packet(packet);
  }

  #fail(err: BleTransportError): void {
    if (this.#closing) return;
    this.#events.failed(err);
  }
}
