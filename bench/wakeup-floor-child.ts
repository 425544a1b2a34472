/**
 * A bare `node` for `bench/wakeup-floor.ts`: nothing loaded but what this file needs. It answers every chunk that
 * arrives on a loopback socket with one byte, after doing, with `work` as its argument, a fixed piece of work for
 * each byte of it (an item), and reports its own CPU, its main thread's sleeps and the items between `start` and
 * `stop`: what a wake-up, and the same work at different rates, cost on this machine.
 */
import net from 'node:net';
import { mainThreadSleeps } from './main-thread';

const withWork = process.argv[2] === 'work';
const SAMPLE = { text: 'x'.repeat(200), list: [1, 2, 3, 4, 5, 6, 7, 8], nested: { name: 'hello', value: 12345.678, on: true } };
const ACK = Buffer.from([0x2a]);

/** The same JavaScript every time: JSON in and out, some tens of µs, with the garbage a message's handling makes. */
function work(): number {
  let n = 0;
  for (let i = 0; i < 40; i++) n += (JSON.parse(JSON.stringify(SAMPLE)) as typeof SAMPLE).list.length;
  return n;
}

let reads = 0;
let items = 0;
let sink = 0;
let from = { cpu: process.cpuUsage(), sleeps: 0, reads: 0, items: 0 };
const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  socket.on('data', (chunk) => {
    reads += 1;
    if (withWork) for (let i = 0; i < chunk.length; i++) sink += work();
    items += chunk.length;
    socket.write(ACK);
  });
});
server.listen(0, '127.0.0.1', () => process.send!({ type: 'ready', port: (server.address() as net.AddressInfo).port }));
process.on('message', (m: { type: string }) => {
  if (m.type === 'start') {
    from = { cpu: process.cpuUsage(), sleeps: mainThreadSleeps(), reads, items };
    process.send!({ type: 'start' });
  } else if (m.type === 'stop') {
    const cpu = process.cpuUsage(from.cpu);
    const report = { type: 'stop', cpuUs: cpu.user + cpu.system, sleeps: mainThreadSleeps() - from.sleeps, reads: reads - from.reads, items: items - from.items, sink };
    process.send!(report, () => process.exit(0));
  }
});
