/**
 * The serial radio through the whole gateway, on a real pseudo-terminal (issue 11): the gateway process opens the
 * pty's slave with the real `serialport` package from its config file, as it opens /dev/ttyACM0, and this driver
 * holds the master (devble/pty.ts) and is the mesh radio: HELLO both ways, serial-framed mesh frames in, the mesh
 * ACKs read back off the line and counted. The clock and the gateway's CPU stop when every ACK has arrived.
 *
 * The baseline, in the same run: the same gateway with one remote-peers simulated radio (`bench/gateway-bench-radio.ts`,
 * BLE fragments on a byte stream of their own, `bench/radio-link.ts`), the same messages, the same window of
 * un-ACKed messages, measured until every ACK is written. Both radios keep the shipped per-peer queue (64 frames),
 * so ACK bursts meet `QUEUE_FULL` as on a site.
 *
 * Each path runs in two ways of offering load: windowed (as fast as the gateway ACKs, BENCH_SERIAL_AHEAD un-ACKed
 * messages in flight) and at fixed offered rates (BENCH_SERIAL_RATES, msg/s, for BENCH_SERIAL_SECONDS each), the
 * way a site's radios offer it. The serial path runs once per read/write route (`io`, BENCH_SERIAL_IO): `fd` (a
 * libuv stream, the default) and `serialport` (serialport's stream, the route before issue 26).
 *
 * `benchSerialRadio()` prints and returns, per path and mode, gateway CPU (user + system) in µs per message and in
 * s per 1 000 messages (ACKs included), the ratio to the simulated baseline in the same mode, messages/s achieved
 * and the load average. Targets: issue 11, ≤ 0.2 CPU s per 1 000 messages windowed; issue 26, ≤ 150 µs per message
 * at 1 000 and 5 000 msg/s offered. `bench/gateway.bench.ts` calls it last (BENCH_SERIAL=0 skips it); alone:
 * `node dist/bench/gateway-serial.bench.js`.
 *
 * Each row also prints the gateway main thread's sleeps per message (voluntary context switches: about its
 * wake-ups) and, beside it, the wake-up floor measured first in the same run (`bench/wakeup-floor.ts`: a bare node
 * with the same flags, echoing one byte per wake-up): that many wake-ups cost at least that much on this machine.
 * First of all, this process times the cheapest system call (`process.ppid`), which every read, write and wake-up pays.
 * Before the paths, the same bare node does a fixed piece of work per item at each offered rate, offered in the same
 * ticks (the duty-cycle baseline): how much more the same work costs per item at the lower rate on this machine.
 *
 * Variables: BENCH_SERIAL_MESSAGES (windowed, 10 000), BENCH_SERIAL_AHEAD (un-ACKed messages in flight, 1 000),
 * BENCH_SERIAL_RATES (1000,5000), BENCH_SERIAL_SECONDS (5), BENCH_SERIAL_IO (fd,serialport), BENCH_STORE_SYNC,
 * BENCH_COMMIT_MS (the gateways' `mqtt.commit_interval_ms`), BENCH_STORE (`gateway.store`: sqlite or memory), BENCH_NODE_FLAGS, BENCH_CPUPROF=<dir> (profiles every
 * gateway process).
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
import { benchFrame } from './gateway-bench-radio';
import { RADIO_LINK_STDIO, RadioLinkWriter } from './radio-link';
import { asker, runWhenMain, type Ask } from './child-ipc';
import { bareRun, systemCallUs, wakeupFloor, type BareRun } from './wakeup-floor';
import { shippedNodeFlags } from '../test/support/systemd-unit';

export interface SerialBenchOptions {
  messages?: number;
  ahead?: number;
  /** Offered rates, msg/s (default BENCH_SERIAL_RATES or 1000,5000; empty: windowed only). */
  rates?: number[];
  seconds?: number;
  /** Serial routes to run (default BENCH_SERIAL_IO or fd,serialport). */
  routes?: SerialIo[];
  print?: (line: string) => void;
}

