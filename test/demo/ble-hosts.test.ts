/**
 * demo/ble-hosts.ts: noble and bleno on the virtual controller's ptys, several in one process, leave the process's
 * `exit` and `SIGINT` listeners as they were (each stack would add two of each: a MaxListenersExceededWarning at
 * eleven `exit` listeners), and still power on and stop.
 */
import assert from 'node:assert/strict';
import { VirtualBle } from '../../devble';
import { blenoOnUart, nobleOnUart } from '../../demo/ble-hosts';
import { quietenStoppedBleno } from '../../gateway/radios/ble/ble-bleno';

function poweredOn(stack: { readonly state: string; on(event: 'stateChange', listener: (state: string) => void): unknown }): Promise<void> {
  return stack.state === 'poweredOn' ? Promise.resolve() : new Promise((resolve) => stack.on('stateChange', (s) => s === 'poweredOn' && resolve()));
}

describe('demo/ble-hosts noble and bleno on the virtual controller', function () {
  this.timeout(60_000);

  it('six stacks in one process add no exit or SIGINT listener, and power on', async () => {
    const ble = new VirtualBle();
    const emitter = process as unknown as NodeJS.EventEmitter;
    const exitBefore = emitter.listenerCount('exit');
    const sigintBefore = emitter.listenerCount('SIGINT');
    try {
      const hosts = await Promise.all(Array.from({ length: 6 }, () => ble.host()));
      const nobles = hosts.slice(0, 3).map((h) => nobleOnUart(h.path));
      const blenos = hosts.slice(3).map((h) => blenoOnUart(h.path));
      await Promise.all([...nobles, ...blenos].map(poweredOn));
      assert.equal(emitter.listenerCount('exit'), exitBefore, 'exit listeners');
      assert.equal(emitter.listenerCount('SIGINT'), sigintBefore, 'SIGINT listeners');
      for (const noble of nobles) noble.stop();
      for (const bleno of blenos) {
        bleno.stop();
        quietenStoppedBleno(bleno);
      }
      assert.equal(emitter.listenerCount('exit'), exitBefore, 'exit listeners after stop');
    } finally {
      await ble.close();
    }
  });

  it('a write that fails after stop (it lost the race to the port\'s close) is absorbed, not thrown', async () => {
    const ble = new VirtualBle();
    try {
      const [a, b] = await Promise.all([ble.host(), ble.host()]);
      const stacks = [nobleOnUart(a.path), blenoOnUart(b.path)];
      await Promise.all(stacks.map(poweredOn));
      const ports = stacks.map((stack) => serialPortOf(stack));
      stacks[0].stop();
      stacks[1].stop();
      quietenStoppedBleno(stacks[1] as ReturnType<typeof blenoOnUart>);
      // What bindings-cpp reports when the thread pool runs the close before a queued write.
      for (const port of ports) assert.doesNotThrow(() => port.emit('error', Object.assign(new Error('EBADF: bad file descriptor, write'), { code: 'EBADF' })));
    } finally {
      await ble.close();
    }
  });
});

function serialPortOf(stack: object): NodeJS.EventEmitter {
  const port = (stack as { _bindings?: { _hci?: { _socket?: { _serialDevice?: NodeJS.EventEmitter } } } })._bindings?._hci?._socket?._serialDevice;
  assert.ok(port !== undefined, 'the UART socket has a serial port');
  return port;
}
