/**
 * A bare `node` for `bench/wakeup-floor.ts`: nothing loaded but what this file needs, it echoes every byte that
 * arrives on a loopback socket and reports its own CPU and its main thread's sleeps between `start` and `stop`: what
 * one wake-up of an event loop costs on this machine when it does next to nothing.
 */
import fs from 'node:fs';
import net from 'node:net';

/** Times the main thread blocked (slept in epoll, or on a lock): one per wake-up. */
function mainThreadSleeps(): number {
  const status = fs.readFileSync(`/proc/self/task/${process.pid}/status`, 'utf8');
  return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? NaN);
}

let reads = 0;
let from = { cpu: process.cpuUsage(), sleeps: 0, reads: 0 };
const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  socket.on('data', (chunk) => {
    reads += 1;
    socket.write(chunk);
  });
});
server.listen(0, '127.0.0.1', () => process.send!({ type: 'ready', port: (server.address() as net.AddressInfo).port }));
process.on('message', (m: { type: string }) => {
  if (m.type === 'start') {
    from = { cpu: process.cpuUsage(), sleeps: mainThreadSleeps(), reads };
    process.send!({ type: 'start' });
  } else if (m.type === 'stop') {
    const cpu = process.cpuUsage(from.cpu);
    process.send!({ type: 'stop', cpuUs: cpu.user + cpu.system, sleeps: mainThreadSleeps() - from.sleeps, reads: reads - from.reads }, () => process.exit(0));
  }
});