type SerialIo = 'fd' | 'serialport';

/** How load is offered: `windowed` keeps `ahead` un-ACKed; a number is a fixed rate in msg/s. */
type Mode = 'windowed' | number;

export interface SerialPathFigures {
  mode: Mode;
  messages: number;
  acks: number;
  cpuSeconds: number;
  /** Of which in the kernel (system calls of the process's threads, the thread pool's included). */
  systemSeconds: number;
  /** Gateway CPU seconds per 1 000 messages ACKed (all of them unless the run stalled). */
  cpuPer1000: number;
  /** The same in µs per message (user + system). */
  usPerMessage: number;
  rate: number;
  queueFull: number;
  /** ACKs the router dropped: refused by a full queue through all its retries (what a "stall" is, when it is). */
  gaveUp: number;
  /** Sleeps of the gateway's main thread per message (voluntary context switches): about its wake-ups. */
  wakeupsPerMessage: number;
}

export interface SerialBenchFigures {
  /** Per mode, in the order run. */
  simulated: SerialPathFigures[];
  serial: Partial<Record<SerialIo, SerialPathFigures[]>>;
  loadavg: number[];
  /** A bare node's CPU per wake-up in the same run (bench/wakeup-floor.ts). */
  floor: BareRun;
  /** The same fixed work per item in a bare node at each offered rate, offered in the same ticks (bench/wakeup-floor.ts). */
  duty: BareRun[];
  /** µs per system call from JavaScript on this machine (bench/wakeup-floor.ts). */
  syscallUs: number;
}

const BATCH = Number(process.env.BENCH_SERIAL_BATCH ?? 100);
/** The per-peer queue of both radios: the shipped default unless BENCH_SERIAL_QUEUE_LIMIT says otherwise. */
const QUEUE_LIMIT = process.env.BENCH_SERIAL_QUEUE_LIMIT !== undefined ? Number(process.env.BENCH_SERIAL_QUEUE_LIMIT) : undefined;
const queueSetting = (): Record<string, number> => (QUEUE_LIMIT !== undefined ? { queue_limit: QUEUE_LIMIT } : {});
const WARMUP = 1000;
const TARGET_CPU_PER_1000 = 0.2;
const TARGET_US_AT_RATE = 150;
/** The fixed-rate driver's tick: it sends what the rate owes every this many ms. */
const RATE_TICK_MS = 5;
/** No new ACK for this long: the missing ones are lost (the router's retries of a full queue ran out). */
const STALL_MS = 20_000;

