/**
 * `npm run bench:media`: throughput and peak RSS growth of a 100 MiB upload to the dev hub's media service.
 *
 * Every measurement runs in a fresh child process, so that one variant's grown heap cannot hide the next one's, and
 * the dev hub runs in a process of its own (storing to a temporary folder), so that the RSS measured is the
 * uploader's alone. The baseline is the least any client can do: `fs.createReadStream` piped into an `http.request`
 * with the same multipart framing. The in-memory Buffer variant shows what buffering the file would cost.
 *
 *   node dist/bench/media.bench.js [--mib 100] [--runs 3]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startDevHub } from '../devhub';
import { uploadMedia } from '../lib/media';
import { multipartFrame } from '../lib/media/multipart';

const TOKEN = 't-bench';
const MIB = 1024 * 1024;
type Variant = 'baseline' | 'path' | 'stream' | 'buffer';
const VARIANTS: Record<Variant, string> = {
  baseline: 'baseline: fs.createReadStream → http.request',
  path: 'uploadMedia(path)',
  stream: 'uploadMedia(Readable), no length',
  buffer: 'uploadMedia(Buffer) after readFile',
};

interface Sample {
  variant: Variant;
  ms: number;
  bytes: number;
  /** Highest sampled RSS minus the RSS just before the upload. */
  peakGrowth: number;
  /** The kernel's peak RSS of the process (getrusage) minus the same starting RSS. */
  maxRssGrowth: number;
}

// ---------------------------------------------------------------- child: the dev hub

async function runHub(dir: string): Promise<void> {
  const hub = await startDevHub({ users: [{ id: 'usr_bench', token: TOKEN }], media: { storage: { dir } } });
  process.send?.({ mediaUrl: hub.mediaUrl });
  process.on('message', (m: unknown) => {
    if (m === 'stop') void hub.stop().then(() => process.exit(0));
  });
}

// ---------------------------------------------------------------- child: one upload

function baselineUpload(file: string, mediaUrl: string): Promise<void> {
  const size = fs.statSync(file).size;
  const frame = multipartFrame(path.basename(file), 'application/octet-stream');
  return new Promise((resolve, reject) => {
    const req = http.request(`${mediaUrl}/media/upload`, {
      method: 'POST',
      headers: {
        'Content-Type': frame.contentType,
        'Content-Length': frame.head.length + size + frame.tail.length,
        Authorization: `Bearer ${TOKEN}`,
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => ((JSON.parse(text) as { code: number }).code === 0 ? resolve() : reject(new Error(text))));
    });
    req.on('error', reject);
    req.write(frame.head);
    const stream = fs.createReadStream(file, { highWaterMark: 64 * 1024 });
    stream.on('error', reject);
    stream.on('end', () => req.end(frame.tail));
    stream.pipe(req, { end: false });
  });
}

async function runUpload(variant: Variant, file: string, mediaUrl: string): Promise<void> {
  global.gc?.();
  await new Promise((r) => setTimeout(r, 50));
  const start = process.memoryUsage.rss();
  let peak = start;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  const sample = (): void => {
    peak = Math.max(peak, process.memoryUsage.rss());
  };
  const began = process.hrtime.bigint();
  const size = fs.statSync(file).size;
  if (variant === 'baseline') await baselineUpload(file, mediaUrl);
  else {
    const source = variant === 'path' ? file : variant === 'stream' ? fs.createReadStream(file) : await readFile(file);
    const fragment = await uploadMedia(source, { url: mediaUrl, token: TOKEN, mime: 'application/octet-stream', onProgress: sample });
    if (fragment.size !== size) throw new Error(`the hub stored ${fragment.size} of ${size} bytes`);
  }
  const ms = Number(process.hrtime.bigint() - began) / 1e6;
  clearInterval(sampler);
  sample();
  const maxRss = process.resourceUsage().maxRSS * 1024;
  const result: Sample = { variant, ms, bytes: size, peakGrowth: peak - start, maxRssGrowth: Math.max(0, maxRss - start) };
  process.send?.(result, () => process.exit(0));
}

