/**
 * One behavioural suite for `DurableOutbox` on every `Store` (memory and sqlite): the hub client's sends and the
 * gateway's MQTT publishes run on it, so both stores must give them the same answers. Time is a `ManualClock`; the
 * store's `sync()` is held back where a test needs the moment before the disk answered (a memory store never waits
 * for it: its commits are all the durability there is).
 */
import assert from 'node:assert/strict';
import { ManualClock } from '../../../../lib/clock';
import type { Store } from '../../../../lib/store';
import { DurableOutbox, type DurableOutboxHooks, type DurableOutboxOptions, type OutboxCodec, type OutboxSlot } from '../../../../lib/store/durable-outbox';

export interface OutboxStoreFactory {
  open(): Store;
}

type Entry = OutboxSlot & { text: string };

const CODEC: OutboxCodec<string, Entry> = {
  encode: (text) => `v1:${text}`,
  decode: (stored) => (typeof stored === 'string' && stored.startsWith('v1:') ? stored.slice(3) : undefined),
  entry: (slot, text) => Object.assign(slot, { text }),
};

/** Holds every `sync()` of `store` until the test releases (to the real one) or fails them. */
function holdSyncs(store: Store): { calls(): number; release(): Promise<void>; fail(err: Error): void } {
  const real = store.sync.bind(store);
  let calls = 0;
  const held: Array<{ resolve(): Promise<void>; reject(err: Error): void }> = [];
  store.sync = () => {
    calls += 1;
    return new Promise<void>((resolve, reject) => held.push({ resolve: () => real().then(resolve, reject), reject }));
  };
  return {
    calls: () => calls,
    /** Lets the held syncs go on to the real fsync; resolves once it ended (their own handlers run right after). */
    async release() {
      await Promise.all(held.splice(0).map((h) => h.resolve()));
    },
    fail(err) {
      for (const h of held.splice(0)) h.reject(err);
    },
  };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** Lets settled promises (a released or failed sync) run their handlers. */
const settleMicrotasks = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await turn();
};

interface Log {
  events: string[];
  hooks: DurableOutboxHooks<string, Entry>;
}

function log(): Log {
  const events: string[] = [];
  return {
    events,
    hooks: {
      committed: (outcome) => events.push(`committed ${outcome.results.map((r) => (r instanceof Error ? (r as { code?: string }).code : (r as Entry).text)).join(',')}`),
      commitFailed: (staged) => events.push(`commitFailed ${staged.join(',')}`),
      durable: (e, ok) => events.push(`durable ${e.text} ${ok}`),
      settled: (e, ok) => events.push(`settled ${e.text} ${ok}`),
      syncFailed: (_err, commits) => events.push(`syncFailed ${commits}`),
    },
  };
}

