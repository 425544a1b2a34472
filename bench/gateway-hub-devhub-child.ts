/**
 * The hub side of `bench/gateway-hub.bench.ts`, in its own process so that the gateway's core is the gateway's: the
 * dev hub on 127.0.0.1, recording for every `message.send` uplink the monotonic time it arrived (hrtime is one clock
 * for every process of the machine on Linux and macOS). Texts `bench <hrtime ns at injection>` give the latency.
 */
import { startDevHub } from '../devhub';

async function main(): Promise<void> {
  const users = JSON.parse(process.argv[2] ?? '[]') as Array<{ id: string; token: string }>;
  const chat = process.argv[3] ?? 'cnv_bench';
  const hub = await startDevHub({ users, chats: [{ id: chat, members: users.map((u) => u.id) }], media: { enabled: false } });
  let count = 0;
  let latencies: number[] = [];
  const seen = new Set<string>();
  hub.admin.on('uplink', (u) => {
    if (u.event !== 'message.send' || !u.frame) return;
    const payload = u.frame.payload as { message_id?: string; message?: { body?: { fragments?: Array<{ text?: string }> } } } | undefined;
    const id = payload?.message_id;
    if (id === undefined || seen.has(id)) return;
    seen.add(id);
    const now = process.hrtime.bigint();
    count += 1;
    if ((count & 255) === 0) process.send!({ type: 'progress', count });
    const text = payload?.message?.body?.fragments?.[0]?.text ?? '';
    if (text.startsWith('bench ')) latencies.push(Number(now - BigInt(text.slice(6))) / 1e6);
  });
  process.on('message', (m: { type: string }) => {
    if (m.type === 'stats') {
      const c = process.cpuUsage();
      process.send!({ type: 'stats', count, latencies, cpuUs: c.user + c.system });
    } else if (m.type === 'reset') {
      count = 0;
      latencies = [];
      process.send!({ type: 'reset' });
    } else if (m.type === 'stop') {
      void hub.stop().then(() => process.exit(0));
    }
  });
  process.send!({ type: 'ready', url: hub.wsUrl });
}

void main();
