/**
 * The main thread's own figures from `/proc/self/task/<pid>`, for the bench children: the process's totals also
 * count the thread pool's and V8's helper threads. NaN where /proc is not there.
 */
import fs from 'node:fs';

function taskFile(name: 'stat' | 'status' | 'schedstat'): string | undefined {
  try {
    return fs.readFileSync(`/proc/self/task/${process.pid}/${name}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** CPU time (µs, user + system) of the main thread alone (the event loop). */
export function mainThreadCpuUs(): number {
  const stat = taskFile('stat');
  if (stat === undefined) return NaN;
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1e6) / 100;
}

/** Times the main thread blocked (slept in epoll, or on a lock) since it started: about one per wake-up. */
export function mainThreadSleeps(): number {
  const status = taskFile('status');
  return Number((status && /^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1]) ?? NaN);
}

/**
 * The scheduler's account of the main thread (`schedstat`, ns → µs): time on a core, and time runnable but waiting
 * for one. On a machine whose cores the gateway shares (its broker, the bench's driver, V8's helper threads), the
 * wait is the part of the wall clock that more CPU per message does not explain.
 */
export function mainThreadSchedule(): { runUs: number; waitUs: number } {
  const f = taskFile('schedstat')?.split(' ');
  return f === undefined ? { runUs: NaN, waitUs: NaN } : { runUs: Number(f[0]) / 1000, waitUs: Number(f[1]) / 1000 };
}
