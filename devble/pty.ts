/**
 * A pseudo-terminal whose slave side a BLE host opens as its UART, and whose master side the virtual controller
 * reads and writes.
 *
 * Node cannot open a pty pair itself (grantpt/unlockpt are ioctls), and a new native or system dependency would have
 * to be installed on every machine. python3 is on every machine the project runs on, and its `pty.openpty()` does
 * the ioctls; a small relay process copies bytes between the master and its own stdin/stdout, which Node reads as
 * pipes. The relay holds the slave open too, so the master never reports EIO between a host's close and reopen.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { DevBleError } from './errors';

const RELAY = `
import os, pty, select, sys, tty
master, slave = pty.openpty()
tty.setraw(slave)
sys.stdout.write(os.ttyname(slave) + "\\n")
sys.stdout.flush()
out = sys.stdout.fileno()
inp = sys.stdin.fileno()
def write_all(fd, data):
    while data:
        n = os.write(fd, data)
        data = data[n:]
while True:
    ready, _, _ = select.select([master, inp], [], [])
    if master in ready:
        try:
            data = os.read(master, 65536)
        except OSError:
            data = b""
        if data:
            write_all(out, data)
    if inp in ready:
        data = os.read(inp, 65536)
        if not data:
            break
        write_all(master, data)
`;

/**
 * The system's python3 when there is one: a version manager's shim on PATH (pyenv) costs seconds per start on a
 * loaded machine. `-S -I`: no site packages, no environment; the relay needs only the standard library.
 */
export const DEFAULT_PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

export interface PtyOptions {
  /** The python3 to run the relay with (default `DEFAULT_PYTHON`). */
  python?: string;
}

export interface PtyEvents {
  data: [Buffer];
  close: [];
}

/** The controller's end of one pty: `path` is what the host opens. */
export class PtyLink extends EventEmitter<PtyEvents> {
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    super();
    child.on('exit', () => {
      this.closed = true;
      this.emit('close');
    });
  }

  /**
   * Opens a pty pair through the python3 relay; resolves once the slave's path is known. Rejects with `DevBleError`
   * `PYTHON3_MISSING` when `python` cannot be run, `PTY_FAILED` when it ran but opened no pty.
   */
  static open(options: PtyOptions = {}): Promise<PtyLink> {
    const python = options.python ?? DEFAULT_PYTHON;
    return new Promise((resolve, reject) => {
      const child = spawn(python, ['-u', '-S', '-I', '-c', RELAY], { stdio: ['pipe', 'pipe', 'pipe'] });
      let head = Buffer.alloc(0);
      let link: PtyLink | undefined;
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      child.on('error', (err: NodeJS.ErrnoException) => {
        const missing = err.code === 'ENOENT' || err.code === 'EACCES';
        reject(
          missing
            ? new DevBleError('PYTHON3_MISSING', `the virtual BLE controller needs python3 to open its pseudo-terminals, and '${python}' cannot be run (${err.code}); install python3 (Debian: apt-get install python3)`, { python }, { cause: err })
            : new DevBleError('PTY_FAILED', `the pty relay '${python}' did not start: ${err.message}`, { python }, { cause: err }),
        );
      });
      child.on('exit', (code) => {
        if (link === undefined) reject(new DevBleError('PTY_FAILED', `the pty relay exited with ${String(code)} before opening a pty: ${stderr.trim()}`, { python }));
      });
      child.stdout.on('data', (chunk: Buffer) => {
        if (link !== undefined) {
          link.emit('data', chunk);
          return;
        }
        head = Buffer.concat([head, chunk]);
        const nl = head.indexOf(0x0a);
        if (nl < 0) return;
        link = new PtyLink(head.subarray(0, nl).toString('utf8'), child);
        const rest = head.subarray(nl + 1);
        resolve(link);
        if (rest.length > 0) link.emit('data', rest);
      });
    });
  }

  write(data: Buffer): void {
    if (!this.closed) this.child.stdin.write(data);
  }

  /**
   * Stops the relay (SIGSTOP): nothing is read off the master any more, so the slave's output fills and the host's
   * writes meet EAGAIN, as with a device that stops reading. `release()` lets it run again.
   */
  hold(): void {
    if (!this.closed) this.child.kill('SIGSTOP');
  }

  release(): void {
    if (!this.closed) this.child.kill('SIGCONT');
  }

  /** Ends the relay (closing both sides of the pty); resolves once it has exited. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.release();
      this.child.stdin.end();
      setTimeout(() => {
        if (!this.closed) this.child.kill('SIGKILL');
      }, 1_000).unref();
    });
  }
}
