/**
 * The serial radio through the whole gateway, on a real pseudo-terminal (issue 11): the gateway process opens the
 * pty's slave with the real `serialport` package from its config file, as it opens /dev/ttyACM0, and this driver
 * holds the master (devble/pty.ts) and is the mesh radio: HELLO both ways, serial-framed mesh frames in, the mesh
 * ACKs read back off the line and counted. The clock and the gateway's CPU stop when every ACK has arrived.
 *
 * The baseline, in the same run: the same gateway with one remote-peers simulated radio (`bench/gateway-bench-radio.ts`,
 * BLE fragments over IPC), the same messages, the same window of un-ACKed messages, measured until every ACK is
 * written. Both radios keep the shipped per-peer queue (64 frames), so ACK bursts meet `QUEUE_FULL` as on a site.
 *
 * `benchSerialRadio()` prints and returns gateway CPU seconds per 1 000 messages (ACKs included) for both paths,
 * their ratio, and messages/s wall. Target (issue 11): ≤ 0.2 CPU s per 1 000 messages on the serial path.
 * `bench/gateway.bench.ts` calls it last (BENCH_SERIAL=0 skips it); alone: `node dist/bench/gateway-serial.bench.js`.
 *
 * Variables: BENCH_SERIAL_MESSAGES (10 000), BENCH_SERIAL_AHEAD (un-ACKed messages in flight, 1 000),
 * BENCH_STORE_SYNC, BENCH_NODE_FLAGS, BENCH_CPUPROF=<dir> (profiles both gateway processes).
 */
import { randomBytes } from 'node:crypto';
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { PtyLink } from '../devble/pty';
import { FragmentLink } from '../gateway/radios/fragment-link';
import type { RadioStatus } from '../gateway/radios/radio';
import { deriveAddress } from '../lib/mesh/address';
import { isAck } from '../lib/mesh/ack';
import { fragmentSizeForMtu } from '../lib/mesh/ble-fragment';
import { decodeFrame } from '../lib/mesh/frame';
import { encodeSerialFrame, encodeSerialHello, SerialDeframer, SerialFrameType } from '../lib/mesh/serial-framing';
import { benchFrame, packUnits } from './gateway-bench-radio';
import { asker, runWhenMain, type Ask } from './child-ipc';
import { shippedNodeFlags } from '../test/support/systemd-unit';

export interface SerialBenchOptions {
  messages?: number;
  ahead?: number;
  print?: (line: string) => void;
}

export interface SerialPathFigures {
  messages: number;
  acks: number;
  cpuSeconds: number;
  /** Of which in the kernel (system calls of the process's threads, the thread pool's included). */
  systemSeconds: number;
  /** Gateway CPU seconds per 1 000 messages ACKed (all of them unless the run stalled). */
  cpuPer1000: number;
  rate: number;
  queueFull: number;
}

export interface SerialBenchFigures {
  serial: SerialPathFigures;
  simulated: SerialPathFigures;
  ratio: number;
}

const BATCH = Number(process.env.BENCH_SERIAL_BATCH ?? 100);
/** The per-peer queue of both radios: the shipped default unless BENCH_SERIAL_QUEUE_LIMIT says otherwise. */
const QUEUE_LIMIT = process.env.BENCH_SERIAL_QUEUE_LIMIT !== undefined ? Number(process.env.BENCH_SERIAL_QUEUE_LIMIT) : undefined;
const queueSetting = (): Record<string, number> => (QUEUE_LIMIT !== undefined ? { queue_limit: QUEUE_LIMIT } : {});
const WARMUP = 1000;
const TARGET_CPU_PER_1000 = 0.2;
/** No new ACK for this long: the missing ones are lost (the router's retries of a full queue ran out). */
const STALL_MS = 20_000;

interface GwStats {
  metrics?: Record<string, number | Record<string, number>>;
  cpuUs: number;
  cpuSystemUs: number;
  acks: number;
  written: number;
  radios: RadioStatus[];
}


