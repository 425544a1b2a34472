/**
 * Radio → hub through the whole gateway: 4 simulated radios with BLE fragmentation, decode, dedup, control gate, the
 * hub bridge (rule match, conversion, deterministic `msg-` ids), the hub client's durable sqlite outbox (group
 * commits), the WebSocket to a dev hub in another process, and the mesh ACK sent only after `message.ack`.
 *
 * `benchRadioToHub()` prints and returns: throughput (all messages ACKed at the peers, i.e. acknowledged by the hub),
 * against a baseline of a bare `HubClient` with the same durable store sending to the same hub from this process;
 * latency p50/p99 at a steady rate, both injection → hub arrival and injection → mesh ACK; the gateway's CPU share
 * and peak RSS. `bench/gateway.bench.ts` calls it after its radio → MQTT figures; it also runs on its own:
 * `node dist/bench/gateway-hub.bench.js`.
 */
import { fork } from 'node:child_process';
import { runWhenMain } from './child-ipc';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { HubClient } from '../lib/hub/client';
import { openStore } from '../lib/store';
import { ackTarget, isAck } from '../lib/mesh/ack';
import { encodeFrame } from '../lib/mesh/frame';
import { createMessage } from '../lib/mesh/message';
import { MessageId } from '../lib/mesh/message-id';
import { loadConfig } from '../gateway/load-config';
import { loadExtensionSections } from '../gateway/extensions/index';
import type { HubBridge } from '../gateway/extensions/hub-bridge/hub-bridge';
import { Gateway } from '../gateway/gateway';
import type { SimulatedRadio, VirtualPeer } from '../gateway/radios';

export interface RadioToHubOptions {
  /** Messages of the throughput run (default 10 000, or BENCH_HUB_MESSAGES). */
  messages?: number;
  /** Rate and length of the latency run (default 500 msg/s for 3 s). */
  rate?: number;
  seconds?: number;
  /** Messages kept outstanding (injected, not yet ACKed) during the throughput run (default 2000). */
  ahead?: number;
  storeSync?: 'full' | 'normal';
  print?: (line: string) => void;
}

export interface RadioToHubFigures {
  messages: number;
  throughput: number;
  baseline: number;
  cpuShare: number;
  latency: { rate: number; count: number; ackP50: number; ackP99: number; hubP50: number; hubP99: number; max: number };
  rssPeak: number;
}

const GATEWAY = { id: 'agt_bench_gateway', token: 'bench-gateway-token' };
const BASELINE = { id: 'usr_bench_baseline', token: 'bench-baseline-token' };
const READER = { id: 'usr_bench_reader', token: 'bench-reader-token' };
const CHAT = 'cnv_01J0000000000000000000BNCH';

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

interface HubChild {
  url: string;
  ask<T>(type: string): Promise<T>;
  on(listener: (m: { type: string; count?: number }) => void): () => void;
  stop(): Promise<void>;
}

async function startHubChild(): Promise<HubChild> {
  const child = fork(path.join(__dirname, 'gateway-hub-devhub-child.js'), [JSON.stringify([GATEWAY, BASELINE, READER]), CHAT], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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
  const { url } = await ask<{ url: string }>('ready');
  return {
    url,
    ask,
    on(listener) {
      child.on('message', listener);
      return () => child.off('message', listener);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send({ type: 'stop' });
      }),
  };
}

async function baselineRate(url: string, dir: string, n: number): Promise<number> {
  const store = openStore(path.join(dir, 'baseline.db'));
  const client = new HubClient({ url, token: BASELINE.token, userId: BASELINE.id, deviceId: 'bench-baseline', store });
  client.start();
  while (client.state !== 'connected') await new Promise((r) => setTimeout(r, 10));
  const t0 = process.hrtime.bigint();
  let inFlight: Array<Promise<unknown>> = [];
  for (let i = 0; i < n; i++) {
    inFlight.push(client.send({ chatId: CHAT, text: `baseline ${i} ${'x'.repeat(120)}` }));
    if (inFlight.length >= 1000) {
      await Promise.all(inFlight);
      inFlight = [];
    }
  }
  await Promise.all(inFlight);
  const rate = n / (Number(process.hrtime.bigint() - t0) / 1e9);
  await client.stop();
  store.close();
  return rate;
}

