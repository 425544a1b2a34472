/**
 * noble and bleno on their UART HCI driver, each to the pty of a virtual controller (devble/): everything from the
 * HCI packets up (HCI, L2CAP, ATT, GATT) is the packages' own code.
 *
 * The loaders require the binding resolvers, not the packages' index files (which build a default instance at
 * require time), and name the UART driver, so nothing depends on BLUETOOTH_HCI_SOCKET_* variables: setting them in
 * this process would switch every other noble of the process to the UART driver too.
 *
 * Each stack, once started, hangs handlers on the process: an `exit` handler in noble's or bleno's binding and
 * another in the UART socket (both send the controller a last command), and a SIGINT handler that exits the process
 * when it is the last one. With several stacks in one process (the demo runs four, a two-gateway test five) that
 * is ten `exit` listeners and more, which Node reports as a leak, and a SIGINT that could end the process before its
 * owner stopped it. A virtual controller ends with the process that holds its pty relay, so a command written at
 * exit reaches nothing; the owner of the stacks stops them itself. So the loaders start each stack at once and take
 * its process handlers off again.
 *
 * The UART socket's `stop()` closes its serial port and takes every listener off it, while a command the stack
 * wrote just before (bleno's stopAdvertising, an answer to a link going down) may still be in the thread pool: when
 * the close runs first, that write fails with EBADF on a port nobody listens to, and the process gets an uncaught
 * error (seen once in CI, in a test's cleanup). The loaders keep a sink on the stopped port.
 */
import type { BlenoLike } from '../gateway/radios/ble/ble-bleno';
import { withoutProcessHandlers } from '../gateway/radios/ble/process-handlers';
import type { NobleLike } from '../gateway/radios/ble/ble-noble';

type Resolve<T> = (type: string, options: Record<string, unknown>) => T;

function uart(path: string): Record<string, unknown> {
  return { hciDriver: 'uart', bindParams: { uart: { port: path, baudRate: 1_000_000 } } };
}

/** noble on the UART driver; legacy commands, as the gateway uses when bleno shares its controller. */
export function nobleOnUart(path: string): NobleLike {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const withBindings = require('@stoprocent/noble/lib/resolve-bindings') as Resolve<NobleLike>;
  const noble = withBindings('hci', { ...uart(path), extended: false });
  // Reading `state` starts noble's binding at once (a `stateChange` listener would start it on the next tick).
  withoutProcessHandlers(() => void noble.state);
  absorbLateWriteErrors(noble);
  return noble;
}

/** bleno on the UART driver. */
export function blenoOnUart(path: string): BlenoLike {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const withBindings = require('@stoprocent/bleno/lib/resolve-bindings') as Resolve<BlenoLike>;
  const bleno = withBindings('hci', uart(path));
  // bleno starts its binding when the first `stateChange` listener is added.
  withoutProcessHandlers(() => bleno.on('stateChange', () => undefined));
  absorbLateWriteErrors(bleno);
  return bleno;
}

interface UartSocket {
  _serialDevice?: { on(event: 'error', listener: () => void): unknown } | null;
  stop(): void;
}

/** After the UART socket stops, an error its serial port reports (a write that lost the race to the close) is dropped. */
function absorbLateWriteErrors(stack: NobleLike | BlenoLike): void {
  const socket = (stack as unknown as { _bindings?: { _hci?: { _socket?: UartSocket } } })._bindings?._hci?._socket;
  if (socket === undefined || typeof socket.stop !== 'function') return;
  const stop = socket.stop.bind(socket);
  socket.stop = () => {
    const port = socket._serialDevice;
    stop();
    port?.on('error', () => undefined);
  };
}
