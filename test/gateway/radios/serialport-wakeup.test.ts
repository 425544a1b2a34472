/**
 * serialport on a real pseudo-terminal, with nothing else going on in the process: bytes written on the far side
 * must reach the port's `data` listener. On Node 26 without gateway/radios/serialport-wakeup.ts they sat unread until
 * some other event woke the loop (here: none, so this test would run into mocha's timeout).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PtyLink } from '../../../devble/pty';
import { wakeAfterPollerEvents } from '../../../gateway/radios/serialport-wakeup';

interface Port {
  open(cb: (err: Error | null) => void): void;
  close(cb: () => void): void;
  on(event: 'data', fn: (chunk: Buffer) => void): void;
  write(data: Buffer): void;
}

describe('gateway/radios serialport-wakeup: reads finish on a quiet line', () => {
  let link: PtyLink | undefined;
  let port: Port | undefined;
  afterEach(async () => {
    if (port) await new Promise<void>((resolve) => port!.close(() => resolve()));
    port = undefined;
    await link?.close();
    link = undefined;
  });

  it('patches the poller of the serialport the gateway loads once, and leaves a tree without serialport alone', () => {
    assert.ok(['patched', 'already'].includes(wakeAfterPollerEvents()));
    assert.equal(wakeAfterPollerEvents(), 'already');
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'no-serialport-'));
    try {
      assert.equal(wakeAfterPollerEvents(createRequire(path.join(empty, 'x.js'))), 'no-poller');
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('delivers what the far side of a pty writes, in both directions, with no other event to wake the loop', async () => {
    wakeAfterPollerEvents();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { SerialPort } = require('serialport') as { SerialPort: new (o: { path: string; baudRate: number; autoOpen: boolean }) => Port };
    link = await PtyLink.open();
    port = new SerialPort({ path: link.path, baudRate: 115200, autoOpen: false });
    await new Promise<void>((resolve, reject) => port!.open((err) => (err ? reject(err) : resolve())));
    const atMaster = new Promise<Buffer>((resolve) => link!.once('data', resolve));
    const atHost = new Promise<Buffer>((resolve) => port!.on('data', resolve));
    port.write(Buffer.from([1, 3, 0x0c, 0]));
    assert.deepEqual([...(await atMaster)], [1, 3, 0x0c, 0]);
    // Only after the first exchange: the host's read is then parked on the poller, the case that hung.
    link.write(Buffer.from([4, 0x0e, 4, 1, 3, 0x0c, 0]));
    assert.deepEqual([...(await atHost)], [4, 0x0e, 4, 1, 3, 0x0c, 0]);
  });
});
