/**
 * A NOTIFY_SOCKET to hand a service under test: a real AF_UNIX datagram socket, as systemd's. Node cannot bind one,
 * so a python3 child holds it and prints each datagram it receives on a line (newlines inside become spaces).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const LISTENER = [
  'import socket, sys',
  's = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)',
  's.bind(sys.argv[1])',
  'print("bound", flush=True)',
  'while True:',
  '    print(s.recv(65536).decode(errors="replace").strip().replace("\\n", " "), flush=True)',
].join('\n');

export class NotifySocket {
  readonly path: string;
  readonly messages: string[] = [];
  #child: ChildProcess | undefined;
  #waiters: Array<() => void> = [];

  constructor(dir: string) {
    this.path = path.join(dir, 'notify.sock');
  }

  /** Resolves once the socket is bound. */
  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn('python3', ['-c', LISTENER, this.path], { stdio: ['ignore', 'pipe', 'inherit'] });
      this.#child = child;
      let buffered = '';
      child.once('error', reject);
      child.stdout!.on('data', (c: Buffer) => {
        buffered += c.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          if (line === 'bound') resolve();
          else this.messages.push(line);
        }
        for (const w of this.#waiters.splice(0)) w();
      });
    });
  }

  /** Resolves when `match` holds for the messages received so far. */
  async until(match: (messages: readonly string[]) => boolean): Promise<void> {
    while (!match(this.messages)) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  close(): void {
    this.#child?.kill('SIGKILL');
  }
}
