/**
 * `npm run bench:gateway`: radio → MQTT through the whole gateway (simulated radios with BLE fragmentation, decode,
 * dedup, control gate, durable sqlite outbox with synchronous=FULL, QoS 1 publish, mesh ACK after PUBACK), against
 * an aedes broker in another process. Prints throughput, latency p50/p99 (injection → broker arrival) and RSS with
 * 4 simulated radios at idle and under load; the baseline is plain mqtt.js QoS 1 publishing from this same process.
 *
 * Targets (issue 6): ≥ 5 000 messages/s radio → MQTT on one core, p50 < 5 ms, RSS < 80 MB.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import YAML from 'yaml';
import { encodeFrame } from '../lib/mesh/frame';
import { createMessage } from '../lib/mesh/message';
import { MessageId } from '../lib/mesh/message-id';

const THROUGHPUT_MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20000);
const LATENCY_RATE = Number(process.env.BENCH_RATE ?? 1000);
const LATENCY_SECONDS = 3;

const AHEAD = Number(process.env.BENCH_AHEAD ?? 2000);
const STORE_SYNC = process.env.BENCH_STORE_SYNC ?? 'full';

interface GwStats {
  peakDetail?: NodeJS.MemoryUsage;
  rss: number;
  peakRss: number;
  cpuUs: number;
  acks: number;
}

/** What the systemd unit passes (NODE_OPTIONS there): a smaller young generation keeps a Pi's RSS low. */
const NODE_OPTIONS = (process.env.BENCH_NODE_OPTIONS ?? '--max-semi-space-size=2 --max-old-space-size=96').split(' ').filter(Boolean);

