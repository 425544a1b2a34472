import assert from 'node:assert/strict';
import { SerialPort } from 'serialport';
import os from 'node:os';
import path from 'node:path';
import { PtyLink } from '../../devble/pty';

describe('devble PtyLink (python3-relayed pseudo-terminal)', () => {
  it('carries bytes both ways, unaltered, between the master side and a serial port opened on the slave', async () => {
    const pty = await PtyLink.open();
    assert.match(pty.path, /^\/dev\/pts\/\d+$/);
    const port = new SerialPort({ path: pty.path, baudRate: 1_000_000, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
    try {
      // Every byte value, including the ones a cooked tty would translate (CR, LF, ^C, ^D, XON/XOFF).
      const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      const fromHost: Buffer[] = [];
      pty.on('data', (chunk) => fromHost.push(chunk));
      port.write(all);
      const toHost: Buffer[] = [];
      port.on('data', (chunk: Buffer) => toHost.push(chunk));
      pty.write(Buffer.from(all).reverse());
      const until = Date.now() + 5_000;
      while ((Buffer.concat(fromHost).length < 256 || Buffer.concat(toHost).length < 256) && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(Buffer.concat(fromHost), all);
      assert.deepEqual(Buffer.concat(toHost), Buffer.from(all).reverse());
    } finally {
      await new Promise<void>((resolve) => port.close(() => resolve()));
      await pty.close();
    }
  });

  it('without a python3 to run: DevBleError PYTHON3_MISSING naming what it tried', async () => {
    const python = path.join(os.tmpdir(), 'clawling-no-python3-here');
    await assert.rejects(PtyLink.open({ python }), (err: { name?: string; code?: string; message?: string; details?: { python?: string } }) => {
      assert.equal(err.name, 'DevBleError');
      assert.equal(err.code, 'PYTHON3_MISSING');
      assert.equal(err.details?.python, python);
      assert.match(err.message ?? '', /install python3/);
      return true;
    });
  });

  it('a python3 that opens no pty: PTY_FAILED with what it printed', async () => {
    // `false` runs and exits 1 at once, as a relay would that failed before printing its pty.
    await assert.rejects(PtyLink.open({ python: '/bin/false' }), (err: { code?: string; message?: string }) => {
      assert.equal(err.code, 'PTY_FAILED');
      assert.match(err.message ?? '', /exited with 1 before opening a pty/);
      return true;
    });
  });
});
