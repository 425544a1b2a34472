/**
 * The ACK stall of the serial bench (issue 26: "N ACKs never arrived" under load), looked for on a real pty.
 *
 * Suspect: @serialport/bindings-cpp 13's poller. Its native `poll(events)` starts libuv's poll handle with the events
 * of *this* call only, not with all it was asked for. serialport's stream asks it for "writable" when a write meets
 * EAGAIN (the device reads slower than we write) and for "readable" when a read meets EAGAIN: a read that waits
 * after a write has begun waiting takes the writable interest away, and the write waits until some byte comes in.
 * A device that is itself waiting for our ACKs sends none: both ends wait for ever.
 *
 * The first test pins that behaviour of the dependency (when it fails, bindings-cpp has fixed its poller and
 * `io: serialport` no longer stalls: docs/radios.md says what to revisit). The second shows the fd route (the
 * default) in the same state writing everything out with nothing coming in.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { SerialPort } from 'serialport';
import { PtyLink } from '../../../../devble/pty';
import { FdSerialPort, type BindingOpener } from '../../../../gateway/radios/serial/fd-serial-port';
import { wakeAfterPollerEvents } from '../../../../gateway/radios/serialport-wakeup';
import { eventually } from '../../support/broker';

interface Poller {
  once(event: 'readable' | 'writable', listener: (err: Error | null) => void): void;
}

interface BindingPort {
  readonly fd: number;
  readonly poller: Poller;
  close(): Promise<void>;
}

/** Writes to the non-blocking `fd` until the kernel refuses (EAGAIN); returns how many bytes it took. */
function fill(fd: number): number {
  const chunk = Buffer.alloc(4096, 0x5a);
  let total = 0;
  for (;;) {
    try {
      total += fs.writeSync(fd, chunk);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return total;
      throw err;
    }
  }
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('gateway/radios/serial the ACK stall (real pty, device not reading)', function () {
  this.timeout(30_000);
  let pty: PtyLink;
  let atMaster = 0;
  beforeEach(async () => {
    pty = await PtyLink.open();
    atMaster = 0;
    pty.on('data', (c) => {
      atMaster += c.length;
    });
  });
  afterEach(async () => {
    pty.release();
    await pty.close();
  });

  it("bindings-cpp's poller: a read waiting after a write drops the write's interest; the write waits for a byte in", async () => {
    wakeAfterPollerEvents();
    const port = (await (SerialPort.binding as unknown as { open(o: { path: string; baudRate: number }): Promise<BindingPort> }).open({ path: pty.path, baudRate: 115200 }));
    try {
      pty.hold();
      const written = fill(port.fd);
      const events: string[] = [];
      // What serialport's stream does: its write met EAGAIN, then its read did.
      port.poller.once('writable', () => events.push('writable'));
      port.poller.once('readable', () => events.push('readable'));
      pty.release();
      // Every byte is off the slave: it has room again, for a while already.
      await eventually(() => atMaster >= written, 10_000, 'the master to read what was written');
      await turn();
      assert.deepEqual(events, [], "no 'writable': nothing watches for it any more");
      pty.write(Buffer.from([0x01]));
      await eventually(() => events.length === 2, 10_000, 'both events');
      assert.deepEqual(events, ['readable', 'writable'], "'writable' comes only once a byte came in");
    } finally {
      await port.close();
    }
  });

  it('the fd route: a write the kernel refused goes out when the device reads again, with a read waiting and no byte in', async () => {
    const port = new FdSerialPort({ path: pty.path, baudRate: 115200, binding: SerialPort.binding as unknown as BindingOpener });
    assert.equal(await new Promise((resolve) => port.open(resolve)), null);
    try {
      let atPort = 0;
      port.on('data', (c: Buffer) => {
        atPort += c.length;
      });
      pty.hold();
      const payload = Buffer.alloc(1 << 20, 0xa5);
      let done = false;
      const written = new Promise<Error | null | undefined>((resolve) =>
        port.write(payload, (err) => {
          done = true;
          resolve(err);
        }),
      );
      await turn();
      assert.equal(done, false, 'the kernel took only part of it');
      pty.release();
      assert.equal(await written, null);
      await eventually(() => atMaster >= payload.length, 10_000, 'every byte at the master');
      assert.equal(atMaster, payload.length);
      assert.equal(atPort, 0, 'nothing came in to wake the write');
    } finally {
      await new Promise((resolve) => port.close(resolve));
    }
  });
});
