/**
 * `npm run bench:hub`: the hub client through the dev hub on loopback, beside a bare `ws` request/response loop
 * measured in the same run (the floor any client on this machine could reach).
 *
 * 1. one request at a time: bare ws echo, then `send` → `message.ack` (memory store, then sqlite with fsync);
 *    latency p50 / p99 and round trips per second;
 * 2. pipelined: 64 in flight, bare ws and `send` → `message.ack`, messages per second;
 * 3. replay: 10 000 messages queued for an offline device, then the device connects with v2 acks; messages per
 *    second from `start()` until every message is persisted, reported and acked (memory store, then sqlite).
 *
 * The dev hub runs in this process (as in the tests), so its own work and garbage collection are in the figures.
 *
 * 4. against a minimal peer (bench/hub-peer-child.ts) in a process of its own, which answers the handshake and
 *    each send with an immediate `message.ack` and does nothing else: a bare `ws` client sending the very frames
 *    HubClient sends (same JSON shape and length) and waiting for the ack, beside HubClient (memory store)
 *    `send` → `message.ack`, one at a time and with 64 in flight. Rounds alternate the two; the median round is
 *    printed, as messages per second, CPU µs and V8 heap bytes allocated per message of this process (where both
 *    clients run), with the ratio HubClient / bare (target ≥ 0.7×, issues 11 and 26). Each client first runs one
 *    uncounted round of each kind.
 *
 * BENCH_N (default 2000) sets the round trips of parts 1 and 2; BENCH_REPLAY (default 10000) the replay backlog;
 * BENCH_PEER_N (default 5000) the messages per round of part 4, BENCH_PEER_ROUNDS (default 5) its rounds;
 * BENCH_HUB_ONLY=peer runs part 4 alone.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import { startDevHub, type DevHub } from '../devhub';
import { HubClient } from '../lib/hub';
import { openStore, type Store } from '../lib/store';
import { askChild } from '../test/support/child-ask';
import { heapMeter } from './heap-meter';

const N = Number(process.env.BENCH_N ?? 2000);
const REPLAY = Number(process.env.BENCH_REPLAY ?? 10_000);
const WINDOW = 64;
const ALICE = { id: 'usr_alice', token: 'bench-alice' };
const BOB = { id: 'usr_bob', token: 'bench-bob' };
const CHAT = 'chat-bench';
const FRAME_TEXT = 'x'.repeat(64);
const PEER_N = Number(process.env.BENCH_PEER_N ?? 5000);
const PEER_ROUNDS = Number(process.env.BENCH_PEER_ROUNDS ?? 5);
const TARGET = 0.7;

interface Latency {
  perSec: number;
  p50: number;
  p99: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summarize(samplesMs: number[], totalMs: number): Latency {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return { perSec: (samplesMs.length / totalMs) * 1000, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** The floor: a ws server that answers each frame with an ack-sized frame, and a client that waits for it. */