export async function benchRadioToHub(options: RadioToHubOptions = {}): Promise<RadioToHubFigures> {
  const total = options.messages ?? Number(process.env.BENCH_HUB_MESSAGES ?? 10000);
  const rate = options.rate ?? 500;
  const seconds = options.seconds ?? 3;
  const ahead = options.ahead ?? 2000;
  const print = options.print ?? ((line: string) => console.log(line));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-hub-bench-'));
  const hub = await startHubChild();
  let gateway: Gateway | undefined;
  try {
    const baseline = await baselineRate(hub.url, dir, Math.min(total, 5000));

    const radios = [0, 1, 2, 3].map((r) => ({ id: `sim${r}`, kind: 'simulated', queue_limit: 4096, peers: [{ id: `p${r}a`, wire_versions: [1] }, { id: `p${r}b`, wire_versions: [] }] }));
    const { config } = loadConfig({
      text: YAML.stringify({
        gateway: { id: 'bench', state_dir: path.join(dir, 'state'), store_sync: options.storeSync ?? 'full' },
        log: { level: 'silent' },
        radios,
        // `ahead` messages are kept outstanding by peers that do not retry: admission control must not turn any
        // away here (bench:gateway's saturation run measures it).
        mesh: { forward: false, max_pending_deliveries: 100_000 },
        mqtt: { enabled: false },
        http: { enabled: false },
        hub: { enabled: true, url: hub.url, token: GATEWAY.token, user_id: GATEWAY.id, mesh_to_hub: [{ chat_id: CHAT, label: 'none' }] },
      }),
      env: {},
      ...(await loadExtensionSections()),
      cwd: dir,
    });
    const gw = new Gateway(config);
    gateway = gw;
    await gw.start();
    const bridge = gw.extension<HubBridge>('hub-bridge')!;
    while (bridge.client.state !== 'connected') await new Promise((r) => setTimeout(r, 10));
    const peers: VirtualPeer[] = gw.radios.flatMap((r) => (r as SimulatedRadio).virtualPeers());
    const address = gw.info.address;

    const sentAt = new Map<string, bigint>();
    let acked = 0;
    let ackLatencies: number[] = [];
    let onAllAcked: (() => void) | undefined;
    let target = 0;
    for (const p of peers) {
      p.on('received', (r) => {
        if (!r.message || !isAck(r.message)) return;
        const id = ackTarget(r.message)!;
        const at = sentAt.get(id);
        if (at === undefined) return;
        sentAt.delete(id);
        acked += 1;
        ackLatencies.push(Number(process.hrtime.bigint() - at) / 1e6);
        if (acked >= target) onAllAcked?.();
      });
    }
    const inject = (i: number, content: string): void => {
      const peer = peers[i % peers.length]!;
      const m = createMessage({
        id: MessageId.random(),
        sender: peer.address,
        recipient: address,
        app_id: 'bench',
        priority: 'medium',
        ttl: 8,
        hop_count: 0,
        timestamp: BigInt(Date.now()),
        content,
      });
      sentAt.set(m.id.toString(), process.hrtime.bigint());
      void peer.inject(encodeFrame(m, peer.preferredFormat)).catch(() => undefined);
    };

    // Throughput: keep `ahead` messages outstanding until the hub acknowledged all of them.
    let rssPeak = process.memoryUsage.rss();
    const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 100);
    acked = 0;
    target = total;
    let injected = 0;
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await new Promise<void>((resolve) => {
      onAllAcked = resolve;
      const topUp = (): void => {
        while (injected < total && injected - acked < ahead) inject(injected++, `load ${injected} ${'x'.repeat(120)}`);
        if (injected < total) setImmediate(topUp);
      };
      topUp();
    });
    const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = process.cpuUsage(cpu0);
    const throughput = total / elapsed;
    const cpuShare = (cpu.user + cpu.system) / 1e6 / elapsed;

    // Latency: a steady rate well inside capacity.
    await hub.ask('reset');
    acked = 0;
    ackLatencies = [];
    const count = rate * seconds;
    target = count;
    const done = new Promise<void>((resolve) => (onAllAcked = resolve));
    let sent = 0;
    const perTick = Math.max(1, Math.round(rate / 100));
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        for (let k = 0; k < perTick && sent < count; k++, sent++) inject(sent, `bench ${process.hrtime.bigint()}`);
        if (sent >= count) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
    });
    await done;
    clearInterval(rssTimer);
    const hubStats = await hub.ask<{ latencies: number[] }>('stats');
    const ackLat = ackLatencies.sort((a, b) => a - b);
    const hubLat = hubStats.latencies.sort((a, b) => a - b);
    const figures: RadioToHubFigures = {
      messages: total,
      throughput,
      baseline,
      cpuShare,
      latency: { rate, count, ackP50: quantile(ackLat, 0.5), ackP99: quantile(ackLat, 0.99), hubP50: quantile(hubLat, 0.5), hubP99: quantile(hubLat, 0.99), max: ackLat.at(-1) ?? NaN },
      rssPeak,
    };
    const mb = (b: number): string => (b / 1048576).toFixed(1);
    print(`radio -> hub bench (4 simulated radios, 8 peers, BLE fragments, hub outbox in sqlite synchronous=${(options.storeSync ?? 'full').toUpperCase()}, dev hub in another process)`);
    print(`  baseline HubClient send, same hub and store   ${baseline.toFixed(0).padStart(8)} msg/s`);
    print(`  radio -> hub throughput (${total} msgs, ACKed)   ${throughput.toFixed(0).padStart(8)} msg/s   ${(throughput / baseline).toFixed(2)}x baseline   gateway CPU ${(cpuShare * 100).toFixed(0)} % of one core`);
    print(`  latency at ${rate} msg/s (${count} msgs)  to the hub p50 ${figures.latency.hubP50.toFixed(2)} ms  p99 ${figures.latency.hubP99.toFixed(2)} ms   to the mesh ACK (after message.ack) p50 ${figures.latency.ackP50.toFixed(2)} ms  p99 ${figures.latency.ackP99.toFixed(2)} ms  max ${figures.latency.max.toFixed(2)} ms`);
    print(`  RSS of the bench process (gateway + driver) peak ${mb(rssPeak)} MB`);
    return figures;
  } finally {
    await gateway?.stop();
    await hub.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runWhenMain(module, benchRadioToHub);
