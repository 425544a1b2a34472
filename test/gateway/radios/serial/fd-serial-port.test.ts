/**
 * The serial radio's fd route on a real pseudo-terminal: serialport's binding opens and configures the slave, a libuv
 * TTY stream reads and writes it (gateway/radios/serial/fd-serial-port.ts), the test holds the master (devble/pty.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tty from 'node:tty';
import { SerialPort } from 'serialport';
import { PtyLink } from '../../../../devble/pty';
import { RadioError } from '../../../../gateway/radios/radio';
import { FdSerialPort, type BindingOpener } from '../../../../gateway/radios/serial/fd-serial-port';
import { eventually } from '../../support/broker';

const binding = SerialPort.binding as unknown as BindingOpener;

const opened = (port: { open(cb: (err: Error | null) => void): void }): Promise<Error | null> => new Promise((resolve) => port.open(resolve));

/** This process's fds that point at `target`. */
function fdsOn(target: string): number {
  let n = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) === target) n += 1;
    } catch {
      // closed while listing (the listing's own fd)
    }
  }
  return n;
}

describe('gateway/radios/serial FdSerialPort (real pty)', function () {
  this.timeout(30_000);
  let pty: PtyLink;
  let port: FdSerialPort | undefined;
  beforeEach(async () => {
    pty = await PtyLink.open();
  });
  afterEach(async () => {
    if (port?.isOpen) await new Promise((r) => port!.close(r));
    port = undefined;
    await pty.close();
  });

  it('carries every byte value both ways, and a 1 MiB write whole, through the kernel refusing it part-way', async () => {
    port = new FdSerialPort({ path: pty.path, baudRate: 115200, binding });
    assert.equal(await opened(port), null);
    assert.ok(port.isOpen);
    const atMaster: Buffer[] = [];
    const atPort: Buffer[] = [];
    pty.on('data', (c) => atMaster.push(c));
    port.on('data', (c: Buffer) => atPort.push(c));
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    pty.write(Buffer.from(all).reverse());
    await eventually(() => Buffer.concat(atPort).length >= 256, 10_000, 'the bytes at the port');
    assert.deepEqual(Buffer.concat(atPort), Buffer.from(all).reverse());
    const big = Buffer.alloc(1 << 20);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
    const payload = Buffer.concat([all, big]);
    const written = new Promise<Error | null | undefined>((resolve) => port!.write(payload, resolve));
    assert.equal(await written, null);
    await new Promise<void>((resolve, reject) => port!.drain((err) => (err ? reject(err) : resolve())));
    await eventually(() => Buffer.concat(atMaster).length >= payload.length, 10_000, 'the bytes at the master');
    assert.ok(Buffer.concat(atMaster).equals(payload));
  });

  it('enqueue: what one loop turn hands over leaves in one write, in order, each resolving', async () => {
    port = new FdSerialPort({ path: pty.path, baudRate: 115200, binding });
    assert.equal(await opened(port), null);
    const atMaster: Buffer[] = [];
    pty.on('data', (c) => atMaster.push(c));
    const write = tty.ReadStream.prototype.write;
    let writes = 0;
    tty.ReadStream.prototype.write = function (this: tty.ReadStream, ...args: unknown[]) {
      writes += 1;
      return (write as (...a: unknown[]) => boolean).apply(this, args);
    } as typeof write;
    try {
      const frames = Array.from({ length: 50 }, (_, i) => Buffer.from(`frame ${i};`));
      await Promise.all(frames.map((f) => port!.enqueue(f)));
      await eventually(() => Buffer.concat(atMaster).length >= Buffer.concat(frames).length, 10_000, 'the frames at the master');
      assert.equal(writes, 1);
      assert.deepEqual(Buffer.concat(atMaster), Buffer.concat(frames));
    } finally {
      tty.ReadStream.prototype.write = write;
    }
  });

  it('enqueue: past 64 KiB waiting, resolves only once a device that stopped reading reads again', async () => {
    port = new FdSerialPort({ path: pty.path, baudRate: 115200, binding });
    assert.equal(await opened(port), null);
    let atMaster = 0;
    pty.on('data', (c) => {
      atMaster += c.length;
    });
    pty.hold();
    try {
      const chunk = Buffer.alloc(16 * 1024, 0x33);
      let sent = 0;
      let waiting: Promise<void> | undefined;
      // Fill the kernel's buffer and then the stream's, one loop turn at a time, until a write has to wait.
      while (waiting === undefined) {
        let resolved = false;
        const p = port.enqueue(chunk).then(() => {
          resolved = true;
        });
        sent += chunk.length;
        await new Promise((r) => setImmediate(r));
        await new Promise((r) => setImmediate(r));
        if (!resolved) waiting = p;
      }
      let done = false;
      void waiting.then(() => {
        done = true;
      });
      await new Promise((r) => setImmediate(r));
      assert.equal(done, false);
      pty.release();
      await waiting;
      await eventually(() => atMaster >= sent, 10_000, 'every byte at the master');
      assert.equal(atMaster, sent);
    } finally {
      pty.release();
    }
  });

  it("keeps serialport's lock while open (a second open of the device is refused) and closes every fd it opened", async () => {
    const before = fdsOn(pty.path);
    port = new FdSerialPort({ path: pty.path, baudRate: 115200, binding });
    assert.equal(await opened(port), null);
    assert.ok(fdsOn(pty.path) > before, 'the port holds the device');
    const other = new SerialPort({ path: pty.path, baudRate: 115200, autoOpen: false });
    const refused = await opened(other);
    assert.match(String(refused?.message), /lock/i, 'the binding still holds its flock');
    await new Promise((r) => port!.close(r));
    assert.equal(port.isOpen, false);
    assert.equal(fdsOn(pty.path), before);
  });

  it('reports the far end going away as a close with `disconnected`', async () => {
    port = new FdSerialPort({ path: pty.path, baudRate: 115200, binding });
    assert.equal(await opened(port), null);
    const before = fdsOn(pty.path);
    const closed = new Promise<(Error & { disconnected?: boolean }) | null | undefined>((resolve) => port!.on('close', resolve));
    port.on('error', () => undefined);
    await pty.close();
    const err = await closed;
    assert.equal(err?.disconnected, true);
    assert.equal(port.isOpen, false);
    assert.ok(fdsOn(pty.path) < before, 'its fds are closed');
  });

  it('refuses a device that is not a terminal as UNSUPPORTED, closing what it opened', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-route-'));
    const file = path.join(dir, 'not-a-tty');
    fs.writeFileSync(file, '');
    let bindingFd: number | undefined;
    let bindingClosed = false;
    // A binding that opens a plain file, as serialport's would open a device node.
    const plain: BindingOpener = {
      open: async () => {
        bindingFd = fs.openSync(file, 'r+');
        return { fd: bindingFd, close: async () => { fs.closeSync(bindingFd!); bindingClosed = true; } };
      },
    };
    try {
      const p = new FdSerialPort({ path: file, baudRate: 115200, binding: plain });
      const err = await opened(p);
      assert.ok(err instanceof RadioError && err.code === 'UNSUPPORTED', String(err));
      assert.equal(bindingClosed, true);
      assert.equal(fdsOn(file), 0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