async function bareWs(): Promise<{ sequential: Latency; pipelinedPerSec: number }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((r) => server.once('listening', () => r()));
  server.on('connection', (ws) =>
    ws.on('message', (data) => {
      const req = JSON.parse(data.toString()) as { trace_id: string };
      ws.send(JSON.stringify({ version: '2', event: 'message.ack', trace_id: req.trace_id, emitted_at: Date.now(), chat_id: CHAT, payload: { message_id: req.trace_id, accepted_at: Date.now() } }));
    }),
  );
  const port = (server.address() as { port: number }).port;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`, { perMessageDeflate: false });
  await new Promise<void>((r) => ws.once('open', () => r()));
  let answer: (() => void) | undefined;
  let answered = 0;
  ws.on('message', () => {
    answered++;
    answer?.();
  });
  const frame = (i: number): string =>
    JSON.stringify({ version: '2', event: 'message.send', trace_id: `t${i}`, emitted_at: Date.now(), chat_id: CHAT, payload: { message_id: `m${i}`, message_mode: 'normal', message: { body: { fragments: [{ kind: 'text', text: FRAME_TEXT }] }, context: { mentions: [], reply: null } } } });

  const samples: number[] = [];
  const t0 = nowMs();
  for (let i = 0; i < N; i++) {
    const start = nowMs();
    await new Promise<void>((resolve) => {
      answer = resolve;
      ws.send(frame(i));
    });
    samples.push(nowMs() - start);
  }
  const sequential = summarize(samples, nowMs() - t0);

  answered = 0;
  let sent = 0;
  const p0 = nowMs();
  await new Promise<void>((resolve) => {
    answer = () => {
      if (answered === N) resolve();
      else if (sent < N) ws.send(frame(sent++));
    };
    while (sent < Math.min(WINDOW, N)) ws.send(frame(sent++));
  });
  const pipelinedPerSec = (N / (nowMs() - p0)) * 1000;
  ws.close();
  await new Promise<void>((r) => server.close(() => r()));
  return { sequential, pipelinedPerSec };
}

function client(hub: DevHub, user: { id: string; token: string }, store: Store, deviceId: string): HubClient {
  return new HubClient({ url: hub.wsUrl, token: user.token, userId: user.id, deviceId, store, pingSilenceMs: 0, maxInFlight: WINDOW });
}

async function live(c: HubClient): Promise<void> {
  const ready = new Promise<void>((resolve) => c.on('state', (s) => s.state === 'connected' && resolve()));
  c.start();
  await ready;
}

async function hubSendAck(hub: DevHub, store: Store, label: string): Promise<{ sequential: Latency; pipelinedPerSec: number }> {
  const alice = client(hub, ALICE, store, `bench-${label}`);
  await live(alice);
  const samples: number[] = [];
  const t0 = nowMs();
  for (let i = 0; i < N; i++) {
    const start = nowMs();
    await alice.send({ chatId: CHAT, text: FRAME_TEXT });
    samples.push(nowMs() - start);
  }
  const sequential = summarize(samples, nowMs() - t0);
  const p0 = nowMs();
  await Promise.all(Array.from({ length: N }, () => alice.send({ chatId: CHAT, text: FRAME_TEXT })));
  const pipelinedPerSec = (N / (nowMs() - p0)) * 1000;
  await alice.stop();
  return { sequential, pipelinedPerSec };
}

async function replay(hub: DevHub, store: Store, label: string): Promise<{ perSec: number; ms: number; acked: boolean }> {
  const deviceId = `bench-replay-${label}`;
  // Register the device once so that the backlog is queued for it, then take it offline.
  const first = client(hub, BOB, openStore(':memory:'), deviceId);
  await live(first);
  await first.stop();
  const alice = client(hub, ALICE, openStore(':memory:'), `bench-filler-${label}`);
  await live(alice);
  await Promise.all(Array.from({ length: REPLAY }, (_, i) => alice.send({ chatId: CHAT, text: `backlog ${i}` })));
  await alice.stop();

  const bob = client(hub, BOB, store, deviceId);
  let received = 0;
  const done = new Promise<void>((resolve) => bob.on('replay-done', () => resolve()));
  bob.on('message', () => received++);
  const t0 = nowMs();
  bob.start();
  await done;
  if (received !== REPLAY) throw new Error(`replay delivered ${received} of ${REPLAY}`);
  // The final ack is flushed at replay.done; give it the time to cross the socket.
  const allAcked = (): boolean => {
    const device = hub.admin.devices().find((d) => d.device_id === deviceId);
    return device !== undefined && device.acked_dseq === device.last_dseq;
  };
  const deadline = nowMs() + 2000;
  while (!allAcked() && nowMs() < deadline) await new Promise((r) => setTimeout(r, 1));
  const ackedMs = nowMs() - t0;
  const acked = allAcked();
  await bob.stop();
  return { perSec: (REPLAY / ackedMs) * 1000, ms: ackedMs, acked };
}

// ─── 4. against a minimal peer in another process ─────────────────────────────────────────────────────────────

/** One mode of one client against the peer: messages per second, CPU µs and V8 heap bytes per message of this process. */
interface PeerRun {
  perSec: number;
  cpuUsPerMsg: number;
  heapPerMsg: number;
}

const heapNow = heapMeter();

/** `fn` sends `n` messages and resolves when the last is answered. */
async function measure(n: number, fn: () => Promise<void>): Promise<PeerRun> {
  const heap0 = heapNow().allocated;
  const cpu0 = process.cpuUsage();
  const t0 = nowMs();
  await fn();
  const ms = nowMs() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { perSec: (n / ms) * 1000, cpuUsPerMsg: (cpu.user + cpu.system) / n, heapPerMsg: (heapNow().allocated - heap0) / n };
}

/** Keeps `window` calls of `one` outstanding until `n` have resolved. */
function windowed(n: number, window: number, one: () => Promise<unknown>): Promise<void> {
  return new Promise((resolve, reject) => {
    let started = 0;
    let done = 0;
    const next = (): void => {
      started++;
      one().then(() => {
        done++;
        if (done === n) resolve();
        else if (started < n) next();
      }, reject);
    };
    while (started < Math.min(window, n)) next();
  });
}

/**
 * The floor: a `ws` client that does the handshake and then sends the frame HubClient would send (`frameOf`, same
 * key order and id lengths), counting acks; a new socket per call, like a new HubClient.
 */
async function bareSession(url: string, frameOf: (i: number) => string): Promise<{ sequential(n: number): Promise<PeerRun>; windowed(n: number): Promise<PeerRun>; close(): void }> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  let answer: (() => void) | undefined;
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.on('message', (data) => {
      if (answer) {
        answer();
        return;
      }
      const f = JSON.parse(String(data)) as { event: string; payload: { nonce?: string } };
      if (f.event === 'connect.challenge') {
        ws.send(JSON.stringify({ version: '2', event: 'connect', trace_id: 'bare-connect', emitted_at: Date.now(), payload: { token: 'bare', nonce: f.payload.nonce, device_id: 'bare', capabilities: { reliable_delivery: true, reliable_delivery_v2: true } } }));
      } else if (f.event === 'replay.done') {
        answer = () => undefined;
        resolve();
      }
    });
  });
  let seq = 0;
  return {
    sequential: (n) =>
      measure(n, async () => {
        for (let i = 0; i < n; i++) {
          await new Promise<void>((resolve) => {
            answer = resolve;
            ws.send(frameOf(seq++));
          });
        }
      }),
    windowed: (n) =>
      measure(
        n,
        () =>
          new Promise<void>((resolve) => {
            let answered = 0;
            let sent = 0;
            answer = () => {
              answered++;
              if (answered === n) resolve();
              else if (sent < n) {
                sent++;
                ws.send(frameOf(seq++));
              }
            };
            while (sent < Math.min(WINDOW, n)) {
              sent++;
              ws.send(frameOf(seq++));
            }
          }),
      ),
    close: () => ws.close(),
  };
}

/** HubClient (memory store) on the peer, connected; its sends go one at a time or 64 outstanding. */
async function hubSession(url: string, label: string): Promise<{ client: HubClient; sequential(n: number): Promise<PeerRun>; windowed(n: number): Promise<PeerRun> }> {
  const c = new HubClient({ url, token: 'bench-peer', userId: 'usr_bench', deviceId: `bench-peer-${label}`, store: openStore(':memory:'), pingSilenceMs: 0, maxInFlight: WINDOW });
  await live(c);
  return {
    client: c,
    sequential: (n) =>
      measure(n, async () => {
        for (let i = 0; i < n; i++) await c.send({ chatId: CHAT, text: FRAME_TEXT });
      }),
    windowed: (n) => measure(n, () => windowed(n, WINDOW, () => c.send({ chatId: CHAT, text: FRAME_TEXT }))),
  };
}

/** The JSON HubClient puts on the wire for one send (read back from its outbox, stamped as `pump` stamps it). */
async function hubFrameJson(url: string): Promise<string> {
  const c = new HubClient({ url, token: 'bench-peer', userId: 'usr_bench', deviceId: 'bench-peer-probe', store: openStore(':memory:'), pingSilenceMs: 0 });
  const handle = c.send({ chatId: CHAT, text: FRAME_TEXT });
  await handle.queued;
  const [entry] = c.pendingSends();
  await c.stop();
  handle.catch(() => undefined);
  return JSON.stringify({ ...entry.frame, emitted_at: Date.now() });
}

/** A frame like HubClient's, with ids of the same length made from a counter (the floor mints nothing). */
function bareFrameOf(i: number): string {
  const n = String(i).padStart(26, '0');
  return JSON.stringify({
    version: '2',
    event: 'message.send',
    trace_id: `trc-${n}`,
    payload: { message_id: `msg-${n}`, message_mode: 'normal', message: { body: { fragments: [{ kind: 'text', text: FRAME_TEXT }] }, context: { mentions: [], reply: null } } },
    chat_id: CHAT,
    emitted_at: Date.now(),
  });
}

/** The shape of a frame with its ids and timestamp blanked: the two clients must send the same bytes but those. */
function shape(json: string): string {
  return json.replace(/"(trc|msg)-[0-9A-Z]{26}"/g, '"$1-ID"').replace(/"emitted_at":\d+/, '"emitted_at":0');
}

function median(runs: PeerRun[], key: keyof PeerRun): number {
  const sorted = runs.map((r) => r[key]).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function peerComparison(): Promise<void> {
  const child = fork(path.join(__dirname, 'hub-peer-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = askChild(() => child);
  try {
    const { port } = await ask<{ port: number }>(undefined, 'port');
    const url = `ws://127.0.0.1:${port}/`;
    const hubJson = await hubFrameJson(url);
    const bareJson = bareFrameOf(0);
    if (shape(hubJson) !== shape(bareJson) || hubJson.length !== bareJson.length) {
      throw new Error(`the bare client's frame differs from HubClient's:\n  hub  ${hubJson}\n  bare ${bareJson}`);
    }
    const bare = await bareSession(url, bareFrameOf);
    const hub = await hubSession(url, 'measured');
    // Warm-up of both paths, one round each, not counted: with 500 messages the client's code was still being
    // compiled in the first counted round (half the speed of the later ones), so the median leant on JIT timing.
    await bare.sequential(PEER_N);
    await bare.windowed(PEER_N);
    await hub.sequential(PEER_N);
    await hub.windowed(PEER_N);
    const runs = { bareSeq: [] as PeerRun[], hubSeq: [] as PeerRun[], bareWin: [] as PeerRun[], hubWin: [] as PeerRun[] };
    for (let r = 0; r < PEER_ROUNDS; r++) {
      runs.bareSeq.push(await bare.sequential(PEER_N));
      runs.hubSeq.push(await hub.sequential(PEER_N));
      runs.bareWin.push(await bare.windowed(PEER_N));
      runs.hubWin.push(await hub.windowed(PEER_N));
    }
    bare.close();
    await hub.client.stop();

    console.log(`\nagainst a minimal peer in another process (${hubJson.length}-byte frames; median of ${PEER_ROUNDS} rounds of ${PEER_N}):`);
    const line = (label: string, rs: PeerRun[]): string =>
      `  ${label.padEnd(34)} ${median(rs, 'perSec').toFixed(0).padStart(7)} msgs/s   ${median(rs, 'cpuUsPerMsg').toFixed(1).padStart(6)} CPU µs/msg   ${(median(rs, 'heapPerMsg') / 1024).toFixed(1).padStart(5)} KB heap/msg   (rounds, msgs/s and CPU µs/msg: ${rs.map((x) => `${x.perSec.toFixed(0)}/${x.cpuUsPerMsg.toFixed(1)}`).join(' ')})`;
    const verdict = (hubRuns: PeerRun[], bareRuns: PeerRun[]): string => {
      const wall = median(hubRuns, 'perSec') / median(bareRuns, 'perSec');
      const cpu = median(bareRuns, 'cpuUsPerMsg') / median(hubRuns, 'cpuUsPerMsg');
      return `  ${'HubClient / bare'.padEnd(34)} ${wall.toFixed(2)}× msgs/s (${wall >= TARGET ? 'meets' : 'below'} ${TARGET}×)   ${cpu.toFixed(2)}× by CPU per message`;
    };
    console.log(' one at a time:');
    console.log(line('bare ws', runs.bareSeq));
    console.log(line('HubClient send→ack, memory store', runs.hubSeq));
    console.log(verdict(runs.hubSeq, runs.bareSeq));
    console.log(` ${WINDOW} in flight:`);
    console.log(line('bare ws', runs.bareWin));
    console.log(line('HubClient send→ack, memory store', runs.hubWin));
    console.log(verdict(runs.hubWin, runs.bareWin));
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.send({ type: 'stop' });
    await exited;
  }
}

