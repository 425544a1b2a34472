/**
 * A mesh radio on a serial line (USB CDC/FTDI dongle or a UART), speaking the framed link of
 * lib/mesh/serial-framing.ts (docs/serial-framing.md).
 *
 * One port is one link peer: the device at the other end. It is `up` while the port is open (or, with
 * `keepalive_ms`, while it answers). Its HELLO tells its address and wire versions; until then the radio assumes
 * the configured `wire_versions` (JSON only by default). When the port closes underneath us (unplugged, device
 * reset, read error) the peer goes down, the state becomes `degraded`, and the port is reopened with backoff,
 * forever: a USB radio that comes back an hour later is picked up again without a restart.
 */
import {
  decodeSerialHello,
  encodeSerialFrame,
  encodeSerialHello,
  SerialDeframer,
  type SerialFrame,
  SerialFrameType,
} from '../../../lib/mesh/serial-framing';
import { Backoff } from '../backoff';
import { RadioBase, type RadioBaseOptions } from '../radio-base';
import type { ResolvedSerialConfig } from '../radio-config';
import { RadioError, type RadioPeer } from '../radio';
import { loadSerialBackend, type SerialBackend, type SerialPortLike } from './serial-backend';
import { listSerialPorts, portMatches } from './serial-port-list';

export interface SerialRadioDeps {
  /** Default: the real `serialport` package, loaded on open. */
  backend?: SerialBackend;
  /** Our mesh address, announced in the HELLO. */
  localAddress?: string;
  random?: () => number;
  /** Where the port-list fallback scans (tests). */
  devDir?: string;
  sysDir?: string;
}

/** With keepalive on, the device counts as gone after this many silent periods. */
const MISSED_KEEPALIVES = 3;

export class SerialRadio extends RadioBase {
  readonly #config: ResolvedSerialConfig;
  readonly #deps: SerialRadioDeps;
  readonly #backoff: Backoff;
  readonly #deframer: SerialDeframer;
  #backend: SerialBackend | undefined;
  #port: SerialPortLike | undefined;
  #path: string | undefined;
  #retryTimer: unknown;
  #keepaliveTimer: unknown;
  #lastHeardAt = 0;
  #peerMaxFrame: number | undefined;
  #stopping = false;
  #route: 'fd' | 'serialport' | undefined;

