/**
 * The serial radio's fd route (issue 26): `serialport`'s binding opens and configures the line (speed, raw mode, the
 * exclusive lock), and the gateway then reads and writes the device as a libuv stream on the event loop.
 *
 * Why: `serialport`'s own stream reads through the thread pool (an `fs.read` per wake-up, then another that meets
 * EAGAIN before the poller is asked again), writes the same way, and drains with `tcdrain` on the pool too: per ACK
 * burst that was several thread hand-offs, a third of the serial path's CPU. A TTY stream reads once per readiness
 * event and writes straight to the kernel; what the kernel refuses libuv keeps and writes when the fd is writable.
 *
 * Why a second open: libuv's TTY handle reopens the device by name and puts the new description over the fd it was
 * given (so that non-blocking mode stays ours). Given the binding's fd, that would close the description holding
 * `serialport`'s flock. So the binding keeps its fd (and the lock, and the settings, which belong to the device) until
 * close, and the stream gets a fd of our own. A device libuv cannot reopen would get blocking writes, which spin on a
 * non-blocking fd: that is refused as `UNSUPPORTED`, and `io: auto` then takes serialport's stream instead.
 *
 * The binding's poller was created on its fd but is never started (nothing reads or writes through the binding), so
 * it cannot steal readiness from the stream, nor hit bindings-cpp's poll-interest bug (docs/radios.md).
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import tty from 'node:tty';
import { RadioError } from '../radio';

/** What `SerialPort.binding.open` gives on Linux and macOS (bindings-cpp's `LinuxPortBinding`/`DarwinPortBinding`). */
export interface OpenedBinding {
  readonly fd?: number | null;
  close(): Promise<void>;
}

export interface BindingOpener {
  open(options: { path: string; baudRate: number }): Promise<OpenedBinding>;
}

const OPEN_FLAGS = fs.constants.O_RDWR | fs.constants.O_NOCTTY | fs.constants.O_NONBLOCK;

type CloseError = (Error & { disconnected?: boolean }) | null;

