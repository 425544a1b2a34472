/**
 * Three figures of this machine for the serial bench to print beside the gateway's. Two come from a bare `node` with
 * the gateway's flags (`bench/wakeup-floor-child.ts`):
 *
 * - the wake-up floor: CPU per wake-up when each wake-up does almost nothing (one byte echoed, 1 000 a second). On a
 *   virtual machine a wake-up is far from free (the idle vCPU halts, the host wakes it, caches start cold); times the
 *   gateway's wake-ups per message, it is the part of its cost that only waking less removes;
 * - the duty-cycle baseline: the CPU per item of the same fixed piece of JavaScript, offered as the serial bench
 *   offers messages (what a rate owes, every `tickMs`). The same work costs more per item at a lower rate when the
 *   process idles between ticks; the gateway's rows are read against that ratio.
 */
import { fork } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { asker } from './child-ipc';

/**
 * The third: µs per system call made from JavaScript, the cheapest there is (`process.ppid` is one `getppid`,
 * nothing cached). Every read, write, fsync hand-off and wake-up of the gateway pays at least this; a guest whose
 * kernel entries go through its host pays several times what bare metal does. Median of five runs in this process.
 */
export function systemCallUs(calls = 100_000): number {
  const runs: number[] = [];
  let sink = 0;
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) sink += process.ppid;
    runs.push(Number(process.hrtime.bigint() - t0) / 1000 / calls);
  }
  if (sink === 0) throw new Error('process.ppid read 0');
  return runs.sort((a, b) => a - b)[2]!;
}

export interface BareRun {
  /** Items (bytes) offered per second. */
  rate: number;
  /** CPU µs (user + system) of the bare process per wake-up of its main thread. */
  usPerWakeup: number;
  /** Main-thread sleeps per chunk read: 1 when every chunk got a wake-up of its own. */
  sleepsPerRead: number;
  /** CPU µs per item (with `work`: the fixed piece of work and its share of the wake-ups). */
  usPerItem: number;
}

export interface BareRunOptions {
  rate: number;
  /** Every this many ms, the items the rate owes by then go in one write. */
  tickMs: number;
  seconds: number;
  /** A fixed piece of work per item; without, only the echo. */
  work: boolean;
}

export async function bareRun(nodeFlags: string[], o: BareRunOptions): Promise<BareRun> {
  const child = fork(path.join(__dirname, 'wakeup-floor-child.js'), o.work ? ['work'] : [], { execArgv: nodeFlags, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = asker(child);
  const { port } = await ask<{ port: number }>('ready');
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  socket.on('data', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  // A second of the same load first, uncounted: the child's JIT warms up as the gateway's does in its warm-up run.
  const offer = async (seconds: number): Promise<void> => {
    const t0 = process.hrtime.bigint();
    let sent = 0;
    const timer = setInterval(() => {
      const owed = Math.floor((Number(process.hrtime.bigint() - t0) / 1e9) * o.rate);
      if (owed > sent) socket.write(Buffer.alloc(owed - sent, 0x2a));
      sent = Math.max(sent, owed);
    }, o.tickMs);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    clearInterval(timer);
  };
  await offer(1);
  await ask('start');
  await offer(o.seconds);
  await new Promise((r) => setTimeout(r, 100));
  const got = await ask<{ cpuUs: number; sleeps: number; reads: number; items: number }>('stop');
  socket.destroy();
  return { rate: o.rate, usPerWakeup: got.cpuUs / Math.max(1, got.sleeps), sleepsPerRead: got.sleeps / Math.max(1, got.reads), usPerItem: got.cpuUs / Math.max(1, got.items) };
}

/** The wake-up floor: one byte per millisecond, echoed, for `seconds`. */
export function wakeupFloor(nodeFlags: string[], seconds = 3): Promise<BareRun> {
  return bareRun(nodeFlags, { rate: 1000, tickMs: 1, seconds, work: false });
}
