/**
 * What the gateway benches share to drive a process they forked: ask it something over IPC and wait for the answer
 * of that type, and run a bench file on its own as well as from `bench/gateway.bench.ts`.
 */
import type { ChildProcess } from 'node:child_process';

export type Ask = <T>(type: string, extra?: Record<string, unknown>) => Promise<T>;

/** `ask('stats')` sends `{ type: 'stats' }` and resolves with the child's next message of that type; `ready` only waits. */
export function asker(child: ChildProcess): Ask {
  return <T>(type: string, extra: Record<string, unknown> = {}) =>
    new Promise<T>((resolve) => {
      const on = (m: { type: string }): void => {
        if (m.type !== type) return;
        child.off('message', on);
        resolve(m as T);
      };
      child.on('message', on);
      if (type !== 'ready') child.send({ type, ...extra });
    });
}

/** Runs `bench` when `mod` is the program's main module (`node dist/bench/x.js`), exiting 0 or 1 with the error. */
export function runWhenMain(mod: NodeModule, bench: () => Promise<unknown>): void {
  if (require.main !== mod) return;
  bench().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