export function durableOutboxSuite(name: string, factory: OutboxStoreFactory): void {
  describe(`${name}: DurableOutbox`, () => {
    let store: Store;
    let clock: ManualClock;
    const outbox = (l: Log, options: Partial<DurableOutboxOptions> = {}): DurableOutbox<string, Entry> => {
      const box = new DurableOutbox(store, CODEC, { queue: 'out', capacity: 100, overflow: 'reject', maxInFlight: 2, clock, ...options }, l.hooks);
      box.open();
      return box;
    };
    const rows = (): string[] => store.queue('out').peek().map((i) => String(i.value));
    beforeEach(() => {
      store = factory.open();
      clock = new ManualClock(0);
    });
    afterEach(() => {
      if (!store.closed) store.close();
    });

    it('commits what one turn staged in one transaction on the next turn, sendable before its fsync ends', async () => {
      const gate = holdSyncs(store);
      const l = log();
      const box = outbox(l);
      let transactions = 0;
      const real = store.transaction.bind(store);
      store.transaction = ((fn: () => unknown, o?: { deferSync?: boolean }) => {
        transactions += 1;
        assert.equal(o?.deferSync, true, 'the commit does not wait for the disk');
        return real(fn, o);
      }) as Store['transaction'];
      box.stage('a');
      box.stage('b');
      box.stage('c');
      assert.deepEqual(rows(), [], 'nothing written in the turn that staged');
      assert.equal(box.depth, 3, 'staged values count as still to deliver');
      await turn();
      assert.equal(transactions, 1);
      assert.deepEqual(rows(), ['v1:a', 'v1:b', 'v1:c']);
      assert.deepEqual(box.take().map((e) => e.text), ['a', 'b'], 'on the wire at once, oldest first, within the window');
      assert.deepEqual(box.take(), [], 'the window is full');
      assert.equal(gate.calls(), store.kind === 'memory' ? 0 : 1, 'a file store is asked to sync once for the whole commit');
      assert.deepEqual(l.events, store.kind === 'memory' ? ['committed a,b,c', 'durable a true', 'durable b true', 'durable c true'] : ['committed a,b,c']);
      await gate.release();
      await settleMicrotasks();
      assert.deepEqual(l.events.slice(1), ['durable a true', 'durable b true', 'durable c true']);
      assert.equal(box.durableThrough, store.queue('out').peek().at(-1)!.seq);
    });

    it('settles an entry only once it is both answered and durable, whichever comes last', async () => {
      const gate = holdSyncs(store);
      const l = log();
      const box = outbox(l);
      box.stage('early');
      box.stage('late');
      await turn();
      const [early, late] = box.take();
      assert.equal(box.answer(early!), true);
      assert.equal(box.answer(early!), false, 'a second answer is no answer');
      assert.equal(box.inFlight, 1);
      assert.deepEqual(
        l.events.filter((e) => e.startsWith('settled')),
        store.kind === 'memory' ? ['settled early true'] : [],
        'answered before its fsync ended: it waits (in memory the commit was all there is)',
      );
      await gate.release();
      await settleMicrotasks();
      assert.deepEqual(
        l.events.slice(1),
        store.kind === 'memory'
          ? ['durable early true', 'durable late true', 'settled early true']
          : ['durable early true', 'settled early true', 'durable late true'],
        'durable first, then settled, in seq order',
      );
      box.answer(late!);
      assert.equal(l.events.at(-1), 'settled late true', 'answered after its fsync: settles at once');
      assert.equal(box.size, 0);
    });

    it('reports a failed fsync: unanswered entries are not durable, answered ones settle as failed', async () => {
      const gate = holdSyncs(store);
      const l = log();
      const box = outbox(l);
      box.stage('answered');
      box.stage('waiting');
      await turn();
      const [answered] = box.take();
      box.answer(answered!);
      gate.fail(new Error('EIO: i/o error, fsync'));
      await settleMicrotasks();
      if (store.kind === 'memory') {
        // Nothing was ever asked of the disk: durable at the commit, settled at the answer.
        assert.deepEqual(l.events.slice(1), ['durable answered true', 'durable waiting true', 'settled answered true']);
      } else {
        assert.deepEqual(l.events.slice(1), ['syncFailed 1', 'durable answered false', 'settled answered false', 'durable waiting false']);
      }
      assert.equal(box.durableThrough, store.queue('out').peek().at(-1)!.seq, 'the watermark moves on: a later answer settles at once');
    });

    it('puts what was in flight back ahead of everything newer, in seq order, when the connection ends or an answer is overdue', async () => {
      const l = log();
      const box = outbox(l, { maxInFlight: 3 });
      for (const t of ['a', 'b', 'c', 'd', 'e']) box.stage(t);
      await turn();
      assert.deepEqual(box.take().map((e) => e.text), ['a', 'b', 'c']);
      box.requeueAll();
      assert.equal(box.inFlight, 0);
      const again = box.take();
      assert.deepEqual(again.map((e) => [e.text, e.attempts]), [['a', 2], ['b', 2], ['c', 2]]);
      box.answer(again[1]!);
      clock.advance(500);
      assert.deepEqual(box.take().map((e) => e.text), ['d'], 'the freed slot takes the next one');
      assert.deepEqual(box.requeueOverdue(1000), [], 'nothing overdue yet');
      assert.equal(box.oldestInFlight()?.text, 'a');
      clock.advance(500);
      assert.deepEqual(box.requeueOverdue(1000).map((e) => e.text), ['a', 'c'], 'taken 1000 ms ago on the injected clock; d is younger');
      assert.deepEqual(box.take().map((e) => [e.text, e.attempts, e.sentAt]), [['a', 3, 1000], ['c', 3, 1000]]);
      assert.deepEqual(box.take(), []);
    });

    it('removes the rows of answered entries with the next commit, or after removalDelayMs on its clock, or at once in memory', async () => {
      const l = log();
      const box = outbox(l, { maxInFlight: 10 });
      box.stage('one');
      box.stage('two');
      await turn();
      const [one, two] = box.take();
      box.answer(one!);
      if (store.kind === 'memory') {
        assert.deepEqual(rows(), ['v1:two'], 'a memory store removes at once');
        return;
      }
      assert.deepEqual(rows(), ['v1:one', 'v1:two'], 'the removal waits');
      assert.equal(box.pendingRemovals, 1);
      assert.equal(box.depth, 1, 'an answered entry is no longer to deliver');
      box.stage('three');
      await turn();
      assert.deepEqual(rows(), ['v1:two', 'v1:three'], 'it went with the next commit');
      box.answer(two!);
      clock.advance(19);
      assert.equal(rows().length, 2);
      clock.advance(1);
      assert.deepEqual(rows(), ['v1:three'], 'on its own after 20 ms of the injected clock');
    });

    it('removes on the turn of the answer with removeWhenQuiet, when nothing is in flight or staged and commits come further apart than removalDelayMs', async () => {
      const l = log();
      const box = outbox(l, { maxInFlight: 10, removeWhenQuiet: true });
      box.stage('a');
      await turn();
      clock.advance(100);
      box.stage('b');
      await turn();
      const [a, b] = box.take();
      box.answer(a!);
      if (store.kind === 'memory') return; // removed at once already (the test above)
      await turn();
      assert.deepEqual(rows(), ['v1:a', 'v1:b'], 'b is still in flight: its answer may come with the next read');
      assert.equal(box.pendingRemovals, 1);
      box.answer(b!);
      assert.equal(box.pendingRemovals, 2, 'not inside the answer itself: after every answer of the same read');
      await turn();
      assert.deepEqual(rows(), [], 'both rows went on the same turn, without waiting 20 ms of the clock');
      assert.equal(box.pendingRemovals, 0);
      // Commits 5 ms apart: another one is likely within removalDelayMs, so the removal waits to go with it.
      clock.advance(5);
      box.stage('c');
      await turn();
      const [c] = box.take();
      box.answer(c!);
      await turn();
      assert.deepEqual(rows(), ['v1:c'], 'waits for the next commit or the timer');
      clock.advance(20);
      assert.deepEqual(rows(), []);
    });

    it('keeps a lone answer\'s row for removalDelayMs without removeWhenQuiet', async () => {
      const l = log();
      const box = outbox(l, { maxInFlight: 10 });
      box.stage('a');
      await turn();
      box.answer(box.take()[0]!);
      if (store.kind === 'memory') return;
      await turn();
      assert.deepEqual(rows(), ['v1:a'], 'a crash right after the answer still finds it');
      clock.advance(20);
      assert.deepEqual(rows(), []);
    });

    it('removes at once when removalBatch answers are pending', async () => {
      const l = log();
      const box = outbox(l, { maxInFlight: 10, removalBatch: 3 });
      for (const t of ['a', 'b', 'c', 'd']) box.stage(t);
      await turn();
      const taken = box.take();
      box.answer(taken[0]!);
      box.answer(taken[1]!);
      assert.equal(rows().length, store.kind === 'memory' ? 2 : 4);
      box.answer(taken[2]!);
      assert.deepEqual(rows(), ['v1:d']);
      assert.equal(box.pendingRemovals, 0);
    });

    it('refuses alone a value a full reject queue cannot take, and commits the rest', async () => {
      const l = log();
      const box = outbox(l, { capacity: 2 });
      box.stage('a');
      box.stage('b');
      box.stage('c');
      await turn();
      assert.equal(l.events[0], 'committed a,b,QUEUE_FULL');
      assert.deepEqual(rows(), ['v1:a', 'v1:b']);
      // An answer frees a row for the next commit: removals come first in it.
      box.answer(box.take()[0]!);
      box.stage('d');
      await turn();
      assert.equal(l.events.filter((e) => e.startsWith('committed')).at(-1), 'committed d');
      assert.deepEqual(rows(), ['v1:b', 'v1:d']);
    });

    it('drops the oldest from a full drop-oldest queue and reports it, but not an entry in flight', async () => {
      const l = log();
      const dropped: string[] = [];
      l.hooks.committed = (outcome) => dropped.push(...outcome.dropped.map((e) => e.text));
      const box = outbox(l, { capacity: 3, overflow: 'drop-oldest', maxInFlight: 1 });
      for (const t of ['a', 'b', 'c']) box.stage(t);
      await turn();
      const [a] = box.take();
      for (const t of ['d', 'e', 'f', 'g']) box.stage(t);
      await turn();
      assert.deepEqual(dropped, ['b', 'c', 'd'], 'a is in flight: its answer is on the way; d came and went in one commit');
      assert.deepEqual(rows(), ['v1:e', 'v1:f', 'v1:g']);
      box.answer(a!);
      assert.deepEqual(box.take().map((e) => e.text), ['e'], 'the dropped ones are not sent');
    });

    it('holds at most mirrorLimit entries in memory and reads the rest back from disk, in order', async () => {
      const l = log();
      const box = outbox(l, { mirrorLimit: 3, maxInFlight: 2 });
      for (let i = 0; i < 10; i++) box.stage(`m${i}`);
      await turn();
      assert.equal(box.size, 3, 'only the head is in memory');
      const sent: string[] = [];
      for (;;) {
        const taken = box.take();
        if (taken.length === 0) break;
        for (const e of taken) {
          sent.push(e.text);
          box.answer(e);
        }
      }
      assert.deepEqual(sent, Array.from({ length: 10 }, (_, i) => `m${i}`));
      assert.equal(box.depth, 0);
    });

    it('reads back what an earlier outbox on the store left, removing rows that are not its own', async () => {
      const first = outbox(log());
      first.stage('kept-1');
      first.stage('kept-2');
      await turn();
      first.take();
      store.queue('out').push('garbage');
      const l = log();
      const second = new DurableOutbox(store, CODEC, { queue: 'out', capacity: 100, overflow: 'reject', maxInFlight: 5, clock }, l.hooks);
      const visited: string[] = [];
      assert.equal(
        second.open((_seq, text) => visited.push(text)),
        1,
        'one unreadable row',
      );
      assert.deepEqual(visited, ['kept-1', 'kept-2']);
      assert.deepEqual(rows(), ['v1:kept-1', 'v1:kept-2']);
      const again = second.take();
      assert.deepEqual(again.map((e) => [e.text, e.attempts]), [['kept-1', 1], ['kept-2', 1]], 'sent again, as first attempts of this run');
      assert.ok(again.every((e) => second.isDurable(e)), 'read back from the store: durable');
      second.answer(again[0]!);
      assert.equal(l.events.at(-1), 'settled kept-1 true');
    });

    it('writes nothing of a commit that throws and keeps its removals for the next one', async () => {
      const l = log();
      const box = outbox(l, { maxInFlight: 5 });
      box.stage('a');
      await turn();
      box.answer(box.take()[0]!);
      const real = store.transaction.bind(store);
      store.transaction = (() => {
        throw new Error('disk full');
      }) as Store['transaction'];
      box.stage('lost');
      await turn();
      assert.equal(l.events.at(-1), 'commitFailed lost');
      store.transaction = real;
      if (store.kind !== 'memory') assert.equal(box.pendingRemovals, 1, 'the removal waits for the next commit');
      box.stage('b');
      await turn();
      assert.deepEqual(rows(), ['v1:b']);
    });

    it('keeps commits minCommitGapMs apart on its clock under load', async () => {
      const l = log();
      const box = outbox(l, { minCommitGapMs: 5 });
      box.stage('a');
      await turn();
      box.stage('b');
      await turn();
      assert.deepEqual(rows(), ['v1:a'], 'the second commit waits for the gap');
      clock.advance(5);
      assert.deepEqual(rows(), ['v1:a', 'v1:b']);
    });
  });
}