interface GwStats {
  metrics?: Record<string, number | Record<string, number>>;
  cpuUs: number;
  cpuSystemUs: number;
  mainSleeps: number;
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

async function startGateway(dir: string, url: string, mode: 'remote' | 'config', radios: unknown[], layout: unknown[], name: string = mode): Promise<Gateway> {
  const configFile = path.join(dir, `gateway-${name}.yaml`);
  fs.writeFileSync(
    configFile,
    YAML.stringify({
      gateway: { id: `bench-${name}`, state_dir: path.join(dir, `state-${name}`), store_sync: process.env.BENCH_STORE_SYNC ?? 'full', ...(process.env.BENCH_STORE ? { store: process.env.BENCH_STORE } : {}) },
      log: { level: 'warn' },
      // This bench measures the path of each message and keeps its own window (BENCH_SERIAL_AHEAD plus a batch);
      // its drivers do not play senders that retry, so admission control must not turn anything away here. That
      // bound is measured by bench:gateway's saturation run.
      mesh: { max_pending_deliveries: 100_000 },
      radios,
      mqtt: { url, version: 'auto', inflight: 256, ...(process.env.BENCH_COMMIT_MS ? { commit_interval_ms: Number(process.env.BENCH_COMMIT_MS) } : {}) },
      http: { enabled: false },
    }),
  );
  const profiling = process.env.BENCH_CPUPROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPUPROF}`, `--cpu-prof-name=gateway-${name}.${process.pid}.cpuprofile`] : [];
  const child = fork(path.join(__dirname, 'gateway-bench-child.js'), [configFile, mode, JSON.stringify(layout)], {
    stdio: [...RADIO_LINK_STDIO],
    // No memory or heap figure is printed here: the child's peak sampler and heap meter stay off
    // (bench/gateway-bench-child.ts), so the gateway's CPU per message does not count them.
    env: { ...process.env, BENCH_SAMPLE_MS: '0', BENCH_HEAP_METER: '0' },
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

function figures(mode: Mode, messages: number, acks: number, before: GwStats, after: GwStats, elapsedS: number): SerialPathFigures {
  if (process.env.BENCH_DEBUG) {
    const flat = (m: GwStats['metrics']): Map<string, number> => new Map(Object.entries(m ?? {}).flatMap(([k, v]) => (typeof v === 'number' ? [[k, v]] : Object.entries(v).map(([l, n]) => [`${k}{${l}}`, n]))));
    const a = flat(before.metrics);
    for (const [k, v] of flat(after.metrics)) if (v !== a.get(k)) console.error(`  metric ${k} +${v - (a.get(k) ?? 0)}`);
  }
  const cpuSeconds = (after.cpuUs - before.cpuUs) / 1e6;
  const queueFull = (s: GwStats): number => s.radios.reduce((n, r) => n + (r.counters?.queueFull ?? 0), 0);
  const systemSeconds = (after.cpuSystemUs - before.cpuSystemUs) / 1e6;
  const cpuPer1000 = (cpuSeconds * 1000) / Math.max(1, acks);
  const gaveUp = (st: GwStats): number => {
    const errors = st.metrics?.clawling_gateway_radio_send_errors_total;
    return typeof errors === 'object' ? Object.entries(errors).reduce((n, [labels, v]) => n + (labels.includes('QUEUE_FULL') ? v : 0), 0) : 0;
  };
  return {
    mode,
    messages,
    acks,
    cpuSeconds,
    systemSeconds,
    cpuPer1000,
    usPerMessage: cpuPer1000 * 1000,
    rate: acks / elapsedS,
    queueFull: queueFull(after) - queueFull(before),
    gaveUp: gaveUp(after) - gaveUp(before),
    wakeupsPerMessage: (after.mainSleeps - before.mainSleeps) / Math.max(1, acks),
  };
}

/**
 * Offers `n` messages (`send(from, count)`), windowed or at a fixed rate, and resolves when `counts().acked` reaches
 * `n` or neither count moved for STALL_MS. The window is kept on `counts().progress`. Windowed top-ups run when the caller reports progress (`setKick`) and on a slow timer;
 * a rate sends, every RATE_TICK_MS, what it owes by then.
 */
function offer(
  mode: Mode,
  n: number,
  ahead: number,
  send: (from: number, count: number) => void,
  counts: () => { progress: number; acked: number },
  setKick: (kick: (() => void) | undefined) => void,
): Promise<{ acks: number; elapsedS: number }> {
  let sent = 0;
  let last = -1;
  let lastSum = -1;
  const t0 = process.hrtime.bigint();
  let lastAt = t0;
  return new Promise((resolve) => {
    const done = (): boolean => {
      const { progress, acked: a } = counts();
      last = progress;
      if (progress + a !== lastSum) {
        lastSum = progress + a;
        lastAt = process.hrtime.bigint();
      }
      if (a < n && Number(process.hrtime.bigint() - lastAt) / 1e6 <= STALL_MS) return false;
      clearInterval(timer);
      setKick(undefined);
      resolve({ acks: a, elapsedS: Number(lastAt - t0) / 1e9 });
      return true;
    };
    const pump = (): void => {
      if (done()) return;
      if (mode === 'windowed') {
        // Whole batches while fewer than `ahead` are un-ACKed (the window may overshoot by one batch).
        while (sent < n && sent - last < ahead) {
          const count = Math.min(BATCH, n - sent);
          send(sent, count);
          sent += count;
        }
        return;
      }
      const owed = Math.min(n, Math.floor((Number(process.hrtime.bigint() - t0) / 1e9) * mode));
      if (owed > sent) {
        send(sent, owed - sent);
        sent = owed;
      }
    };
    const timer = setInterval(pump, mode === 'windowed' ? 500 : RATE_TICK_MS);
    setKick(pump);
    pump();
  });
}

/** Messages a mode offers: windowed `messages`, a rate for `seconds`. */
const messagesFor = (mode: Mode, messages: number, seconds: number): number => (mode === 'windowed' ? messages : Math.round(mode * seconds));

interface PathPlan {
  modes: Mode[];
  messages: number;
  seconds: number;
  ahead: number;
}

/** One remote-peers simulated radio with one binary peer; the driver sends BLE fragments on the radio link. */
async function simulatedPath(dir: string, url: string, broker: ChildProcess, plan: PathPlan): Promise<SerialPathFigures[]> {
  const layout = [{ id: 'sim0', queue_limit: QUEUE_LIMIT ?? 64, peers: [{ id: 'p0', wire_versions: [1] }] }];
  const gw = await startGateway(dir, url, 'remote', [{ id: 'sim0', kind: 'simulated', ...queueSetting(), peers: layout[0]!.peers }], layout);
  const radioLink = RadioLinkWriter.of(gw.child);
  const askBroker = asker(broker);
  try {
    const sender = gw.peers[0]!.address;
    const size = fragmentSizeForMtu(undefined);
    // The gateway is asked nothing while messages flow: windowed top-ups follow the broker's progress reports, and
    // the ACK count (frames the gateway wrote) is polled only once the broker has every message.
    const run = async (mode: Mode, n: number): Promise<SerialPathFigures> => {
      const units = Array.from({ length: n }, (_, k) => FragmentLink.fragment(message(sender, gw.address, contentOf(k)), size));
      await askBroker('reset');
      const before = await gw.ask<GwStats>('stats');
      let published = 0;
      let written = 0;
      const onMessage = (m: { type: string; count?: number }): void => {
        if (m.type === 'progress') {
          published = m.count!;
          kick?.();
        }
      };
      let kick: (() => void) | undefined;
      broker.on('message', onMessage);
      let polling = true;
      const poll = (async () => {
        while (polling) {
          if (published >= n) written = (await gw.ask<GwStats>('stats')).written - before.written;
          // The broker reports progress every 256 messages; a slow rate sends fewer than that in STALL_MS, and
          // a count that never moved would read as a stall.
          else published = Math.max(published, Math.min(n, (await askBroker<{ count: number }>('stats')).count));
          await sleep(published >= n ? 5 : 20);
        }
      })();
      try {
        const { acks, elapsedS } = await offer(
          mode,
          n,
          plan.ahead,
          (from, count) => radioLink.send(0, units.slice(from, from + count).flat()),
          // The broker's count paces the window (as the ACKs do on the serial path); the run ends on ACKs written.
          () => ({ progress: published, acked: written }),
          (k) => {
            kick = k;
          },
        );
        const after = await gw.ask<GwStats>('stats');
        return figures(mode, n, acks, before, after, elapsedS);
      } finally {
        polling = false;
        await poll;
        broker.off('message', onMessage);
      }
    };
    await run('windowed', WARMUP);
    const out: SerialPathFigures[] = [];
    for (const mode of plan.modes) out.push(await run(mode, messagesFor(mode, plan.messages, plan.seconds)));
    return out;
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

async function serialPath(dir: string, url: string, io: SerialIo, plan: PathPlan): Promise<SerialPathFigures[]> {
  const pty = await PtyLink.open();
  const device = new SerialDevice(pty);
  const gw = await startGateway(dir, url, 'config', [{ id: 'usb0', kind: 'serial', path: pty.path, io, ...queueSetting() }], [], `serial-${io}`);
  try {
    while (!device.greeted) await sleep(10);
    const run = async (mode: Mode, n: number): Promise<SerialPathFigures> => {
      const frames = Array.from({ length: n }, (_, k) => Buffer.from(encodeSerialFrame(SerialFrameType.DATA, message(device.address, gw.address, contentOf(k)))));
      const first = device.acks;
      const before = await gw.ask<GwStats>('stats');
      const { acks, elapsedS } = await offer(
        mode,
        n,
        plan.ahead,
        (from, count) => pty.write(count === 1 ? frames[from]! : Buffer.concat(frames.slice(from, from + count))),
        () => ({ progress: device.acks - first, acked: device.acks - first }),
        (kick) => {
          device.onAck = kick;
        },
      );
      const after = await gw.ask<GwStats>('stats');
      return figures(mode, n, acks, before, after, elapsedS);
    };
    // The first message waits for the device's HELLO to be learnt (sender verification); the warm-up retries none.
    await run('windowed', WARMUP);
    const out: SerialPathFigures[] = [];
    for (const mode of plan.modes) out.push(await run(mode, messagesFor(mode, plan.messages, plan.seconds)));
    if (process.env.BENCH_DEBUG) console.error('device deframer', device.counters);
    if (device.others > 0) throw new Error(`the device read ${device.others} frames that are not ACKs`);
    return out;
  } finally {
    await gw.stop();
    await pty.close();
  }
}

const listOf = (raw: string | undefined, fallback: string): string[] => (raw ?? fallback).split(',').map((x) => x.trim()).filter(Boolean);

export async function benchSerialRadio(options: SerialBenchOptions = {}): Promise<SerialBenchFigures> {
  const messages = options.messages ?? Number(process.env.BENCH_SERIAL_MESSAGES ?? 10000);
  const ahead = options.ahead ?? Number(process.env.BENCH_SERIAL_AHEAD ?? 1000);
  const rates = options.rates ?? listOf(process.env.BENCH_SERIAL_RATES, '1000,5000').map(Number);
  const seconds = options.seconds ?? Number(process.env.BENCH_SERIAL_SECONDS ?? 5);
  const routes = options.routes ?? (listOf(process.env.BENCH_SERIAL_IO, 'fd,serialport') as SerialIo[]);
  const print = options.print ?? ((line: string) => console.log(line));
  const plan: PathPlan = { modes: ['windowed', ...rates], messages, seconds, ahead };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-serial-bench-'));
  const broker = fork(path.join(__dirname, 'gateway-broker-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const loadBefore = os.loadavg();
  try {
    const { port } = await asker(broker)<{ port: number }>('ready');
    const url = `mqtt://127.0.0.1:${port}`;
    const syscallUs = systemCallUs();
    const floor = await wakeupFloor(nodeFlags());
    const duty: BareRun[] = [];
    for (const rate of rates) duty.push(await bareRun(nodeFlags(), { rate, tickMs: RATE_TICK_MS, seconds: 3, work: true }));
    const simulated = await simulatedPath(dir, url, broker, plan);
    const serial: SerialBenchFigures['serial'] = {};
    for (const io of routes) serial[io] = await serialPath(dir, url, io, plan);
    const loadavg = os.loadavg();
    const modeLabel = (m: Mode): string => (m === 'windowed' ? `windowed (${ahead} ahead)` : `${m} msg/s offered`);
    const row = (label: string, f: SerialPathFigures, base: SerialPathFigures | undefined): string =>
      `  ${label.padEnd(30)} ${modeLabel(f.mode).padEnd(22)} ${f.usPerMessage.toFixed(0).padStart(4)} µs/msg (${((f.systemSeconds * 1e6) / Math.max(1, f.acks)).toFixed(0).padStart(3)} system) = ${f.cpuPer1000.toFixed(3)} CPU s/1000` +
      `${base ? `  ${(f.usPerMessage / base.usPerMessage).toFixed(2)}x sim` : '        '}   ${f.rate.toFixed(0).padStart(5)} msg/s   ${String(f.acks).padStart(5)}/${f.messages} ACKs   ${f.queueFull} QUEUE_FULL` +
      `   ${f.wakeupsPerMessage.toFixed(2)} wake-ups/msg (floor ${(f.wakeupsPerMessage * floor.usPerWakeup).toFixed(0)} µs)`;
    print(
      `serial radio bench, Node ${process.version}: windowed ${messages} msgs, rates ${rates.join(', ')} msg/s for ${seconds} s each, after a ${WARMUP}-message warm-up; gateway CPU (user + system) until every ACK is written/read back`,
    );
    print(`  load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadavg.map((l) => l.toFixed(2)).join(' ')}`);
    print(`  system call: the cheapest one from JavaScript (process.ppid, one getppid) costs ${syscallUs.toFixed(2)} µs on this machine`);
    print(
      `  wake-up floor: a bare node with the same flags, echoing one byte per wake-up at ${floor.rate.toFixed(0)}/s, spends ${floor.usPerWakeup.toFixed(1)} µs of CPU per wake-up (${floor.sleepsPerRead.toFixed(2)} sleeps per byte); "floor" below is the gateway's main-thread wake-ups per message times that`,
    );
    if (duty.length > 0) {
      const last = duty[duty.length - 1]!;
      print(
        `  duty-cycle baseline: the same fixed work per item in a bare node, offered like the rows below (every ${RATE_TICK_MS} ms, what the rate owes): ${duty
          .map((d) => `${d.usPerItem.toFixed(1)} µs per item at ${d.rate}/s (${(d.usPerItem / last.usPerItem).toFixed(2)}x)`)
          .join(', ')}`,
      );
    }
    for (const f of simulated) print(row('baseline: simulated radio', f, undefined));
    for (const io of routes) for (const [i, f] of serial[io]!.entries()) print(row(`serial on a pty (io: ${io})`, f, simulated[i]));
    const all: Array<[string, SerialPathFigures]> = [...simulated.map((f) => ['simulated', f] as [string, SerialPathFigures]), ...routes.flatMap((io) => serial[io]!.map((f) => [`serial ${io}`, f] as [string, SerialPathFigures]))];
    for (const [label, f] of all) {
      if (f.acks < f.messages) {
        print(
          `  ${label} ${modeLabel(f.mode)}: STALLED, ${f.messages - f.acks} ACKs never arrived (no ACK for ${STALL_MS / 1000} s), ${f.gaveUp} of them refused by a full queue through all the router's retries; figures per ACK that arrived`,
        );
      }
    }
    for (const io of routes) {
      const figs = serial[io]!;
      const windowed = figs.find((f) => f.mode === 'windowed');
      const verdicts = [
        ...(windowed ? [`windowed <= ${TARGET_CPU_PER_1000} CPU s/1000: ${windowed.cpuPer1000 <= TARGET_CPU_PER_1000 && windowed.acks >= windowed.messages ? 'ok' : 'MISSED'}`] : []),
        ...figs.filter((f) => f.mode !== 'windowed').map((f) => `${f.mode} msg/s <= ${TARGET_US_AT_RATE} µs: ${f.usPerMessage <= TARGET_US_AT_RATE && f.acks >= f.messages ? 'ok' : 'MISSED'}`),
      ];
      print(`  targets, io: ${io}: ${verdicts.join('; ')}`);
    }
    return { simulated, serial, loadavg, floor, duty, syscallUs };
  } finally {
    broker.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runWhenMain(module, benchSerialRadio);