interface Stats {
  cpuUs: number;
  count: number;
  latencies: number[];
  spanMs: number;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function mb(bytes: number): string {
  return (bytes / 1048576).toFixed(1);
}

async function main(): Promise<void> {
  const child = fork(path.join(__dirname, 'gateway-broker-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = <T>(type: string): Promise<T> =>
    new Promise((resolve) => {
      const on = (m: { type: string }): void => {
        if (m.type !== type) return;
        child.off('message', on);
        resolve(m as T);
      };
      child.on('message', on);
      if (type !== 'ready') child.send({ type });
    });
  const { port } = await ask<{ port: number }>('ready');
  const url = `mqtt://127.0.0.1:${port}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));

  // Baseline: the same broker, mqtt.js alone, QoS 1, in this process.
  const base = mqtt.connect(url, { protocolVersion: 4 });
  await new Promise<void>((r) => base.once('connect', () => r()));
  const payload = JSON.stringify({ id: MessageId.random().toString(), content: 'x'.repeat(200) });
  let t0 = process.hrtime.bigint();
  await new Promise<void>((resolve) => {
    let left = THROUGHPUT_MESSAGES;
    let sent = 0;
    const more = (): void => {
      while (sent < THROUGHPUT_MESSAGES && sent - (THROUGHPUT_MESSAGES - left) < 256) {
        sent += 1;
        base.publish('bench/baseline', payload, { qos: 1 }, () => {
          left -= 1;
          if (left === 0) resolve();
          else more();
        });
      }
    };
    more();
  });
  const baselineRate = THROUGHPUT_MESSAGES / (Number(process.hrtime.bigint() - t0) / 1e9);
  await base.endAsync();

  // Deep per-peer queues: a burst of thousands of ACKs a second per link is the bench's doing, not a radio's.
  const radios = [0, 1, 2, 3].map((r) => ({ id: `sim${r}`, kind: 'simulated', queue_limit: 4096, peers: [{ id: `p${r}a`, wire_versions: [1] }, { id: `p${r}b`, wire_versions: [] }] }));
  const configFile = path.join(dir, 'gateway.yaml');
  fs.writeFileSync(
    configFile,
    YAML.stringify({
      gateway: { id: 'bench', state_dir: path.join(dir, 'state'), store_sync: STORE_SYNC },
      log: { level: 'warn' },
      radios,
      mqtt: { url, version: 'auto', inflight: Number(process.env.BENCH_INFLIGHT ?? 256) },
      http: { enabled: true, port: 0 },
    }),
  );
  // The gateway runs with the Node options of the shipped systemd unit (gateway/systemd/clawling-gateway.service).
  const gw = fork(path.join(__dirname, 'gateway-bench-child.js'), [configFile], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: process.env.BENCH_CPUPROF ? [...NODE_OPTIONS, '--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPUPROF}`] : process.env.BENCH_HEAPSNAPSHOT ? [...NODE_OPTIONS, '--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${process.env.BENCH_HEAPSNAPSHOT}`] : NODE_OPTIONS,
  });
  const askGw = <T>(type: string): Promise<T> =>
    new Promise((resolve) => {
      const on = (m: { type: string }): void => {
        if (m.type !== type) return;
        gw.off('message', on);
        resolve(m as T);
      };
      gw.on('message', on);
      if (type !== 'ready') gw.send({ type });
    });
  let finished = false;
  gw.on('exit', (code, signal) => {
    if (finished) return;
    console.error(`the gateway process ended during the bench (code ${code}, signal ${signal})`);
    child.kill();
    process.exit(1);
  });
  const { address, peers } = await askGw<{ address: string; peers: Array<{ address: string; binary: boolean }> }>('ready');

  const frameFor = (peer: number, content: string): string =>
    Buffer.from(
      encodeFrame(
        createMessage({
          id: MessageId.random(),
          sender: peers[peer]!.address,
          recipient: address,
          app_id: 'bench',
          priority: 'medium',
          ttl: 8,
          hop_count: 0,
          timestamp: BigInt(Date.now()),
          content,
          metadata: { room: 'kitchen', sensor: 'temperature' },
        }),
        peers[peer]!.binary ? 'binary' : 'json',
      ),
    ).toString('base64');
  const waitBroker = async (n: number): Promise<Stats> => {
    for (;;) {
      const s = await ask<Stats>('stats');
      if (s.count >= n) return s;
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  // Idle: connected, 4 radios, 8 neighbours, nothing flowing.
  await new Promise((r) => setTimeout(r, 2000));
  const idle = await askGw<GwStats>('stats');

  // Throughput: frames go to the peers in batches as fast as the gateway takes them; the clock stops when the
  // broker has every one.
  const batches: Array<{ peer: number; frames: string[] }> = [];
  for (let i = 0; i < THROUGHPUT_MESSAGES; i += 100) {
    const peer = (i / 100) % peers.length;
    batches.push({ peer, frames: Array.from({ length: Math.min(100, THROUGHPUT_MESSAGES - i) }, (_, k) => frameFor(peer, `load ${i + k} ${'x'.repeat(120)}`)) });
  }
  await ask('reset');
  await askGw('reset-peak');
  const before = await askGw<GwStats>('stats');
  const brokerBefore = await ask<Stats>('stats');
  t0 = process.hrtime.bigint();
  let sentBatches = 0;
  // Keep about 2 000 messages ahead of the broker (a radio's link does not deliver faster than the gateway reads),
  // topping up on the broker's progress reports rather than polling, so the driver leaves the cores alone.
  const topUp = (count: number): void => {
    while (sentBatches < batches.length && sentBatches * 100 - count < AHEAD) {
      gw.send({ type: 'frames', ...batches[sentBatches]! });
      sentBatches += 1;
    }
  };
  const onProgress = (m: { type: string; count?: number }): void => {
    if (m.type === 'progress') topUp(m.count!);
  };
  child.on('message', onProgress);
  topUp(0);
  await waitBroker(THROUGHPUT_MESSAGES);
  child.off('message', onProgress);
  const elapsedS = Number(process.hrtime.bigint() - t0) / 1e9;
  const after = await askGw<GwStats>('stats');
  const brokerAfter = await ask<Stats>('stats');
  const brokerCpu = (brokerAfter.cpuUs - brokerBefore.cpuUs) / 1e6 / elapsedS;
  const rate = THROUGHPUT_MESSAGES / elapsedS;
  const cpuShare = (after.cpuUs - before.cpuUs) / 1e6 / elapsedS;

  // Latency: a steady rate well inside capacity, each message stamped with its send time (IPC included).
  await ask('reset');
  const total = LATENCY_RATE * LATENCY_SECONDS;
  const perTick = Math.max(1, Math.round(LATENCY_RATE / 100));
  let sentL = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      for (let k = 0; k < perTick && sentL < total; k += 1, sentL += 1) {
        const peer = sentL % peers.length;
        gw.send({ type: 'frames', peer, frames: [frameFor(peer, `bench ${process.hrtime.bigint()}`)] });
      }
      if (sentL >= total) {
        clearInterval(timer);
        resolve();
      }
    }, 10);
  });
  const stats = await waitBroker(total);
  const lat = stats.latencies.sort((a, b) => a - b);
  const end = await askGw<GwStats>('stats');
  if (process.env.BENCH_HEAPSNAPSHOT) {
    gw.kill('SIGUSR2');
    await new Promise((r) => setTimeout(r, 8000));
  }
  finished = true;
  gw.kill('SIGTERM');
  await new Promise((r) => gw.once('exit', r));
  child.kill();
  fs.rmSync(dir, { recursive: true, force: true });
  const loadRss = Math.max(after.peakRss, end.peakRss);
  const idleRss = idle.rss;

  const ok = (good: boolean): string => (good ? 'ok' : 'MISSED');
  const load = os.loadavg()[0]!;
  console.log(`gateway bench (4 simulated radios, 8 peers, BLE fragments, sqlite outbox synchronous=${STORE_SYNC.toUpperCase()}, aedes in another process)`);
  console.log(`  machine: ${os.cpus().length} cores, load average ${load.toFixed(1)}${load > os.cpus().length ? ' (busy: wall-clock figures are pessimistic)' : ''}`);
  console.log(`  baseline mqtt.js QoS 1 publish, same broker     ${baselineRate.toFixed(0).padStart(8)} msg/s`);
  console.log(`  radio -> MQTT throughput (${THROUGHPUT_MESSAGES} msgs)          ${rate.toFixed(0).padStart(8)} msg/s   ${(rate / baselineRate).toFixed(2)}x baseline   target >= 5000: ${ok(rate >= 5000)}`);
  console.log(`  CPU during the run                              gateway ${(cpuShare * 100).toFixed(0)} % of one core, broker ${(brokerCpu * 100).toFixed(0)} %`);
  // Throughput per second of gateway CPU: what one core sustains, whatever else shares the machine.
  const perCore = rate / Math.max(cpuShare, 0.01);
  console.log(`  radio -> MQTT per second of gateway CPU         ${perCore.toFixed(0).padStart(8)} msg/s   target >= 5000 on one core: ${ok(perCore >= 5000)}`);
  console.log(`  latency at ${LATENCY_RATE} msg/s (${lat.length} msgs)  p50 ${quantile(lat, 0.5).toFixed(2)} ms   p99 ${quantile(lat, 0.99).toFixed(2)} ms   max ${lat.at(-1)?.toFixed(2)} ms   target p50 < 5: ${ok(quantile(lat, 0.5) < 5)}`);
  console.log(`  RSS idle ${mb(idleRss)} MB   under load (peak) ${mb(loadRss)} MB   target < 80: ${ok(loadRss < 80 * 1048576)}`);
  if (process.env.BENCH_DEBUG) console.log(after, end);
  console.log(`  mesh ACKs sent (each after its PUBACK)          ${String(end.acks).padStart(8)}`);
  console.log(`  node options of the gateway process             ${NODE_OPTIONS.join(' ') || '(none)'}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