/** Has the shape of serial-backend.ts's `SerialPortLike` (not imported: that file imports this one). */
export class FdSerialPort extends EventEmitter {
  readonly #path: string;
  readonly #baudRate: number;
  readonly #binding: BindingOpener;
  #opened: OpenedBinding | undefined;
  #fd: number | undefined;
  #stream: tty.ReadStream | undefined;
  #closing = false;
  #closed: Promise<void> | undefined;
  /** Why the stream closed, when it was not us. */
  #lost: Error | undefined;
  /** What `enqueue` was given since the last flush, and who waits for the stream to drain. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #flushing = false;
  #drainWaiters: Array<(err: Error | null) => void> = [];

  constructor(options: { path: string; baudRate: number; binding: BindingOpener }) {
    super();
    this.#path = options.path;
    this.#baudRate = options.baudRate;
    this.#binding = options.binding;
  }

  get isOpen(): boolean {
    return this.#stream !== undefined && !this.#stream.destroyed && !this.#closing;
  }

  open(callback: (err: Error | null) => void): void {
    this.#open().then(
      () => callback(null),
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
    );
  }

  async #open(): Promise<void> {
    const opened = await this.#binding.open({ path: this.#path, baudRate: this.#baudRate });
    this.#opened = opened;
    let fd: number | undefined;
    try {
      if (typeof opened.fd !== 'number') throw unavailable(this.#path, 'the binding gives no file descriptor on this platform');
      fd = await new Promise<number>((resolve, reject) => fs.open(this.#path, OPEN_FLAGS, (err, n) => (err ? reject(err) : resolve(n))));
      if (!tty.isatty(fd)) throw unavailable(this.#path, 'not a terminal device');
      const stream = new tty.ReadStream(fd);
      // libuv reopened the device and works on its own fd; the same number means it could not, and writes would block.
      if (handleFd(stream) === fd) {
        stream.destroy();
        fd = undefined; // the handle's now: it closes it
        throw unavailable(this.#path, 'libuv could not reopen the device for non-blocking writes');
      }
      this.#fd = fd;
      this.#stream = stream;
    } catch (err) {
      if (fd !== undefined && this.#stream === undefined) await new Promise<void>((resolve) => fs.close(fd!, () => resolve()));
      this.#opened = undefined;
      await opened.close().catch(() => undefined);
      throw err;
    }
    const stream = this.#stream;
    stream.on('data', (chunk: Buffer) => this.emit('data', chunk));
    stream.on('error', (err) => {
      // A read error is the line going away (EIO when a pty's master or a USB device is gone); it closes the stream.
      if (!this.#closing) this.emit('error', err);
      this.#lost ??= err;
    });
    // The far end hung up: reads give end-of-file.
    stream.on('end', () => stream.destroy());
    stream.on('close', () => {
      this.#settleWaiters(this.#lost ?? new Error(`${this.#path} closed`));
      void this.#release().then(() => {
        if (this.#closing) return;
        const err: CloseError = Object.assign(this.#lost ?? new Error(`${this.#path} hung up`), { disconnected: true });
        this.emit('close', err);
      });
    });
  }

  write(data: Buffer, callback?: (err: Error | null | undefined) => void): boolean {
    const stream = this.#stream;
    if (stream === undefined || stream.destroyed) {
      const err = new Error(`${this.#path} is not open`);
      if (callback) process.nextTick(callback, err);
      return false;
    }
    return stream.write(data, callback);
  }

  /**
   * Hands bytes to the line; what is handed over in one turn of the event loop leaves in one write. An ACK burst
   * otherwise reaches the port as its first frame alone and then the rest (the radio's queue hands over what waited
   * behind a write once it is done): two TTY writes, each about 20 µs of kernel time on a pty. Resolves at once
   * while the stream holds less than its high-water mark (64 KiB), else once it has drained: a device that stops
   * reading still pushes back on the radio's queue. Bytes handed over that the line then cannot take are lost with
   * the port, as those in the kernel's buffer are.
   */
  enqueue(data: Buffer): Promise<void> {
    const stream = this.#stream;
    if (stream === undefined || stream.destroyed || this.#closing) return Promise.reject(new Error(`${this.#path} is not open`));
    this.#pending.push(data);
    this.#pendingBytes += data.length;
    if (!this.#flushing) {
      this.#flushing = true;
      setImmediate(() => this.#flush());
    }
    if (stream.writableLength + this.#pendingBytes < stream.writableHighWaterMark) return Promise.resolve();
    return new Promise((resolve, reject) => this.#drainWaiters.push((err) => (err ? reject(err) : resolve())));
  }

  #flush(): void {
    this.#flushing = false;
    const chunks = this.#pending;
    this.#pending = [];
    this.#pendingBytes = 0;
    const stream = this.#stream;
    if (stream === undefined || stream.destroyed) {
      this.#settleWaiters(new Error(`${this.#path} is not open`));
      return;
    }
    const room = stream.write(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    if (this.#drainWaiters.length === 0) return;
    if (room) this.#settleWaiters(null);
    else stream.once('drain', () => this.#settleWaiters(null));
  }

  #settleWaiters(err: Error | null): void {
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const settle of waiters) settle(err);
  }

  /**
   * Calls back once every byte written so far is with the kernel. A serial line's "written" is the kernel's buffer:
   * when the device stops reading, the kernel refuses and writes wait, so backpressure still reaches the radio.
   */
  drain(callback: (err: Error | null) => void): void {
    const stream = this.#stream;
    if (stream === undefined || stream.destroyed) {
      process.nextTick(callback, new Error(`${this.#path} is not open`));
      return;
    }
    if (stream.writableLength === 0) process.nextTick(callback, null);
    // An empty write completes after every write before it.
    else stream.write(Buffer.alloc(0), (err) => callback(err ?? null));
  }

  close(callback?: (err: Error | null) => void): void {
    this.#closing = true;
    const stream = this.#stream;
    if (stream !== undefined && !stream.destroyed) stream.destroy();
    this.#release().then(
      () => callback?.(null),
      (err: unknown) => callback?.(err instanceof Error ? err : new Error(String(err))),
    );
  }

  /** Closes our fd and the binding's (its lock with it), once, after the stream has let go of its own. */
  #release(): Promise<void> {
    this.#closed ??= (async () => {
      const stream = this.#stream;
      if (stream !== undefined && !stream.closed) await new Promise<void>((resolve) => stream.once('close', () => resolve()));
      if (this.#fd !== undefined) {
        const fd = this.#fd;
        this.#fd = undefined;
        await new Promise<void>((resolve) => fs.close(fd, () => resolve()));
      }
      const opened = this.#opened;
      this.#opened = undefined;
      await opened?.close().catch(() => undefined);
    })();
    return this.#closed;
  }
}

function unavailable(path: string, why: string): RadioError {
  return new RadioError('UNSUPPORTED', `the fd route cannot serve ${path}: ${why}`, { path, route: 'fd' });
}

/** The fd libuv's handle works on (Node shows it on stream handles; -1 or absent elsewhere). */
function handleFd(stream: tty.ReadStream): number | undefined {
  return (stream as unknown as { _handle?: { fd?: number } })._handle?.fd;
}
