/**
 * The gateway under test of `bench/gateway.bench.ts`, in its own process and started as `clawling gateway` starts it
 * (`runGateway`: config file, logger, signals), so that its RSS and CPU are the gateway's alone.
 *
 * Two kinds of peers (argv[3]):
 * - `remote` (default): the peers are the driver. Their BLE fragments arrive on a byte stream of their own
 *   (`bench/radio-link.ts`, fd 4) and go through the reassembly of `RemotePeersRadio`; the ACKs the gateway writes
 *   are fragmented and counted, not decoded.
 * - `in-process`: the simulated radios of the config with their virtual peers, as `npm start` runs them; whole frames
 *   arrive over IPC and the virtual peers fragment them, reassemble the gateway's ACKs and decode them, in this process.
 * - `config`: the radios of the config as shipped (`bench/gateway-serial.bench.ts`: a serial radio on a pty whose
 *   far end is the driver); nothing arrives over IPC or the radio link, `written` counts the frames the radios wrote.
 */
import fs from 'node:fs';
import inspector from 'node:inspector';
import v8 from 'node:v8';
import { runGateway } from '../gateway/main';
import { resolveRadioConfig } from '../gateway/radios/radio-config';
import { backgroundClock } from '../lib/clock';
import type { Radio } from '../gateway/radios/radio';
import type { SimulatedRadio, VirtualPeer } from '../gateway/radios';
import { RemotePeersRadio, remotePeers } from './gateway-bench-radio';
import { readRadioLink } from './radio-link';
import { heapMeter } from './heap-meter';
import { mainThreadCpuUs, mainThreadSchedule, mainThreadSleeps } from './main-thread';

type FromParent =
  | { type: 'frames'; peer: number; frames: string[] }
  | { type: 'stats' }
  | { type: 'reset-peak' }
  | { type: 'watch-acks'; on: boolean };

interface Layout {
  id: string;
  queue_limit: number;
  peers: Array<{ id: string; wire_versions: number[] }>;
}

const configFile = process.argv[2];
const mode = process.argv[3] ?? 'remote';
const layout = JSON.parse(process.argv[4] ?? '[]') as Layout[];
if (!configFile || !process.send) throw new Error('usage: gateway-bench-child <config.yaml> [remote|in-process|config] [radios json] (with an IPC channel)');

/** The file-backed part of the RSS (the node binary and shared libraries, shared with every node process) vs the rest. */
function rssSplit(): { file: number; anon: number } {
  try {
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { file: kb('RssFile'), anon: kb('RssAnon') + kb('RssShmem') };
  } catch {
    return { file: NaN, anon: NaN };
  }
}

/**
 * BENCH_DEBUG: the anonymous RSS by where it lives, from `/proc/self/smaps`: `[heap]` (the main thread's malloc),
 * mappings of V8's 256 KB page size, glibc's per-thread malloc arenas (reserved 64 MB at a time), the rest. In kB.
 */
function anonByKind(): Record<string, number> {
  const out: Record<string, number> = { heap: 0, v8pages: 0, arenas: 0, other: 0 };
  let kind = 'other';
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      const size = (parseInt(head[2]!, 16) - parseInt(head[1]!, 16)) / 1024;
      const name = head[4]!;
      if (head[3] !== '0' || (name !== '' && name !== '[heap]' && !name.startsWith('[anon'))) kind = 'file';
      else if (name === '[heap]') kind = 'heap';
      else if (size % 256 === 0 && size <= 4096) kind = 'v8pages';
      else if (size >= 1024 * 1024 / 16 && size <= 65536) kind = 'arenas';
      else kind = 'other';
      continue;
    }
    const anon = /^Anonymous:\s+(\d+) kB/.exec(line);
    if (anon && kind !== 'file') out[kind]! += Number(anon[1]);
  }
  return out;
}

let peakRss = process.memoryUsage.rss();
/** The most messages the gateway held taken and unACKed at once (admission control bounds it). */
let peakPending = 0;
let pendingNow: () => number = () => 0;
let peakSplit = rssSplit();
let peakDetail: Record<string, unknown> = {};
/**
 * How often the peaks are sampled; 0 turns the sampler off. Each sample reads /proc/self/stat (~0.1 ms on this
 * machine): a bench that prints no memory figure (the serial one) turns it off, or the gateway's CPU per message
 * would count it.
 */
const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 25);
if (SAMPLE_MS > 0) setInterval(() => {
  peakPending = Math.max(peakPending, pendingNow());
  const rss = process.memoryUsage.rss();
  if (rss > peakRss) {
    peakRss = rss;
    peakSplit = rssSplit();
    // Only for BENCH_DEBUG: what the heap was made of at the peak.
    if (process.env.BENCH_DEBUG) {
      peakDetail = { ...process.memoryUsage(), anon: anonByKind(), spaces: Object.fromEntries(v8.getHeapSpaceStatistics().map((sp) => [sp.space_name, Math.round(sp.space_size / 1024)])) };
    }
  }
}, SAMPLE_MS).unref();

/**
 * Bytes the V8 heap allocated since start, and the time its collections took (bench/heap-meter.ts). BENCH_HEAP_METER=0
 * turns it off (readings are then zero): V8's GC profiler keeps a record of every collection in the measured
 * process until read, about 300 bytes per message at 1 000 msg/s that live long enough to reach the old generation
 * and its marking (V8's sampling heap profiler) — a bench that prints no heap figure (the serial one) should not
 * pay for it.
 */
