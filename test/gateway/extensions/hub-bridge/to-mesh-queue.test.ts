/**
 * The to-mesh queue's `persist`: rows written inside the caller's transaction (the hub client's inbox commit), memory
 * following only after the commit, the drop-oldest bound counted on what the transaction sees, running jobs never
 * dropped. A real store (memory and sqlite behave alike: the store's shared suite holds them to it).
 */
import assert from 'node:assert/strict';
import { MemoryStore } from '../../../../lib/store';
import type { ToMeshJob } from '../../../../gateway/extensions/hub-bridge/hub-to-mesh';
import { ToMeshQueue, TO_MESH_QUEUE, type DeliveryOutcome } from '../../../../gateway/extensions/hub-bridge/to-mesh-queue';

const job = (n: number): ToMeshJob => ({
  v: 1,
  hubMessageId: `msg-${n}`,
  chatId: 'cnv_x',
  senderId: 'usr_x',
  text: `text ${n}`,
  media: [],
  recipient: 'off1recipient',
  appId: 'app',
  emittedAt: 1000 + n,
});

const clock = { now: () => Date.now(), setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms), clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout) };

function queueWith(store: MemoryStore, capacity: number, deliver: (j: ToMeshJob) => Promise<DeliveryOutcome>) {
  const dropped: string[] = [];
  const started: string[] = [];
  const q = new ToMeshQueue(
    store,
    { capacity, concurrency: 4, maxAttempts: 3, retryMinMs: 10, retryMaxMs: 10 },
    {
      deliver: (j) => {
        started.push(j.hubMessageId);
        return deliver(j);
      },
      onDropped: (j) => dropped.push(j.hubMessageId),
    },
    clock,
  );
  q.open();
  return { q, dropped, started };
}

const never = (): Promise<DeliveryOutcome> => new Promise(() => undefined);
const stored = (store: MemoryStore): string[] => store.queue(TO_MESH_QUEUE).peek().map((r) => (JSON.parse(String(r.value)) as ToMeshJob).hubMessageId);

describe('ToMeshQueue.persist (inside the hub client’s inbox commit)', () => {
  it('leaves memory alone until the commit, and leaves nothing when the transaction rolls back', async () => {
    const store = new MemoryStore();
    const { q, started } = queueWith(store, 10, never);
    const after: Array<() => void> = [];
    assert.throws(() =>
      store.transaction(() => {
        q.persist([job(1)], (fn) => after.push(fn));
        throw new Error('the frame could not be persisted');
      }),
    );
    assert.deepEqual(stored(store), [], 'the row went with the rollback');
    assert.equal(q.depth, 0);

    const committed: Array<() => void> = [];
    store.transaction(() => q.persist([job(2), job(3)], (fn) => committed.push(fn)));
    assert.deepEqual(stored(store), ['msg-2', 'msg-3']);
    assert.equal(q.depth, 0, 'nothing in memory before the follow-up');
    for (const fn of committed) fn();
    assert.equal(q.depth, 2);
    await Promise.resolve();
    assert.deepEqual(started, ['msg-2', 'msg-3'], 'started once adopted');
  });

  it('drops the oldest idle jobs when full, counting on what the transaction sees, never a running one', async () => {
    const store = new MemoryStore();
    const { q, dropped, started } = queueWith(store, 2, never);
    q.add([job(1)]);
    await Promise.resolve();
    assert.deepEqual(started, ['msg-1'], 'msg-1 is running');
    // Two frames of one receive batch: both persist before either is adopted.
    const effects: Array<() => void> = [];
    store.transaction(() => {
      q.persist([job(2)], (fn) => effects.push(fn));
      q.persist([job(3), job(4)], (fn) => effects.push(fn));
    });
    for (const fn of effects) fn();
    await Promise.resolve();
    assert.deepEqual(stored(store), ['msg-1', 'msg-4'], 'the running job stays; the newest is kept');
    assert.deepEqual(dropped.sort(), ['msg-2', 'msg-3']);
    assert.equal(q.dropped, 2);
    assert.equal(q.depth, 2);
    q.stop();
  });

  it('refuses a job when every stored one is running (a capacity below the concurrency)', async () => {
    const store = new MemoryStore();
    const { q } = queueWith(store, 1, never);
    q.add([job(1)]);
    await Promise.resolve();
    assert.throws(() => store.transaction(() => q.persist([job(2)], () => undefined)), (e: unknown) => (e as { code?: string }).code === 'QUEUE_FULL');
    assert.deepEqual(stored(store), ['msg-1']);
    q.stop();
  });

  it('still writes after stop, for the next start to send', async () => {
    const store = new MemoryStore();
    const first = queueWith(store, 10, never);
    first.q.stop();
    const effects: Array<() => void> = [];
    store.transaction(() => first.q.persist([job(7)], (fn) => effects.push(fn)));
    for (const fn of effects) fn();
    assert.equal(first.q.depth, 0);
    const second = queueWith(store, 10, () => Promise.resolve({ status: 'done' }));
    await second.q.whenEmpty();
    assert.deepEqual(second.started, ['msg-7']);
    assert.deepEqual(stored(store), []);
  });
});
