/**
 * noble and bleno add `exit` and `SIGINT` handlers of their own when a stack is made (to reset the adapter); in a
 * process that runs several stacks, or stops them itself, those handlers pile up and fight its own shutdown.
 */
const PROCESS_EVENTS = ['exit', 'SIGINT'] as const;

/** Runs `start` (which makes a stack add its process handlers synchronously) and removes the handlers it added. */
export function withoutProcessHandlers(start: () => void): void {
  const emitter = process as unknown as NodeJS.EventEmitter;
  const before = new Map(PROCESS_EVENTS.map((e) => [e, new Set(emitter.listeners(e))]));
  start();
  for (const event of PROCESS_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
}