// ---------------------------------------------------------------- parent

function once<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`child exited with ${code}`))));
  });
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { mib: { type: 'string', default: '100' }, runs: { type: 'string', default: '3' } } });
  const mib = Number(values.mib);
  const runs = Number(values.runs);
  const work = await mkdtemp(path.join(os.tmpdir(), 'clawling-media-bench-'));
  const file = path.join(work, 'payload.bin');
  const store = path.join(work, 'store');
  fs.mkdirSync(store);
  const block = randomBytes(MIB);
  const out = fs.openSync(file, 'w');
  for (let i = 0; i < mib; i++) {
    block[0] = i & 0xff;
    fs.writeSync(out, block);
  }
  fs.closeSync(out);

  const hub = fork(__filename, ['--role', 'hub', store], { stdio: 'inherit' });
  const { mediaUrl } = await once<{ mediaUrl: string }>(hub);
  const samples: Sample[] = [];
  try {
    const order: Variant[] = ['baseline', 'path', 'stream', 'buffer'];
    for (let r = 0; r < runs; r++) {
      for (const variant of order) {
        const child = fork(__filename, ['--role', 'upload', variant, file, mediaUrl], { stdio: 'inherit', execArgv: ['--expose-gc'] });
        samples.push(await once<Sample>(child));
        await new Promise((resolve) => child.once('exit', resolve));
        // Uploaded objects are not needed; keep the disk use to one file at a time.
        for (const name of fs.readdirSync(store)) fs.rmSync(path.join(store, name), { force: true, recursive: true });
      }
    }
  } finally {
    hub.send('stop');
    await new Promise((resolve) => hub.once('exit', resolve));
    await rm(work, { recursive: true, force: true });
  }

  const base = median(samples.filter((s) => s.variant === 'baseline').map((s) => s.bytes / MIB / (s.ms / 1000)));
  console.log(`media upload: ${mib} MiB to the dev hub on 127.0.0.1, median of ${runs} runs, each in a fresh process (Node ${process.version}, ${os.cpus().length} CPUs)`);
  console.log('');
  console.log(`${'variant'.padEnd(40)} ${'MiB/s'.padStart(8)} ${'vs base'.padStart(8)} ${'peak RSS growth'.padStart(16)} ${'maxRSS growth'.padStart(14)}`);
  for (const variant of Object.keys(VARIANTS) as Variant[]) {
    const mine = samples.filter((s) => s.variant === variant);
    const rate = median(mine.map((s) => s.bytes / MIB / (s.ms / 1000)));
    const growth = median(mine.map((s) => s.peakGrowth)) / MIB;
    const maxGrowth = median(mine.map((s) => s.maxRssGrowth)) / MIB;
    console.log(
      `${VARIANTS[variant].padEnd(40)} ${rate.toFixed(0).padStart(8)} ${`${((rate / base) * 100).toFixed(0)}%`.padStart(8)} ${`${growth.toFixed(1)} MiB`.padStart(16)} ${`${maxGrowth.toFixed(1)} MiB`.padStart(14)}`,
    );
  }
  console.log('');
  console.log(`peak RSS growth as a share of the file: path ${((median(samples.filter((s) => s.variant === 'path').map((s) => s.peakGrowth)) / (mib * MIB)) * 100).toFixed(1)}%, ` +
    `stream ${((median(samples.filter((s) => s.variant === 'stream').map((s) => s.peakGrowth)) / (mib * MIB)) * 100).toFixed(1)}%`);
}

const roleAt = process.argv.indexOf('--role');
if (roleAt < 0) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
} else {
  const [role, ...rest] = process.argv.slice(roleAt + 1);
  const task = role === 'hub' ? runHub(rest[0]) : runUpload(rest[0] as Variant, rest[1], rest[2]);
  task.catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
