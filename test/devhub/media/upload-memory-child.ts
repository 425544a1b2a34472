/**
 * The dev hub with its media service on its own port and folder storage, in a process of its own started with
 * `--expose-gc`, for the "100 MiB upload is not held in memory" test. Between `start` and `stop` it samples the
 * Buffer memory still reachable: a full collection first, then `process.memoryUsage().arrayBuffers` against the
 * figure at `start`. Chunks already written to disk are garbage however long a collector waits to free them (Node
 * 24's waits longer than 20's), so they do not count; a file the hub kept would, whatever the collector.
 *
 * argv: the storage folder. IPC in: `start`, `stop`. IPC out: `{ ready, mediaUrl, wsUrl }`, `{ started }`,
 * `{ peak, samples }`.
 */
import { startDevHub } from '../../../devhub';
import { BASE_OPTIONS } from '../support';

const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error('start this child with --expose-gc');
const retained = (): number => {
  collect();
  return process.memoryUsage().arrayBuffers;
};
const send = (m: unknown): void => void process.send!(m);

async function main(): Promise<void> {
  const hub = await startDevHub({ ...BASE_OPTIONS, media: { port: 0, storage: { dir: process.argv[2] } } });
  let base = 0;
  let peak = 0;
  let samples = 0;
  let sampler: NodeJS.Timeout | undefined;
  process.on('message', (m: string) => {
    if (m === 'start') {
      base = retained();
      peak = 0;
      samples = 0;
      sampler = setInterval(() => {
        peak = Math.max(peak, retained() - base);
        samples++;
      }, 50);
      send({ started: true });
    } else if (m === 'stop') {
      clearInterval(sampler);
      peak = Math.max(peak, retained() - base);
      send({ peak, samples });
    }
  });
  process.once('disconnect', () => void hub.stop().finally(() => process.exit(0)));
  send({ ready: true, mediaUrl: hub.mediaUrl, wsUrl: hub.wsUrl });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
