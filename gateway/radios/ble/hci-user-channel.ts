/**
 * An HCI controller through the kernel's HCI user channel (`adapter: hciN` with `hci_channel: user`): the socket
 * `@stoprocent/bluetooth-hci-socket` binds with HCI_CHANNEL_USER takes the adapter away from BlueZ for as long as it is
 * open, so BlueZ (and Home Assistant with it) keeps every other adapter and this one is the gateway's alone. The
 * kernel then does none of the work it does on the raw channel, which is why both stacks go through the HCI
 * multiplexer here exactly as on a UART.
 *
 * The kernel only binds an adapter that is down and not already bound: BlueZ's powered adapter fails with EBUSY,
 * a second gateway with EUSERS, a process without CAP_NET_ADMIN with EPERM. Each maps to a coded error whose
 * message carries the command that fixes it.
 */
import { BleTransportError } from './errors';
import { H4Reader } from './h4-reader';
import type { HciTransport, HciTransportEvents } from './hci-uart';

/** The part of the package's native socket this transport uses. */
export interface HciSocketLike {
  bindUser(devId: number): number | undefined;
  start(): void;
  stop(): void;
  write(packet: Buffer): void;
  on(event: 'data', listener: (data: Buffer) => void): unknown;
  on(event: 'error', listener: (err: Error & { errno?: number; code?: string; syscall?: string }) => void): unknown;
  removeAllListeners(event?: string): unknown;
}

export interface UserChannelOptions {
  /** N of hciN. */
  index: number;
  /** Builds the socket; default: the package's native driver (tests pass a socket over a virtual controller). */
  openSocket?: () => HciSocketLike;
}

/**
 * Maps a failure to bind the user channel to ours. The native code throws `strerror(errno)` text without a code (or
 * emits an error with `errno` when even the socket cannot be made), so the text is what is matched.
 */
export function userChannelOpenError(index: number, err: Error & { code?: string; errno?: number }): BleTransportError {
  const hci = `hci${index}`;
  const text = `${err.code ?? ''} ${err.message}`;
  const details = { adapter: hci };
  if (/EBUSY|resource busy/i.test(text)) {
    return new BleTransportError(
      'HELD_BY_BLUEZ',
      `${hci}: held by BlueZ (the user channel needs the adapter powered down; run: sudo btmgmt --index ${index} power off, or: sudo hciconfig ${hci} down)`,
      details,
      { cause: err },
    );
  }
  if (/EUSERS|too many users/i.test(text)) {
    return new BleTransportError('IN_USE', `${hci}: in use by another process on the user channel (another gateway?); one gateway per adapter`, details, { cause: err });
  }
  if (/EPERM|EACCES|not permitted|permission denied/i.test(text)) {
    return new BleTransportError(
      'PERMISSION',
      `${hci}: the HCI user channel needs CAP_NET_ADMIN (under systemd: AmbientCapabilities=CAP_NET_ADMIN in the unit; by hand: sudo setcap cap_net_admin+eip $(readlink -f $(which node)))`,
      details,
      { cause: err },
    );
  }
  if (/ENODEV|no such device/i.test(text)) {
    return new BleTransportError('NO_DEVICE', `${hci}: no such adapter (btmgmt info or ls /sys/class/bluetooth lists them)`, details, { cause: err });
  }
  if (/EAFNOSUPPORT|EPROTONOSUPPORT|EINVAL|not supported|invalid argument|cannot find module/i.test(text)) {
    return new BleTransportError(
      'UNSUPPORTED',
      `${hci}: this system offers no HCI user channel (${err.message}; a kernel without Bluetooth sockets or older than 3.13, a container without them, or @stoprocent/bluetooth-hci-socket not installed); use adapter: uart:<path> instead`,
      details,
      { cause: err },
    );
  }
  return new BleTransportError('NO_DEVICE', `${hci}: cannot open the HCI user channel: ${err.message}`, details, { cause: err });
}

function nativeSocket(): HciSocketLike {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadDriver } = require('@stoprocent/bluetooth-hci-socket') as { loadDriver(type: 'native'): new () => HciSocketLike };
  const Socket = loadDriver('native');
  return new Socket();
}

export class HciUserChannelTransport implements HciTransport {
  readonly #options: UserChannelOptions;
  readonly #events: HciTransportEvents;
  readonly #reader = new H4Reader();
  #socket: HciSocketLike | undefined;
  #closing = false;

  constructor(options: UserChannelOptions, events: HciTransportEvents) {
    this.#options = options;
    this.#events = events;
  }

  get path(): string {
    return `hci${this.#options.index}`;
  }

  get silenceHint(): string {
    return 'the adapter was bound but never answered (is it powered down in BlueZ only, or wedged? replug it)';
  }

  /** Binds the user channel. Rejects with `BleTransportError` (`HELD_BY_BLUEZ`, `IN_USE`, `PERMISSION`, `NO_DEVICE`, `UNSUPPORTED`). */
  async open(): Promise<void> {
    const { index } = this.#options;
    let socket: HciSocketLike;
    try {
      socket = (this.#options.openSocket ?? nativeSocket)();
    } catch (err) {
      throw userChannelOpenError(index, err instanceof Error ? err : new Error(String(err)));
    }
    // The native code reports a socket it could not create as an `error` event during the bind, not as a throw.
    let early: Error | undefined;
    socket.on('error', (err) => {
      early ??= err;
    });
    try {
      socket.bindUser(index);
    } catch (err) {
      early ??= err instanceof Error ? err : new Error(String(err));
    }
    if (early !== undefined) {
      socket.removeAllListeners();
      throw userChannelOpenError(index, early);
    }
    socket.removeAllListeners('error');
    this.#closing = false;
    this.#reader.clear();
    this.#socket = socket;
    socket.on('data', (data) => this.#onData(data));
    socket.on('error', (err) => this.#fail(new BleTransportError('CLOSED', `${this.path}: ${err.message}`, { adapter: this.path }, { cause: err })));
    socket.start();
  }

  write(packet: Buffer): void {
    this.#socket?.write(packet);
  }

  async close(): Promise<void> {
    this.#closing = true;
    const socket = this.#socket;
    this.#socket = undefined;
    if (socket === undefined) return;
    socket.removeAllListeners();
    // Unbinding gives the adapter back to the kernel; BlueZ may power it up again.
    socket.stop();
  }

  #onData(data: Buffer): void {
    let packets: Buffer[];
    try {
      packets = this.#reader.push(data);
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
