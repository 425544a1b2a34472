/**
 * One Bluetooth controller the gateway owns (a UART dongle or pty, or an adapter on the HCI user channel), shared by noble and bleno through the HCI
 * multiplexer: opens the transport, resets and reads the controller once, and builds each stack over its endpoint.
 *
 * The stacks are the packages' own HCI code; they are built with the UART driver name only because its constructor
 * touches nothing, and their socket is then replaced by the endpoint (hci-endpoint.ts). Each stack, once started,
 * hangs `exit` and `SIGINT` handlers on the process; the gateway owns both, so they are taken off again.
 */
import { BleTransportError } from './errors';
import { withoutProcessHandlers } from './process-handlers';
import { backgroundClock, type TimerHandle } from '../../../lib/clock';
import { HciEndpoint, overStack } from './hci-endpoint';
import { type ControllerInfo, HciMux, type HciMuxOptions, type HciRole } from './hci-mux';
import { type HciTransport, HciUartTransport, type UartOptions } from './hci-uart';
import { HciUserChannelTransport, type UserChannelOptions } from './hci-user-channel';
import type { BlenoLike } from './ble-bleno';
import type { NobleLike } from './ble-noble';

/** How long the controller has to answer Reset and the identity reads: wrong baud rate or non-HCI firmware is silent. */
export const HCI_ANSWER_TIMEOUT_MS = 1_000;
/** Watchdog period: a command unanswered over two periods means the controller stopped answering. */
const WATCHDOG_MS = 1_000;

type Resolve<T> = (type: string, options: Record<string, unknown>) => T;

/** The driver options the stacks are built with; the port is never opened by them. */
const STACK_OPTIONS = { hciDriver: 'uart', bindParams: { uart: { port: 'hci-mux', baudRate: 1_000_000 } } };

export interface HciControllerEvents {
  /** The controller failed (garbage, silence, unplugged); the owner closes and reopens with backoff. */
  onFault?(reason: string, code: string): void;
  /** Every HCI packet through the multiplexer (HciMuxOptions.trace). */
  trace?: HciMuxOptions['trace'];
}

export class HciController {
  readonly #transport: HciTransport;
  readonly #mux: HciMux;
  readonly #endpoints: Record<HciRole, HciEndpoint>;
  readonly #events: HciControllerEvents;
  #closed = false;
  #watchdog: TimerHandle | undefined;

  /** A UART (`path`) or a user-channel adapter (`index`). */
  constructor(source: UartOptions | UserChannelOptions, events: HciControllerEvents = {}) {
    this.#events = events;
    const transportEvents = {
      packet: (packet: Buffer) => this.#mux.receive(packet),
      failed: (err: BleTransportError) => this.#fault(err.message, err.code),
    };
    this.#transport = 'index' in source ? new HciUserChannelTransport(source, transportEvents) : new HciUartTransport(source, transportEvents);
    this.#mux = new HciMux({
      write: (packet) => this.#transport.write(packet),
      onFault: (reason) => this.#fault(reason, 'GARBAGE'),
      trace: events.trace,
      onReady: () => {
        this.#endpoints.central.readyChanged();
        this.#endpoints.peripheral.readyChanged();
      },
    });
    this.#endpoints = { central: new HciEndpoint(this.#mux, 'central'), peripheral: new HciEndpoint(this.#mux, 'peripheral') };
  }

  get path(): string {
    return this.#transport.path;
  }

  get mux(): HciMux {
    return this.#mux;
  }

  get info(): ControllerInfo | undefined {
    return this.#mux.info;
  }

  /**
   * Opens the transport, resets the controller and reads its version, address and buffers. Rejects with
   * `BleTransportError`: `NO_DEVICE`, `PERMISSION`, `IN_USE`, `HELD_BY_BLUEZ`, `UNSUPPORTED` (user channel), or
   * `NO_ANSWER` after HCI_ANSWER_TIMEOUT_MS.
   */
  async open(): Promise<ControllerInfo> {
    await this.#transport.open();
    const ready = new Promise<void>((resolve, reject) => {
      const timer = backgroundClock.setTimeout(() => {
        reject(new BleTransportError('NO_ANSWER', `${this.path}: no HCI answer within ${HCI_ANSWER_TIMEOUT_MS} ms (${this.#transport.silenceHint})`, { path: this.path }));
      }, HCI_ANSWER_TIMEOUT_MS);
      const poll = (): void => {
        if (this.#mux.ready) {
          backgroundClock.clearTimeout(timer);
          resolve();
        }
      };
      this.#endpoints.central.on('state', poll);
      this.#mux.start();
      poll();
    });
    try {
      await ready;
    } catch (err) {
      await this.#transport.close();
      throw err;
    } finally {
      this.#endpoints.central.removeAllListeners('state');
    }
    this.#startWatchdog();
    const info = this.#mux.info;
    if (info === undefined) throw new BleTransportError('NO_ANSWER', `${this.path}: the controller did not report its version and address`, { path: this.path });
    return info;
  }

  /** noble over the central endpoint; `legacy` as in NobleFactory. Started at once. */
  noble(legacy: boolean): NobleLike {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const withBindings = require('@stoprocent/noble/lib/resolve-bindings') as Resolve<NobleLike>;
    const noble = withBindings('hci', legacy ? { ...STACK_OPTIONS, extended: false } : STACK_OPTIONS);
    overStack((noble as unknown as { _bindings: object })._bindings, this.#endpoints.central);
    // Reading `state` starts noble's binding at once.
    withoutProcessHandlers(() => void noble.state);
    return noble;
  }

  /** bleno over the peripheral endpoint. Started at once. */
  bleno(): BlenoLike {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const withBindings = require('@stoprocent/bleno/lib/resolve-bindings') as Resolve<BlenoLike>;
    const bleno = withBindings('hci', STACK_OPTIONS);
    overStack((bleno as unknown as { _bindings: object })._bindings, this.#endpoints.peripheral);
    withoutProcessHandlers(() => bleno.on('stateChange', () => undefined));
    return bleno;
  }

  #startWatchdog(): void {
    let seen = -1;
    let quiet = 0;
    // A re-armed timeout on the background clock (unref'd: a watchdog must not keep a stopping gateway alive).
    const tick = (): void => {
      this.#watchdog = undefined;
      if (this.#closed) return;
      const { answers, outstanding } = this.#mux.liveness();
      if (answers !== seen) {
        seen = answers;
        quiet = 0;
        if (outstanding === 0) this.#mux.ping();
      } else if (outstanding === 0) {
        this.#mux.ping();
      } else {
        quiet++;
        if (quiet >= 2) {
          this.#fault(`the controller stopped answering (no HCI answer for ${(quiet * WATCHDOG_MS) / 1000} s)`, 'NO_ANSWER');
          return;
        }
      }
      this.#watchdog = backgroundClock.setTimeout(tick, WATCHDOG_MS);
    };
    this.#watchdog = backgroundClock.setTimeout(tick, WATCHDOG_MS);
  }

  async close(): Promise<void> {
    this.#closed = true;
    backgroundClock.clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
    this.#endpoints.central.stop();
    this.#endpoints.peripheral.stop();
    await this.#transport.close();
  }

  #fault(reason: string, code: string): void {
    if (this.#closed) return;
    const err = new BleTransportError('CLOSED', reason);
    this.#endpoints.central.fail(err);
    this.#endpoints.peripheral.fail(err);
    this.#events.onFault?.(reason, code);
  }
}
