/**
 * A bare `node` for `bench/wakeup-floor.ts`: nothing loaded but what this file needs, it echoes every byte that
 * arrives on a loopback socket and reports its own CPU and its main thread's sleeps between `start` and `stop`: what
 * one wake-up of an event loop costs on this machine when it does next to nothing.
 */
import net from 'node:net';
import { mainThreadSleeps } from './main-thread';

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
