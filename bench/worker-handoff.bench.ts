/**
 * `npm run bench:worker-handoff` (issue 26): would a radio worker thread lower the gateway's main thread's CPU per
 * message? A worker could own the radio links, reassemble and decode frames, and hand each message to the main
 * thread (where the outbox, MQTT and the extensions live). That pays only if receiving a message from the worker
 * costs the main thread less than decoding it there.
 *
 * The frames are the gateway bench's (one sensor reading, half wire v1 and half JSON floor). Rows, each the main
 * thread's own CPU per message (`/proc/self/task/<pid>/stat`) and the wall rate:
 *
 * 1. decoding on the main thread, as the gateway does today (the baseline);
 * 2. a worker posts each decoded message (structured clone of its fields) and the main thread gives its ids their
 *    class back, one `postMessage` per message;
 * 3. the same, 64 messages per `postMessage`;
 * 4. a worker posts each frame's bytes undecoded, 64 per `postMessage`: the floor of any handoff, with nothing done.
 *
 * The worker prepares everything it sends before the clock starts, so the rows measure the receiving side alone.
 *
 *   npm run build && node dist/bench/worker-handoff.bench.js      (BENCH_MESSAGES, default 100 000; BENCH_ROUNDS, 5)
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { decodeFrameWithFormat, type FrameFormat } from '../lib/mesh/frame';
import { MessageId } from '../lib/mesh/message-id';
import type { MeshMessage } from '../lib/mesh/message';
import { identityFromSeed } from '../gateway/radios/mesh-identity';
import { benchFrame } from './gateway-bench-radio';
import { mainThreadCpuUs } from './main-thread';

const N = Number(process.env.BENCH_MESSAGES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BATCH = 64;

export type HandoffMode = 'messages' | 'batches' | 'frames';

/** The bench's frames: peers 0–3 send wire v1, 4–7 the JSON floor, as in `bench:gateway`. */
export function handoffFrames(n: number): Uint8Array[] {
  const gateway = identityFromSeed('clawling-bench:gateway').address;
  const senders = Array.from({ length: 8 }, (_, i) => identityFromSeed(`clawling-bench:peer${i}`).address);
  return Array.from({ length: n }, (_, i) => {
    const peer = i % senders.length;
    const format: FrameFormat = peer < 4 ? 'binary' : 'json';
    return benchFrame(senders[peer]!, gateway, `load ${i} ${'x'.repeat(120)}`, format);
  });
}

/** A message as structured clone delivers it: its ids lost their class. */
type Cloned = Omit<MeshMessage, 'id' | 'reply_to_msg'> & { id: { bytes: Uint8Array }; reply_to_msg?: { bytes: Uint8Array } };

function revive(m: Cloned): MeshMessage {
  const out = m as unknown as MeshMessage;
  out.id = MessageId.fromBytes(m.id.bytes);
  if (m.reply_to_msg !== undefined) out.reply_to_msg = MessageId.fromBytes(m.reply_to_msg.bytes);
  return out;
}

interface Row {
  mainUs: number;
  perSec: number;
  /** Something of every message, so that nothing is optimised away. */
  check: number;
}

async function timed(run: () => Promise<number>): Promise<Row> {
  const cpu0 = mainThreadCpuUs();
  const t0 = process.hrtime.bigint();
  const check = await run();
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  return { mainUs: (mainThreadCpuUs() - cpu0) / N, perSec: N / wallS, check };
}

function decodeHere(frames: Uint8Array[]): Row {
  const cpu0 = mainThreadCpuUs();
  const t0 = process.hrtime.bigint();
  let check = 0;
  for (const f of frames) check += decodeFrameWithFormat(f).message.content.length;
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  return { mainUs: (mainThreadCpuUs() - cpu0) / N, perSec: N / wallS, check };
}

/** Starts a worker that has prepared `N` items for `mode`; resolves once it is ready to post them. */
async function worker(mode: HandoffMode): Promise<Worker> {
  const w = new Worker(path.join(__dirname, 'worker-handoff-worker.js'), { workerData: { mode, n: N, batch: BATCH } });
  await new Promise<void>((resolve, reject) => {
    w.once('error', reject);
    w.once('message', (m: unknown) => (m === 'ready' ? resolve() : reject(new Error(`worker said ${String(m)}`))));
  });
  return w;
}

async function receive(mode: HandoffMode): Promise<Row> {
  const w = await worker(mode);
  try {
    return await timed(
      () =>
        new Promise<number>((resolve) => {
          let got = 0;
          let check = 0;
          const take = (item: unknown): void => {
            if (mode === 'frames') check += (item as Uint8Array).length;
            else check += revive(item as Cloned).content.length;
            got += 1;
          };
          w.on('message', (m: unknown) => {
            if (mode === 'messages') take(m);
            else for (const item of m as unknown[]) take(item);
            if (got === N) resolve(check);
          });
          w.postMessage('go');
        }),
    );
  } finally {
    await w.terminate();
  }
}

function median(rows: Row[]): Row {
  return [...rows].sort((a, b) => a.mainUs - b.mainUs)[Math.floor(rows.length / 2)]!;
}

async function main(): Promise<void> {
  const frames = handoffFrames(N);
  // Warm-up: the decoders compiled before either side is measured.
  decodeHere(frames.slice(0, 5000));
  // Rounds alternate the four rows, and each row prints its median round: the main thread's CPU is read in 10 ms
  // ticks and the machine is shared.
  const runs: Row[][] = [[], [], [], []];
  for (let r = 0; r < ROUNDS; r++) {
    runs[0]!.push(decodeHere(frames));
    runs[1]!.push(await receive('messages'));
    runs[2]!.push(await receive('batches'));
    runs[3]!.push(await receive('frames'));
  }
  const labels = ['decode on the main thread (today)', 'from a worker, 1 message per post', `from a worker, ${BATCH} messages per post`, `from a worker, ${BATCH} undecoded frames per post`];
  const base = median(runs[0]!);
  console.log(`worker handoff, ${N} bench frames (half wire v1, half JSON floor), median of ${ROUNDS} rounds, Node ${process.version}: the main thread's CPU per message`);
  labels.forEach((label, i) => {
    const r = median(runs[i]!);
    console.log(`  ${label.padEnd(46)} ${r.mainUs.toFixed(2).padStart(6)} µs   ${(r.mainUs / base.mainUs).toFixed(2)}x the baseline   ${r.perSec.toFixed(0).padStart(8)} msg/s`);
  });
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
