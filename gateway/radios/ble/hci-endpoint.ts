/**
 * What noble's and bleno's HCI code sees in place of their socket when they share a controller through the
 * multiplexer: the calls their `Hci` makes on a `@stoprocent/bluetooth-hci-socket` driver (bind, start, stop,
 * isDevUp, setFilter, write) and its `data` / `state` / `error` events.
 *
 * Neither package takes a socket object, only a driver name, so `overStack` puts the endpoint in place of the
 * socket their `Hci` built, after construction and before `init()` (which is the first use of the socket):
 * bleno builds its `Hci` in the bindings' constructor, noble in `start()`, hence the setter trap on noble's side.
 * The driver object they built (the UART one, chosen because its constructor opens nothing) is never used.
 */
import { EventEmitter } from 'node:events';
import type { HciMux, HciRole } from './hci-mux';

export class HciEndpoint extends EventEmitter {
  readonly #mux: HciMux;
  readonly #role: HciRole;
  #started = false;

  constructor(mux: HciMux, role: HciRole) {
    super();
    this.#mux = mux;
    this.#role = role;
  }

  /** The device id the stack keeps (bleno assigns the return value); meaningless here. */
  bindRaw(): number {
    return 0;
  }

  bindUser(): number {
    return 0;
  }

  bindControl(): void {}

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#mux.attach(this.#role, (packet) => this.emit('data', packet));
  }

  stop(): void {
    if (!this.#started) return;
    this.#started = false;
    this.#mux.detach(this.#role);
  }

  isDevUp(): boolean {
    return this.#mux.ready;
  }

  /** The kernel's socket filter; the multiplexer routes instead. */
  setFilter(): void {}

  /** The UART driver's own Reset on bind; the multiplexer resets the controller itself. */
  reset(): void {}

  write(packet: Buffer): void {
    if (this.#started) this.#mux.send(this.#role, Buffer.from(packet));
  }

  /** Called by the owner when the multiplexer's readiness changes: both stacks poll `isDevUp` on `state`. */
  readyChanged(): void {
    this.emit('state', this.#mux.ready);
  }

  /** A transport failure, as the native socket reports one. */
  fail(err: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', err);
  }
}

interface HciHolder {
  _socket?: unknown;
}

interface StackBindings {
  _hci?: HciHolder | null;
}

/**
 * Makes the stack whose bindings object is `bindings` use `endpoint` as its HCI socket. Works whether the bindings
 * already built their `Hci` (bleno) or build it when started (noble).
 */
export function overStack(bindings: StackBindings, endpoint: HciEndpoint): void {
  if (bindings._hci !== null && bindings._hci !== undefined) {
    bindings._hci._socket = endpoint;
    return;
  }
  let hci: HciHolder | null | undefined = bindings._hci;
  Object.defineProperty(bindings, '_hci', {
    configurable: true,
    enumerable: true,
    get: () => hci,
    set: (value: HciHolder | null | undefined) => {
      hci = value;
      if (value !== null && value !== undefined) value._socket = endpoint;
    },
  });
}
