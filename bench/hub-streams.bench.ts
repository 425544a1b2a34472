/**
 * `npm run bench:hub-streams`: what a hub that opens many long streams costs a client (issue 14 §1). A dev hub in
 * its own process relays STREAMS streams (default 300) of STREAM_MB megabytes each (default 7) from a sending
 * client to a receiving one: every stream is opened first, then each gets its whole text in one `message.add`,
 * then all end, so that all are open at once — what a hostile or broken producer can do. The receiver runs in a
 * process of its own; its peak RSS (VmHWM) is printed twice in the same run: with the default bounds (1 Mi
 * characters per stream, 8 Mi in all) and with the bounds lifted (the baseline, the code before the bounds), with
 * the streams cut and the ratio.
 *
 * The baseline holds up to 256 streams × STREAM_MB (the stream count bound stays): about 1.8 GB at the defaults.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { HubClient } from '../lib/hub';
import { askChild } from '../test/support/child-ask';
import { vmHwmMb } from '../test/support/peak-rss';

const STREAMS = Number(process.env.STREAMS ?? 300);
const STREAM_MB = Number(process.env.STREAM_MB ?? 7);
const MAX_FRAME = Math.max(1 << 20, Math.ceil(4 * STREAM_MB * 1024 * 1024));
const SENDER = { id: 'usr_stream_sender', token: 'stream-sender-token' };
const RECEIVER = { id: 'usr_stream_receiver', token: 'stream-receiver-token' };
const CHAT = 'cnv_streams';
const LIFTED = 2 ** 31 - 1;
const PACE = 4;

interface Report {
  ended: number;
  adds: number;
  cut: Record<string, number>;
  warnings: Record<string, number>;
}

function forked(script: string, args: unknown, execArgv: string[] = []): { child: ChildProcess; ask: ReturnType<typeof askChild> } {
  const child = fork(path.join(__dirname, script), [JSON.stringify(args)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
  return { child, ask: askChild(() => child) };
}

async function stopChild(c: { child: ChildProcess }): Promise<void> {
  if (c.child.exitCode !== null) return;
  const exited = new Promise((r) => c.child.once('exit', r));
  c.child.send({ type: 'stop' });
  await exited;
}

async function until(test: () => Promise<boolean>, what: string, ms = 600_000): Promise<void> {
  const t0 = Date.now();
  while (!(await test())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function run(url: string, label: string, bounds: Record<string, number>): Promise<{ peakMb: number; report: Report; seconds: number }> {
  const receiver = forked('hub-streams-child.js', { url, token: RECEIVER.token, userId: RECEIVER.id, deviceId: `dev-${label}`, maxFrameBytes: MAX_FRAME, bounds }, ['--max-old-space-size=8192']);
  await receiver.ask({}, 'ready');
  // No probes: between two 14 MB frames a loaded hub can be silent for longer than a probe waits.
  const sender = new HubClient({ url, token: SENDER.token, userId: SENDER.id, deviceId: `dev-sender-${label}`, maxFrameBytes: MAX_FRAME, pingSilenceMs: 0 });
  sender.on('rejected', (r) => console.error('sender: rejected', r.code ?? r));
  sender.on('warning', (w) => console.error('sender: warning', w.code, w.message));
  sender.start();
  await new Promise<void>((resolve) => sender.on('state', (s) => s.state === 'connected' && resolve()));
  const text = 'x'.repeat(STREAM_MB * 1_000_000);
  const t0 = Date.now();
  const streams = Array.from({ length: STREAMS }, () => sender.openStream({ chatId: CHAT }));
  const ask = (): Promise<Report> => receiver.ask<Report>({ type: 'report' }, 'report');
  for (let i = 0; i < streams.length; i++) {
    streams[i]!.append(text);
    // At most PACE frames of 2 × STREAM_MB on their way: the sockets and the hub would otherwise queue gigabytes
    // (and miss their pings) before the receiver saw the first; every stream stays open all the same.
    await until(async () => (await ask()).adds >= i + 1 - PACE, `add ${i}`);
    if ((i + 1) % 50 === 0) process.stderr.write(`  ${label}: ${i + 1}/${streams.length} streams filled in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  }
  // `message.done` carries the whole text again: paced like the adds.
  for (let i = 0; i < streams.length; i++) {
    streams[i]!.done();
    await until(async () => (await ask()).ended >= i + 1 - PACE, `done ${i}`);
  }
  let report: Report = { ended: 0, adds: 0, cut: {}, warnings: {} };
  let lastPrint = Date.now();
  await until(async () => {
    report = await ask();
    if (Date.now() - lastPrint > 10_000) {
      lastPrint = Date.now();
      process.stderr.write(`  ${label}: waiting for the ends: ${JSON.stringify(report)}\n`);
    }
    return report.ended >= STREAMS;
  }, `${STREAMS} streams at the receiver (${label})`);
  const seconds = (Date.now() - t0) / 1000;
  const peakMb = vmHwmMb(receiver.child.pid!);
  await sender.stop();
  await stopChild(receiver);
  return { peakMb, report, seconds };
}

async function main(): Promise<void> {
  const hub = forked('../test/support/flood-hub-child.js', {
    users: [SENDER, RECEIVER],
    chats: [{ id: CHAT, members: [SENDER.id, RECEIVER.id] }],
    // The hub keeps each ended stream as a merged row for offline devices: one row per user is enough here.
    settings: { max_frame_bytes: MAX_FRAME, max_produce_bytes: MAX_FRAME, send_buffer_max_bytes: 2 ** 40, retention: { max_rows_per_user: 1 } },
  }, ['--max-old-space-size=16384']);
  const { url } = await hub.ask<{ url: string }>(undefined, 'ready');
  console.log(`hub streams: ${STREAMS} streams × ${STREAM_MB} MB, all open at once, one message.add each`);
  try {
    const bounded = await run(url, 'bounded', {});
    const lifted = await run(url, 'lifted', { streamMaxChars: LIFTED, streamTotalMaxChars: LIFTED });
    const line = (name: string, r: typeof bounded): string =>
      `  ${name.padEnd(34)} peak RSS ${r.peakMb.toFixed(0).padStart(5)} MB   ${r.report.ended} streams ended in ${r.seconds.toFixed(1)} s, cut ${JSON.stringify(r.report.cut)}`;
    console.log(line('bounds 1 Mi/stream, 8 Mi in all', bounded));
    console.log(line('baseline: bounds lifted', lifted));
    console.log(`  ratio bounded / baseline: ${(bounded.peakMb / lifted.peakMb).toFixed(3)}`);
  } finally {
    await stopChild(hub);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