  constructor(config: ResolvedSerialConfig, base: RadioBaseOptions, deps: SerialRadioDeps = {}) {
    super(config.id, 'serial', base);
    this.#config = config;
    this.#deps = deps;
    this.#backoff = new Backoff({ initialMs: config.reconnect.initialMs, maxMs: config.reconnect.maxMs, random: deps.random });
    this.#deframer = new SerialDeframer({
      maxPayload: config.maxFrameBytes,
      onDiscard: (e) => this.countDrop(`serial_${e.reason}`, { bytes: e.bytes }),
    });
  }

  /** The link id of the device at the other end. */
  get peerId(): string {
    return this.#config.peerId ?? (this.#config.path !== undefined ? `serial:${this.#config.path}` : `serial:${this.id}`);
  }

  /** The route the open port reads and writes by (`io`), once open. */
  get route(): 'fd' | 'serialport' | undefined {
    return this.#route;
  }

  /** The device path currently in use (resolved from `match` when configured so). */
  get path(): string | undefined {
    return this.#path;
  }

  protected override maxFrameBytes(_peer: RadioPeer): number {
    return this.#maxPayload();
  }

  /** Our limit, narrowed by the device's HELLO `max_frame`. */
  #maxPayload(): number {
    return Math.min(this.#config.maxFrameBytes, this.#peerMaxFrame ?? Infinity);
  }

  protected async doOpen(): Promise<void> {
    this.#backend = this.#deps.backend ?? loadSerialBackend();
    await this.#connect();
  }

  protected async doClose(): Promise<void> {
    this.#stopping = true;
    this.#clearTimers();
    const port = this.#port;
    this.#port = undefined;
    if (port !== undefined) {
      retire(port);
      if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
    }
  }

  protected async writeFrame(_peerId: string, frame: Uint8Array): Promise<void> {
    await this.#writeRaw(encodeSerialFrame(SerialFrameType.DATA, frame, this.#maxPayload()));
  }

  /**
   * The frames that queued behind the last write (a burst of ACKs) go out as one port write: on serialport's route
   * one write and one drain instead of a thread-pool round trip each per frame (the fd route joins them with the
   * first frame too). A frame the framing refuses (above the device's HELLO `max_frame`) fails alone.
   */
  protected override async writeFrames(_peerId: string, frames: Uint8Array[]): Promise<unknown[]> {
    const max = this.#maxPayload();
    const outcomes: unknown[] = [];
    const wire: Uint8Array[] = [];
    for (const frame of frames) {
      try {
        wire.push(encodeSerialFrame(SerialFrameType.DATA, frame, max));
        outcomes.push(undefined);
      } catch (err) {
        outcomes.push(err);
      }
    }
    if (wire.length > 0) await this.#writeRaw(wire.length === 1 ? wire[0]! : Buffer.concat(wire));
    return outcomes;
  }

  async #connect(): Promise<void> {
    if (this.#stopping) return;
    const resolved = await this.#resolvePath();
    if (typeof resolved !== 'string') {
      this.#scheduleReopen(resolved.problem);
      return;
    }
    const path = resolved;
    const attempt = await this.#openPort(path);
    if (this.#stopping) {
      if (attempt.port !== undefined) attempt.port.close();
      return;
    }
    if (attempt.port === undefined) {
      this.#scheduleReopen(`cannot open ${path}: ${attempt.error.message}`);
      return;
    }
    const { port } = attempt;
    this.#port = port;
    this.#path = path;
    this.#deframer.reset();
    this.#peerMaxFrame = undefined;
    this.#backoff.reset();
    port.on('data', (chunk) => this.#onData(chunk));
    port.on('error', (err) => this.log.warn({ radio: this.id, path, err: err.message }, 'serial port error'));
    port.on('close', (err) => this.#onClose(port, err));
    this.log.info({ radio: this.id, path, io: this.#route }, 'serial port open');
    this.setState('ready', path);
    this.#sendHello();
    if (this.#config.keepaliveMs > 0) {
      this.#lastHeardAt = this.clock.now();
      this.#armKeepalive();
    } else {
      this.#peerIsUp();
    }
  }

  /**
   * Opens `path` on the route `io` asks for. `auto` takes the fd route and falls back to serialport's stream only
   * when the route itself cannot serve this device (`UNSUPPORTED`): a missing or busy device fails either way.
   */
  async #openPort(path: string): Promise<{ port: SerialPortLike; error?: undefined } | { port?: undefined; error: Error }> {
    const backend = this.#backend!;
    const options = { path, baudRate: this.#config.baudRate };
    const { io } = this.#config;
    if (io === 'fd' && backend.createFdPort === undefined) {
      return { error: new RadioError('UNSUPPORTED', 'io: fd is not available on this platform', { path, route: 'fd' }) };
    }
    if (io !== 'serialport' && backend.createFdPort !== undefined) {
      const port = backend.createFdPort(options);
      const err = await opening(port);
      if (err === null) {
        this.#route = 'fd';
        return { port };
      }
      if (io === 'fd' || !(err instanceof RadioError && err.code === 'UNSUPPORTED')) return { error: err };
      this.log.warn({ radio: this.id, path, err: err.message }, 'serial fd route unavailable; using serialport stream');
    }
    const port = backend.createPort(options);
    const err = await opening(port);
    if (err !== null) return { error: err };
    this.#route = 'serialport';
    return { port };
  }

  async #resolvePath(): Promise<string | { problem: string }> {
    const { match } = this.#config;
    if (match === undefined) return this.#config.path as string;
    const listing = await listSerialPorts({ backend: this.#backend, devDir: this.#deps.devDir, sysDir: this.#deps.sysDir });
    if (listing.warning !== undefined) this.log.debug({ radio: this.id, warning: listing.warning }, 'serial port list');
    const found = listing.ports.find((p) => portMatches(p, match));
    if (found === undefined) {
      if (this.#config.path !== undefined) return this.#config.path;
      return { problem: `no serial port matches ${JSON.stringify(match)} (${listing.ports.length} listed)` };
    }
    return found.path;
  }

  #onData(chunk: Buffer): void {
    let frames: SerialFrame[];
    try {
      frames = this.#deframer.push(chunk, this.clock.now());
    } catch (err) {
      // The deframer only refuses non-byte input; a port never gives that, but a bug must not kill the radio.
      this.countDrop('serial_input', { err: String(err) });
      return;
    }
    for (const frame of frames) this.#onFrame(frame);
  }

  #onFrame(frame: SerialFrame): void {
    this.#lastHeardAt = this.clock.now();
    if (this.#config.keepaliveMs > 0 && this.peer(this.peerId)?.connected !== true) this.#peerIsUp();
    switch (frame.type) {
      case SerialFrameType.DATA:
        if (frame.payload.length === 0) this.countDrop('serial_empty_data');
        else this.deliver(this.peerId, frame.payload);
        return;
      case SerialFrameType.HELLO:
        this.#onHello(frame.payload);
        return;
      case SerialFrameType.PING:
        this.#writeRaw(encodeSerialFrame(SerialFrameType.PONG, frame.payload)).catch((err: unknown) =>
          this.log.debug({ radio: this.id, err: String(err) }, 'serial PONG not written'),
        );
        return;
      case SerialFrameType.PONG:
        return;
      default:
        this.countDrop('serial_unknown_type', { type: frame.type });
    }
  }

  #onHello(payload: Uint8Array): void {
    let hello;
    try {
      hello = decodeSerialHello(payload);
    } catch (err) {
      this.countDrop('serial_bad_hello', { err: err instanceof Error ? err.message : String(err) });
      return;
    }
    this.#peerMaxFrame = hello.maxFrame;
    const patch: Partial<RadioPeer> = { wireVersions: hello.wireVersions };
    if (hello.address !== undefined) patch.address = hello.address;
    this.log.info({ radio: this.id, address: hello.address, wireVersions: hello.wireVersions, name: hello.name }, 'serial peer HELLO');
    this.peerUpdate(this.peerId, patch);
  }

  #peerIsUp(): void {
    this.peerUp({ id: this.peerId, wireVersions: [...this.#config.wireVersions] });
  }

  #onClose(port: SerialPortLike, err?: (Error & { disconnected?: boolean }) | null): void {
    if (port !== this.#port) return;
    retire(port);
    this.#port = undefined;
    this.#clearKeepalive();
    if (this.#stopping) return;
    const reason = err?.disconnected === true ? 'unplugged' : err != null ? `closed: ${err.message}` : 'closed underneath';
    this.log.warn({ radio: this.id, path: this.#path, reason }, 'serial port lost');
    this.peerDown(this.peerId, reason);
    this.#scheduleReopen(`${this.#path ?? 'port'} ${reason}`);
  }

  #scheduleReopen(detail: string): void {
    if (this.#stopping) return;
    const delay = this.#backoff.next();
    this.setState('degraded', `${detail}; retrying in ${delay} ms`);
    this.clock.clearTimeout(this.#retryTimer);
    this.#retryTimer = this.clock.setTimeout(() => {
      this.#retryTimer = undefined;
      void this.#connect();
    }, delay);
  }

  #sendHello(): void {
    const hello = encodeSerialHello({
      role: 'gateway',
      wireVersions: [1],
      maxFrame: this.#config.maxFrameBytes,
      ...(this.#deps.localAddress !== undefined ? { address: this.#deps.localAddress } : {}),
    });
    this.#writeRaw(encodeSerialFrame(SerialFrameType.HELLO, hello)).catch((err: unknown) =>
      this.log.debug({ radio: this.id, err: String(err) }, 'serial HELLO not written'),
    );
  }

  #armKeepalive(): void {
    const every = this.#config.keepaliveMs;
    this.#keepaliveTimer = this.clock.setTimeout(() => {
      if (this.#port === undefined) return;
      if (this.clock.now() - this.#lastHeardAt >= every * MISSED_KEEPALIVES) {
        this.peerDown(this.peerId, `silent for ${MISSED_KEEPALIVES} keepalive periods`);
      }
      const stamp = new Uint8Array(8);
      new DataView(stamp.buffer).setFloat64(0, this.clock.now());
      this.#writeRaw(encodeSerialFrame(SerialFrameType.PING, stamp)).catch(() => undefined);
      this.#armKeepalive();
    }, every);
  }

  #writeRaw(bytes: Uint8Array): Promise<void> {
    const port = this.#port;
    if (port === undefined || !port.isOpen) {
      return Promise.reject(new RadioError('PEER_LOST', `serial port of radio ${this.id} is not open`, { radioId: this.id }));
    }
    const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (port.enqueue !== undefined) return port.enqueue(data);
    return new Promise<void>((resolve, reject) => {
      // The write callback fires once the binding has taken these bytes (a frame queued behind another has not);
      // drain then waits for the OS to transmit them (`tcdrain`).
      port.write(data, (err) => {
        if (err) reject(err);
        else port.drain((drainErr) => (drainErr ? reject(drainErr) : resolve()));
      });
    });
  }

  #clearKeepalive(): void {
    if (this.#keepaliveTimer !== undefined) this.clock.clearTimeout(this.#keepaliveTimer);
    this.#keepaliveTimer = undefined;
  }

  #clearTimers(): void {
    if (this.#retryTimer !== undefined) this.clock.clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#clearKeepalive();
  }
}

function opening(port: SerialPortLike): Promise<Error | null> {
  return new Promise((resolve) => port.open((err) => resolve(err)));
}

/**
 * Detach a port we are done with. A write still in flight when a port closes fails *after* the close, as an
 * `error` event on the stream; without a listener Node would turn it into an uncaught exception.
 */
function retire(port: SerialPortLike): void {
  port.removeAllListeners();
  port.on('error', () => undefined);
}