const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function nodeFlags(): string[] {
  return process.env.BENCH_NODE_FLAGS !== undefined ? process.env.BENCH_NODE_FLAGS.split(/\s+/).filter(Boolean) : shippedNodeFlags();
}

interface Gateway {
  child: ChildProcess;
  ask: Ask;
  address: string;
  peers: Array<{ address: string; binary: boolean }>;
  stop(): Promise<void>;
}

async function startGateway(dir: string, url: string, mode: 'remote' | 'config', radios: unknown[], layout: unknown[]): Promise<Gateway> {
  const configFile = path.join(dir, `gateway-${mode}.yaml`);
  fs.writeFileSync(
    configFile,
    YAML.stringify({
      gateway: { id: `bench-${mode}`, state_dir: path.join(dir, `state-${mode}`), store_sync: process.env.BENCH_STORE_SYNC ?? 'full' },
      log: { level: 'warn' },
      // This bench measures the path of each message and keeps its own window (BENCH_SERIAL_AHEAD plus a batch);
      // its drivers do not play senders that retry, so admission control must not turn anything away here. That
      // bound is measured by bench:gateway's saturation run.
      mesh: { max_pending_deliveries: 100_000 },
      radios,
      mqtt: { url, version: 'auto', inflight: 256 },
      http: { enabled: false },
    }),
  );
  const profiling = process.env.BENCH_CPUPROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPUPROF}`, `--cpu-prof-name=gateway-${mode}.${process.pid}.cpuprofile`] : [];
  const child = fork(path.join(__dirname, 'gateway-bench-child.js'), [configFile, mode, JSON.stringify(layout)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [...nodeFlags(), ...profiling],
  });
  let stopping = false;
  child.on('exit', (code, signal) => {
    if (!stopping) throw new Error(`the ${mode} gateway process ended during the bench (code ${code}, signal ${signal})`);
  });
  const ask = asker(child);
  const { address, peers } = await ask<{ address: string; peers: Gateway['peers'] }>('ready');
  return {
    child,
    ask,
    address,
    peers,
    stop: async () => {
      stopping = true;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

const message = (sender: string, recipient: string, content: string): Uint8Array => benchFrame(sender, recipient, content, 'binary');

const contentOf = (i: number): string => `load ${i} ${'x'.repeat(120)}`;

function figures(messages: number, acks: number, before: GwStats, after: GwStats, elapsedS: number): SerialPathFigures {
  if (process.env.BENCH_DEBUG) {
    const flat = (m: GwStats['metrics']): Map<string, number> => new Map(Object.entries(m ?? {}).flatMap(([k, v]) => (typeof v === 'number' ? [[k, v]] : Object.entries(v).map(([l, n]) => [`${k}{${l}}`, n]))));
    const a = flat(before.metrics);
    for (const [k, v] of flat(after.metrics)) if (v !== a.get(k)) console.error(`  metric ${k} +${v - (a.get(k) ?? 0)}`);
  }
  const cpuSeconds = (after.cpuUs - before.cpuUs) / 1e6;
  const queueFull = (s: GwStats): number => s.radios.reduce((n, r) => n + (r.counters?.queueFull ?? 0), 0);
  const systemSeconds = (after.cpuSystemUs - before.cpuSystemUs) / 1e6;
  return { messages, acks, cpuSeconds, systemSeconds, cpuPer1000: (cpuSeconds * 1000) / Math.max(1, acks), rate: acks / elapsedS, queueFull: queueFull(after) - queueFull(before) };
}

/** One remote-peers simulated radio with one binary peer; the driver sends BLE fragments over IPC. */
async function simulatedPath(dir: string, url: string, broker: ChildProcess, messages: number, ahead: number): Promise<SerialPathFigures> {
  const layout = [{ id: 'sim0', queue_limit: QUEUE_LIMIT ?? 64, peers: [{ id: 'p0', wire_versions: [1] }] }];
  const gw = await startGateway(dir, url, 'remote', [{ id: 'sim0', kind: 'simulated', ...queueSetting(), peers: layout[0]!.peers }], layout);
  const askBroker = asker(broker);
  try {
    const sender = gw.peers[0]!.address;
    const size = fragmentSizeForMtu(undefined);
    const batchOf = (from: number, n: number): Record<string, unknown> => ({
      type: 'units',
      peer: 0,
      units: packUnits(Array.from({ length: n }, (_, k) => message(sender, gw.address, contentOf(from + k))).flatMap((f) => FragmentLink.fragment(f, size))),
    });
    // Top-ups follow the broker's progress reports (the gateway is asked nothing while the messages flow); once the
    // broker has them all, the gateway's count of ACK frames written is polled until it has them all too.
    const run = async (n: number): Promise<{ acks: number; elapsedS: number }> => {
      const start = await gw.ask<GwStats>('stats');
      await askBroker('reset');
      const batches = Array.from({ length: Math.ceil(n / BATCH) }, (_, b) => batchOf(b * BATCH, Math.min(BATCH, n - b * BATCH)));
      const t0 = process.hrtime.bigint();
      let sent = 0;
      const topUp = (count: number): void => {
        while (sent < batches.length && sent * BATCH - count < ahead) gw.child.send(batches[sent++]!);
      };
      const onProgress = (m: { type: string; count?: number }): void => {
        if (m.type === 'progress') topUp(m.count!);
      };
      broker.on('message', onProgress);
      topUp(0);
      try {
        while ((await askBroker<{ count: number }>('stats')).count < n) await sleep(20);
      } finally {
        broker.off('message', onProgress);
      }
      let last = -1;
      let lastAt = process.hrtime.bigint();
      for (;;) {
        const s = await gw.ask<GwStats>('stats');
        const acks = s.written - start.written;
        if (acks !== last) {
          last = acks;
          lastAt = process.hrtime.bigint();
        }
        if (acks >= n || Number(process.hrtime.bigint() - lastAt) / 1e6 > STALL_MS) return { acks, elapsedS: Number(lastAt - t0) / 1e9 };
        await sleep(5);
      }
    };
    await run(WARMUP);
    const before = await gw.ask<GwStats>('stats');
    const { acks, elapsedS } = await run(messages);
    const after = await gw.ask<GwStats>('stats');
    return figures(messages, acks, before, after, elapsedS);
  } finally {
    await gw.stop();
  }
}

/** The mesh radio at the master end of the pty: answers the gateway's HELLO, counts the ACKs it reads. */
class SerialDevice {
  readonly address = deriveAddress(randomBytes(32));
  acks = 0;
  others = 0;
  greeted = false;
  onAck: (() => void) | undefined;
  readonly #deframer = new SerialDeframer();

  get counters(): unknown {
    return this.#deframer.counters;
  }

  constructor(readonly pty: PtyLink) {
    pty.on('data', (chunk) => {
      for (const f of this.#deframer.push(chunk)) {
        if (f.type === SerialFrameType.HELLO) {
          // serialport flushes the line when it opens it: the device speaks once the gateway has.
          pty.write(Buffer.from(encodeSerialFrame(SerialFrameType.HELLO, encodeSerialHello({ address: this.address, wireVersions: [1], maxFrame: 1_048_576, role: 'radio' }))));
          this.greeted = true;
        } else if (f.type === SerialFrameType.DATA) {
          if (isAck(decodeFrame(f.payload))) {
            this.acks += 1;
            this.onAck?.();
          } else this.others += 1;
        }
      }
    });
  }
}

async function serialPath(dir: string, url: string, messages: number, ahead: number): Promise<SerialPathFigures> {
  const pty = await PtyLink.open();
  const device = new SerialDevice(pty);
  const gw = await startGateway(dir, url, 'config', [{ id: 'usb0', kind: 'serial', path: pty.path, ...queueSetting() }], []);
  try {
    while (!device.greeted) await sleep(10);
    const batchOf = (from: number, n: number): Buffer =>
      Buffer.concat(Array.from({ length: n }, (_, k) => encodeSerialFrame(SerialFrameType.DATA, message(device.address, gw.address, contentOf(from + k)))));
    const run = async (n: number): Promise<{ acks: number; elapsedS: number }> => {
      const batches = Array.from({ length: Math.ceil(n / BATCH) }, (_, b) => batchOf(b * BATCH, Math.min(BATCH, n - b * BATCH)));
      const first = device.acks;
      let sent = 0;
      const t0 = process.hrtime.bigint();
      let lastAckAt = process.hrtime.bigint();
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearInterval(watchdog);
          device.onAck = undefined;
          resolve();
        };
        // The router gives up on an ACK whose queue stayed full through all its retries: that ACK never comes.
        const watchdog = setInterval(() => {
          if (Number(process.hrtime.bigint() - lastAckAt) / 1e6 > STALL_MS) done();
        }, 500);
        const topUp = (): void => {
          lastAckAt = process.hrtime.bigint();
          const acked = device.acks - first;
          if (acked >= n) {
            done();
            return;
          }
          while (sent < batches.length && sent * BATCH - acked < ahead) pty.write(batches[sent++]!);
        };
        device.onAck = topUp;
        topUp();
      });
      return { acks: device.acks - first, elapsedS: Number(lastAckAt - t0) / 1e9 };
    };
    // The first message waits for the device's HELLO to be learnt (sender verification); the warm-up retries none.
    await run(WARMUP);
    const before = await gw.ask<GwStats>('stats');
    const { acks, elapsedS } = await run(messages);
    const after = await gw.ask<GwStats>('stats');
    if (process.env.BENCH_DEBUG) console.error('device deframer', device.counters, 'radio', after.radios.map((r) => r.counters));
    if (device.others > 0) throw new Error(`the device read ${device.others} frames that are not ACKs`);
    return figures(messages, acks, before, after, elapsedS);
  } finally {
    await gw.stop();
    await pty.close();
  }
}

export async function benchSerialRadio(options: SerialBenchOptions = {}): Promise<SerialBenchFigures> {
  const messages = options.messages ?? Number(process.env.BENCH_SERIAL_MESSAGES ?? 10000);
  const ahead = options.ahead ?? Number(process.env.BENCH_SERIAL_AHEAD ?? 1000);
  const print = options.print ?? ((line: string) => console.log(line));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-serial-bench-'));
  const broker = fork(path.join(__dirname, 'gateway-broker-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const { port } = await asker(broker)<{ port: number }>('ready');
    const url = `mqtt://127.0.0.1:${port}`;
    const simulated = await simulatedPath(dir, url, broker, messages, ahead);
    const serial = await serialPath(dir, url, messages, ahead);
    const ratio = serial.cpuPer1000 / simulated.cpuPer1000;
    const row = (label: string, f: SerialPathFigures): string =>
      `  ${label.padEnd(44)} ${f.cpuPer1000.toFixed(3)} CPU s / 1000 msgs (${((f.systemSeconds * 1000) / f.messages).toFixed(3)} system)   ${f.rate.toFixed(0).padStart(6)} msg/s wall   ${f.acks} ACKs   ${f.queueFull} QUEUE_FULL`;
    print(`serial radio bench (${messages} msgs each after a ${WARMUP}-message warm-up, ${ahead} un-ACKed in flight, gateway CPU until every ACK is written/read back)`);
    print(row('baseline: one remote-peers simulated radio', simulated));
    print(row('serial radio on a real pty (serialport)', serial));
    for (const [label, f] of [['simulated', simulated], ['serial', serial]] as const) {
      if (f.acks < f.messages) print(`  ${label}: STALLED, ${f.messages - f.acks} ACKs never arrived (no ACK for ${STALL_MS / 1000} s); figures per ACK that arrived`);
    }
    const met = serial.cpuPer1000 <= TARGET_CPU_PER_1000 && serial.acks >= serial.messages;
    print(`  serial / simulated ${ratio.toFixed(2)}x   target serial <= ${TARGET_CPU_PER_1000} CPU s / 1000 msgs, every ACK back: ${met ? 'ok' : 'MISSED'}`);
    return { serial, simulated, ratio };
  } finally {
    broker.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runWhenMain(module, benchSerialRadio);
