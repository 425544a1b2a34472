/**
 * Runs `fn` once for any number of requests made before it gets its turn: a burst of answers (each freeing a slot of
 * a window) refills that window in one go, after every answer of the burst has had its effect. `defer` picks the
 * turn: a microtask (the end of the current batch of work) by default, or e.g. `setImmediate` to wait for I/O.
 */
export function coalesced(fn: () => void, defer: (run: () => void) => void = queueMicrotask): () => void {
  let scheduled = false;
  const run = (): void => {
    scheduled = false;
    fn();
  };
  return () => {
    if (scheduled) return;
    scheduled = true;
    defer(run);
  };
}
