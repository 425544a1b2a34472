/**
 * What the kernel's HCI user channel gives the gateway, played by a devble controller in this process: a socket
 * bound to one adapter that carries whole H4 packets each way, one binder at a time (a second bind fails as the
 * kernel's does, EUSERS), and the adapter's packets delivered asynchronously, as reads from a socket arrive. This
 * machine has no Bluetooth sockets, so this is how the user-channel transport's bytes reach a controller in tests.
 */
import { EventEmitter } from 'node:events';
import type { HciSocketLike } from '../../../../../gateway/radios/ble/hci-user-channel';
import type { VirtualAir } from '../../../../../devble/air';
import { VirtualController } from '../../../../../devble/controller';

export class VirtualUserChannel {
  readonly controller: VirtualController;
  /** What the controller's host side hears: the bound socket's writes. */
  readonly #hostSide = new EventEmitter();
  #bound: VirtualSocket | undefined;
  /** Sockets handed out, for tests that look at how many opens there were. */
  opened = 0;

  constructor(air: VirtualAir) {
    const hostSide = this.#hostSide;
    this.controller = new VirtualController(air, {
      write: (data: Buffer) => {
        const to = this.#bound;
        const copy = Buffer.from(data);
        setImmediate(() => to?.deliver(copy));
      },
      on: (event: 'data', listener: (chunk: Buffer) => void) => hostSide.on(event, listener),
    });
  }

  /** A new, unbound socket (what `new BluetoothHciSocket()` is). */
  socket(): HciSocketLike {
    this.opened++;
    return new VirtualSocket(this);
  }

  bind(socket: VirtualSocket): void {
    if (this.#bound !== undefined && this.#bound !== socket) throw new Error('Too many users');
    this.#bound = socket;
  }

  unbind(socket: VirtualSocket): void {
    if (this.#bound === socket) this.#bound = undefined;
  }

  toController(packet: Buffer): void {
    this.#hostSide.emit('data', Buffer.from(packet));
  }

  close(): void {
    this.#bound = undefined;
    this.controller.detach();
  }
}

class VirtualSocket extends EventEmitter implements HciSocketLike {
  readonly #channel: VirtualUserChannel;
  #started = false;
  #bound = false;

  constructor(channel: VirtualUserChannel) {
    super();
    this.#channel = channel;
  }

  bindUser(devId: number): number {
    this.#channel.bind(this);
    this.#bound = true;
    return devId;
  }

  start(): void {
    this.#started = true;
  }

  stop(): void {
    this.#started = false;
    this.#bound = false;
    this.#channel.unbind(this);
  }

  write(packet: Buffer): void {
    if (this.#bound) this.#channel.toController(packet);
  }

  deliver(packet: Buffer): void {
    if (this.#started) this.emit('data', packet);
  }
}
