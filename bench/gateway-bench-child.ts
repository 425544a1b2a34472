/**
 * The gateway under test of `bench/gateway.bench.ts`, in its own process and started as `clawling gateway` starts it
 * (`runGateway`: config file, logger, signals), so that its RSS and CPU are the gateway's alone. Frames arrive over
 * IPC (as bytes would from a radio) and are transmitted by the virtual peers of its simulated radios.
 */
import { runGateway } from '../gateway/main';
import type { SimulatedRadio, VirtualPeer } from '../gateway/radios';

type FromParent = { type: 'frames'; peer: number; frames: string[] } | { type: 'stats' } | { type: 'reset-peak' };

const configFile = process.argv[2];
if (!configFile || !process.send) throw new Error('usage: gateway-bench-child <config.yaml> (with an IPC channel)');

let peakRss = process.memoryUsage.rss();
let peakDetail = process.memoryUsage();
setInterval(() => {
  const rss = process.memoryUsage.rss();
  if (rss > peakRss) {
    peakRss = rss;
    peakDetail = process.memoryUsage();
  }
}, 25).unref();

void runGateway({
  configFile,
  env: {},
  stderr: process.stderr,
  onStarted: (gateway) => {
    const peers: VirtualPeer[] = gateway.radios.flatMap((r) => (r as SimulatedRadio).virtualPeers());
    // A virtual peer keeps every receipt for tests to inspect; a bench must not measure that archive.
    for (const p of peers) p.on('received', () => p.clearReceived());
    process.on('message', (m: FromParent) => {
      if (m.type === 'frames') {
        const peer = peers[m.peer]!;
        for (const f of m.frames) peer.inject(Buffer.from(f, 'base64')).catch(() => undefined);
      } else if (m.type === 'stats') {
        const cpu = process.cpuUsage();
        process.send!({ type: 'stats', rss: process.memoryUsage.rss(), peakRss, cpuUs: cpu.user + cpu.system, acks: gateway.metrics.counter('clawling_gateway_acks_sent_total', '').total(), peakDetail, metrics: gateway.metrics.snapshot() });
      } else if (m.type === 'reset-peak') {
        peakRss = process.memoryUsage.rss();
        process.send!({ type: 'reset-peak' });
      }
    });
    process.send!({
      type: 'ready',
      address: gateway.info.address,
      peers: peers.map((p) => ({ address: p.address, binary: p.preferredFormat === 'binary' })),
    });
  },
}).then((code) => process.exit(code));
