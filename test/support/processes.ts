/**
 * What a test needs to show that something it stopped left nothing behind: the child processes of a process (read
 * from /proc, Linux), whether a process lives, whether a loopback port still takes connections.
 */
import fs from 'node:fs';
import net from 'node:net';

export interface ChildProcessInfo {
  pid: number;
  /** The command line, arguments joined by spaces. */
  cmd: string;
}

export function childrenOf(parent: number): ChildProcessInfo[] {
  const out: ChildProcessInfo[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    let cmdline: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8');
    } catch {
      continue; // ended while we looked
    }
    // pid (comm) state ppid …; comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === parent) out.push({ pid: Number(name), cmd: cmdline.split('\0').join(' ').trim() });
  }
  return out;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True once nothing listens on 127.0.0.1:`port` any more. */
export function portRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}
