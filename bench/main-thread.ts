/**
 * The main thread's own figures from `/proc/self/task/<pid>`, for the bench children: the process's totals also
 * count the thread pool's and V8's helper threads. NaN where /proc is not there.
 */
import fs from 'node:fs';

function taskFile(name: 'stat' | 'status' | 'schedstat', tid: string | number = process.pid): string | undefined {
  try {
    return fs.readFileSync(`/proc/self/task/${tid}/${name}`, 'utf8');
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
 * The scheduler's account (`schedstat`, ns → µs) of the main thread and of all the process's threads: time on a
 * core, and time runnable but waiting for one. On a machine whose cores the gateway shares (its broker, the bench's
 * driver, V8's helper threads), the wait is the part of the wall clock that more CPU per message does not explain.
 */
export function threadSchedule(): { mainRunUs: number; mainWaitUs: number; allWaitUs: number } {
  const read = (tid: string | number): [number, number] => {
    const f = taskFile('schedstat', tid)?.split(' ');
    return f === undefined ? [NaN, NaN] : [Number(f[0]) / 1000, Number(f[1]) / 1000];
  };
  const [mainRunUs, mainWaitUs] = read(process.pid);
  let allWaitUs = 0;
  try {
    for (const tid of fs.readdirSync('/proc/self/task')) allWaitUs += read(tid)[1] || 0;
  } catch {
    allWaitUs = NaN;
  }
  return { mainRunUs, mainWaitUs, allWaitUs };
}
