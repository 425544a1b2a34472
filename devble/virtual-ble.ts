/**
 * One virtual air, and per BLE host a pty with a virtual controller on its master side. A host (noble or bleno, in
 * this process or a child) opens `path` as its HCI UART. The tests, the bench and `npm start -- --virtual-ble` use it.
 */
import { VirtualAir, type AirOptions } from './air';
import { type ControllerOptions, VirtualController } from './controller';
import { PtyLink, type PtyOptions } from './pty';

export type VirtualBleOptions = AirOptions & PtyOptions;

export interface VirtualHost {
  /** The pty slave the host opens (`BLUETOOTH_HCI_SOCKET_UART_PORT`, or `bindParams.uart.port`). */
  readonly path: string;
  readonly controller: VirtualController;
  close(): Promise<void>;
}

export class VirtualBle {
  readonly air: VirtualAir;
  private readonly hosts: VirtualHost[] = [];
  private readonly pty: PtyOptions;

  constructor(options: VirtualBleOptions = {}) {
    this.air = new VirtualAir(options);
    this.pty = options.python === undefined ? {} : { python: options.python };
  }

  /** A new controller in the air and the pty its host opens. Rejects with `DevBleError` (pty.ts) when no pty opens. */
  async host(options: ControllerOptions = {}): Promise<VirtualHost> {
    const pty = await PtyLink.open(this.pty);
    const trace = options.trace ?? (process.env.BLE_CONTROLLER_TRACE === '1' ? (line: string) => process.stderr.write(`${line}\n`) : undefined);
    const controller = new VirtualController(this.air, pty, { ...options, trace });
    const host: VirtualHost = {
      path: pty.path,
      controller,
      close: async () => {
        controller.detach();
        await pty.close();
      },
    };
    this.hosts.push(host);
    return host;
  }

  /** Every rule any host broke (flow control, sizes); a test asserts this is empty at the end. */
  violations(): string[] {
    return this.hosts.flatMap((h) => h.controller.violations.map((v) => `${h.controller.address}: ${v}`));
  }

  /** Ends every host's pty relay (no child process is left) and the air's timer. */
  async close(): Promise<void> {
    await Promise.all(this.hosts.splice(0).map((host) => host.close()));
    this.air.close();
  }
}
