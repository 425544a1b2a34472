/**
 * The broker side of `bench/gateway.bench.ts`, in its own process so that the gateway's core is the gateway's:
 * aedes on 127.0.0.1, recording for every message publish the monotonic time it arrived (hrtime is one clock for
 * every process of the machine on Linux and macOS). It answers `stats` with the arrival count and the latencies.
 */
import net from 'node:net';
import { Aedes } from 'aedes';

async function main(): Promise<void> {
  const broker = await Aedes.createBroker();
  const server = net.createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let count = 0;
  let latencies: number[] = [];
  let firstAt = 0n;
  let lastAt = 0n;
  broker.on('publish', (packet, client) => {
    if (!client || !packet.topic.endsWith('/messages')) return;
    const now = process.hrtime.bigint();
    count += 1;
    if ((count & 255) === 0) process.send!({ type: 'progress', count });
    if (firstAt === 0n) firstAt = now;
    lastAt = now;
    // The content is "bench <hrtime ns at injection>"; find it without parsing the whole payload.
    const text = packet.payload.toString();
    const at = text.indexOf('"content":"bench ');
    if (at >= 0) {
      const end = text.indexOf('"', at + 17);
      latencies.push(Number(now - BigInt(text.slice(at + 17, end))) / 1e6);
    }
  });
  process.on('message', (m: { type: string }) => {
    if (m.type === 'stats') {
      const c = process.cpuUsage();
      process.send!({ type: 'stats', count, latencies, spanMs: Number(lastAt - firstAt) / 1e6, cpuUs: c.user + c.system });
    } else if (m.type === 'reset') {
      count = 0;
      latencies = [];
      firstAt = 0n;
      lastAt = 0n;
      process.send!({ type: 'reset' });
    }
  });
  process.send!({ type: 'ready', port: (server.address() as net.AddressInfo).port });
}

void main();