const heapAllocated = process.env.BENCH_HEAP_METER === '0' ? () => ({ allocated: 0, gcUs: 0, gcCount: 0 }) : heapMeter();

/**
 * BENCH_ALLOCPROF=<file>: where the heap allocations come from, collected ones included (V8's sampling heap
 * profiler through the inspector), written on SIGTERM. With BENCH_ALLOCPROF_OLD=1, what young collections freed is
 * left out: what remains lived long enough to be promoted, the garbage that drives the old generation's marking.
 */
if (process.env.BENCH_ALLOCPROF) {
  const out = process.env.BENCH_ALLOCPROF;
  const session = new inspector.Session();
  session.connect();
  session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !process.env.BENCH_ALLOCPROF_OLD });
  process.once('SIGTERM', () => {
    session.post('HeapProfiler.stopSampling', (err, r) => {
      if (!err) fs.writeFileSync(out, JSON.stringify(r.profile));
      process.exit(0);
    });
  });
}

const remote: RemotePeersRadio[] = [];
/** hrtime (ns) at which each ACK was written, by acknowledged id, while the latency run watches. */
let ackTimes: Array<[string, string]> = [];

void runGateway({
  configFile,
  env: {},
  stderr: process.stderr,
  ...(mode === 'remote'
    ? {
        radios: (logger) =>
          layout.map((r): Radio => {
            const resolved = resolveRadioConfig({ id: r.id, kind: 'simulated', queue_limit: r.queue_limit });
            const radio = new RemotePeersRadio(r.id, remotePeers(r.id, r.peers), {
              logger,
              clock: backgroundClock,
              queueLimit: resolved.queueLimit,
              queueByteLimit: resolved.queueByteLimit,
            });
            remote.push(radio);
            return radio;
          }),
      }
    : {}),
  onStarted: (gateway) => {
    const virtual: VirtualPeer[] = mode !== 'in-process' ? [] : gateway.radios.flatMap((r) => (r as SimulatedRadio).virtualPeers());
    // A virtual peer keeps every receipt for tests to inspect; a bench must not measure that archive.
    for (const p of virtual) p.on('received', () => p.clearReceived());
    pendingNow = () => gateway.router.pendingDeliveryCount;
    // Frames turned away by admission control go back to the driver, which plays their senders and retries them.
    let busy: string[] = [];
    const busyReporter = {};
    gateway.bus.on('frameRejected', busyReporter, (e) => {
      if (e.code !== 'GATEWAY_BUSY' || e.messageId === undefined) return;
      if (busy.length === 0) setImmediate(() => {
        process.send!({ type: 'busy', ids: busy });
        busy = [];
      });
      busy.push(e.messageId);
    });
    const links = remote.flatMap((radio) => radio.peers().map((p) => ({ radio, peerId: p.id, address: p.address!, binary: p.wireVersions.includes(1) })));
    if (mode === 'remote') {
      readRadioLink((peer, units) => {
        const link = links[peer]!;
        link.radio.receive(link.peerId, units);
      });
    }
    process.on('message', (m: FromParent) => {
      if (m.type === 'frames') {
        const peer = virtual[m.peer]!;
        for (const f of m.frames) peer.inject(Buffer.from(f, 'base64')).catch(() => undefined);
      } else if (m.type === 'watch-acks') {
        ackTimes = [];
        for (const r of remote) r.onAck = m.on ? (id) => ackTimes.push([id, process.hrtime.bigint().toString()]) : undefined;
        process.send!({ type: 'watch-acks' });
      } else if (m.type === 'stats') {
        const cpu = process.cpuUsage();
        const written = mode === 'config' ? gateway.radios.reduce((n, r) => n + (r.status().counters?.framesOut ?? 0), 0) : remote.reduce((n, r) => n + r.written.frames, 0);
        process.send!({
          type: 'stats',
          rss: process.memoryUsage.rss(),
          peakRss,
          peakSplit,
          split: rssSplit(),
          cpuUs: cpu.user + cpu.system,
          cpuSystemUs: cpu.system,
          heap: heapAllocated(),
          mainCpuUs: mainThreadCpuUs(),
          mainSleeps: mainThreadSleeps(),
          schedule: mainThreadSchedule(),
          acks: gateway.metrics.counter('clawling_gateway_acks_sent_total', '').total(),
          written,
          ackTimes,
          peakDetail,
          peakPending,
          metrics: gateway.metrics.snapshot(),
          radios: gateway.radios.map((r) => r.status()),
        });
      } else if (m.type === 'reset-peak') {
        peakRss = process.memoryUsage.rss();
        peakSplit = rssSplit();
        peakPending = 0;
        process.send!({ type: 'reset-peak' });
      }
    });
    const peers =
      mode === 'remote'
        ? links.map((l) => ({ address: l.address, binary: l.binary }))
        : virtual.map((p) => ({ address: p.address, binary: p.preferredFormat === 'binary' }));
    process.send!({ type: 'ready', address: gateway.info.address, peers, status: gateway.statusUrl });
  },
}).then((code) => process.exit(code));
