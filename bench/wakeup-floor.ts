/**
 * The floor under a gateway's CPU per message at a modest rate: what a bare `node` with the same flags spends per
 * wake-up when each wake-up does almost nothing (`bench/wakeup-floor-child.ts` echoes one byte). On a virtual machine
 * a wake-up is far from free (the idle vCPU halts, the host wakes it, caches start cold), and at 1 000 msg/s the
 * gateway's main thread wakes about once per message: this figure, times the gateway's wake-ups per message, is the
 * part of its cost that no change inside the process removes except waking less.
 */
import { fork } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { asker } from './child-ipc';

export interface WakeupFloor {
  /** Wake-ups asked for per second (one byte each, at most one per millisecond). */
  rate: number;
  /** CPU µs (user + system) of the bare process per wake-up of its main thread. */
  usPerWakeup: number;
  /** Main-thread sleeps per byte echoed: 1 when every byte got a wake-up of its own. */
  sleepsPerRead: number;
}

export async function wakeupFloor(nodeFlags: string[], rate = 1000, seconds = 3): Promise<WakeupFloor> {
  const child = fork(path.join(__dirname, 'wakeup-floor-child.js'), [], { execArgv: nodeFlags, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = asker(child);
  const { port } = await ask<{ port: number }>('ready');
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  socket.on('data', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  await ask('start');
  const byte = Buffer.from([0x2a]);
  const every = Math.max(1, 1000 / rate);
  const timer = setInterval(() => socket.write(byte), every);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  clearInterval(timer);
  const got = await ask<{ cpuUs: number; sleeps: number; reads: number }>('stop');
  socket.destroy();
  return { rate: 1000 / every, usPerWakeup: got.cpuUs / Math.max(1, got.sleeps), sleepsPerRead: got.sleeps / Math.max(1, got.reads) };
}
