/**
 * Question and answer with a forked helper process over its IPC channel: send a message (or none, to wait for
 * something the child says of its own accord) and resolve with the first message of the answer's `type`.
 */
import type { ChildProcess } from 'node:child_process';

export type Ask = <T>(message: Record<string, unknown> | undefined, answer: string) => Promise<T>;

export function askChild(child: () => ChildProcess): Ask {
  return <T>(message: Record<string, unknown> | undefined, answer: string): Promise<T> =>
    new Promise((resolve) => {
      const c = child();
      const on = (m: { type: string }): void => {
        if (m.type !== answer) return;
        c.off('message', on);
        resolve(m as T);
      };
      c.on('message', on);
      if (message) c.send(message);
    });
}