function row(label: string, l: Latency, floor?: Latency): string {
  const ratio = floor ? `  (${(l.perSec / floor.perSec).toFixed(2)}× bare ws)` : '';
  return `  ${label.padEnd(34)} ${l.perSec.toFixed(0).padStart(7)} round trips/s   p50 ${l.p50.toFixed(3)} ms   p99 ${l.p99.toFixed(3)} ms${ratio}`;
}

async function main(): Promise<void> {
  if (process.env.BENCH_HUB_ONLY !== 'peer') await devHubSections();
  // After the dev hub stopped: nothing of it runs in this process while the two clients are measured.
  await peerComparison();
}

async function devHubSections(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawling-hub-bench-'));
  const hub = await startDevHub({
    users: [ALICE, BOB],
    chats: [{ id: CHAT, members: [ALICE.id, BOB.id] }],
    settings: { ping_interval_ms: 0 },
  });
  try {
    console.log(`hub client bench (node ${process.version}, ${os.cpus().length} cpus); ${N} round trips, replay of ${REPLAY}`);
    // Warm-up (JIT, the hub's first allocations), so that the first measured row is not penalized for going first.
    await hubSendAck(hub, openStore(':memory:'), 'warmup');
    const floor = await bareWs();
    const memory = await hubSendAck(hub, openStore(':memory:'), 'memory');
    const sqliteStore = openStore(path.join(dir, 'send.sqlite'));
    const sqlite = await hubSendAck(hub, sqliteStore, 'sqlite');
    sqliteStore.close();

    console.log('\none at a time (send, wait for the answer):');
    console.log(row('bare ws request/response', floor.sequential));
    console.log(row('hub send→ack, memory store', memory.sequential, floor.sequential));
    console.log(row('hub send→ack, sqlite (fsync)', sqlite.sequential, floor.sequential));

    console.log(`\npipelined (${WINDOW} in flight):`);
    const pipe = (label: string, perSec: number): string =>
      `  ${label.padEnd(34)} ${perSec.toFixed(0).padStart(7)} msgs/s${label.startsWith('bare') ? '' : `  (${(perSec / floor.pipelinedPerSec).toFixed(2)}× bare ws)`}`;
    console.log(pipe('bare ws request/response', floor.pipelinedPerSec));
    console.log(pipe('hub send→ack, memory store', memory.pipelinedPerSec));
    console.log(pipe('hub send→ack, sqlite (fsync)', sqlite.pipelinedPerSec));

    console.log(`\nreplay of ${REPLAY} queued messages, v2 acks:`);
    const mem = await replay(hub, openStore(':memory:'), 'memory');
    console.log(`  ${'memory store'.padEnd(34)} ${mem.perSec.toFixed(0).padStart(7)} msgs/s   (${mem.ms.toFixed(0)} ms to the last ack; all acked: ${mem.acked})`);
    const replayStore = openStore(path.join(dir, 'replay.sqlite'));
    const disk = await replay(hub, replayStore, 'sqlite');
    replayStore.close();
    console.log(`  ${'sqlite store (fsync per batch)'.padEnd(34)} ${disk.perSec.toFixed(0).padStart(7)} msgs/s   (${disk.ms.toFixed(0)} ms to the last ack; all acked: ${disk.acked})`);
  } finally {
    await hub.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
