/**
 * The worker of `bench/worker-handoff.bench.ts`: prepares what it will post (decoded messages, or frames) before
 * the clock starts, says `ready`, and on `go` posts it all as fast as the main thread lets it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { decodeFrameWithFormat } from '../lib/mesh/frame';
import { handoffFrames, type HandoffMode } from './worker-handoff.bench';

const { mode, n, batch } = workerData as { mode: HandoffMode; n: number; batch: number };
const frames = handoffFrames(n);
const items: unknown[] = mode === 'frames' ? frames : frames.map((f) => decodeFrameWithFormat(f).message);

parentPort!.once('message', () => {
  if (mode === 'messages') {
    for (const item of items) parentPort!.postMessage(item);
    return;
  }
  for (let i = 0; i < items.length; i += batch) parentPort!.postMessage(items.slice(i, i + batch));
});
parentPort!.postMessage('ready');
