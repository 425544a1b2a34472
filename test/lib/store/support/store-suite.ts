/**
 * One behavioural suite for every implementation of `Store` (memory and sqlite): whatever the flow or the gateway
 * runs on, it gets the same answers. `reopen` is given by durable implementations and enables the survival checks.
 */
import assert from 'node:assert/strict';
import type { OpenStoreOptions, Store } from '../../../../lib/store';
import { StoreError } from '../../../../lib/store';

export interface StoreFactory {
  open(options?: OpenStoreOptions): Store;
  /** Closes `store` and opens the same location again (durable implementations only). */
  reopen?(store: Store, options?: OpenStoreOptions): Store;
}

function expectCode(fn: () => unknown, code: string): StoreError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof StoreError, `expected a StoreError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code);
  return caught;
}

function row(messageId: string, fingerprint: string, extra: Partial<{ provisional: boolean; at: number; body: string; chatId: string }> = {}) {
  return {
    messageId,
    chatId: extra.chatId ?? 'chat-1',
    event: 'message.send',
    senderId: 'usr_a',
    provisional: extra.provisional ?? false,
    fingerprint,
    body: extra.body ?? `body-${fingerprint}`,
    at: extra.at ?? 1000,
  };
}

export function storeSuite(name: string, factory: StoreFactory): void {
  describe(`${name}: the Store contract`, () => {
    let store: Store;
    beforeEach(() => {
      store = factory.open();
    });
    afterEach(() => {
      store.close();
    });

    describe('kv', () => {
      it('sets, gets, overwrites and deletes text values', () => {
        assert.equal(store.kv.get('a'), undefined);
        store.kv.set('a', 'one');
        store.kv.set('a', 'two');
        assert.equal(store.kv.get('a'), 'two');
        assert.equal(store.kv.delete('a'), true);
        assert.equal(store.kv.delete('a'), false);
        assert.equal(store.kv.get('a'), undefined);
      });

      it('setMax only moves forward and reports whether it advanced', () => {
        assert.equal(store.kv.setMax('read:c', 10), true);
        assert.equal(store.kv.setMax('read:c', 7), false);
        assert.equal(store.kv.setMax('read:c', 10), false);
        assert.equal(store.kv.getNumber('read:c'), 10);
        assert.equal(store.kv.setMax('read:c', 11.5), true);
        assert.equal(store.kv.getNumber('read:c'), 11.5);
      });

      it('getNumber is undefined for text that is not a number', () => {
        store.kv.set('x', 'abc');
        assert.equal(store.kv.getNumber('x'), undefined);
        store.kv.set('y', '');
        assert.equal(store.kv.getNumber('y'), undefined);
        assert.equal(store.kv.setMax('x', 1), true, 'a non-number counts as absent');
      });

      it('lists keys by prefix in code-point order', () => {
        for (const k of ['p:\u{1F600}', 'p:\uE000', 'p:b', 'p:a', 'q:a']) store.kv.set(k, '1');
        assert.deepEqual(store.kv.keys('p:'), ['p:a', 'p:b', 'p:\uE000', 'p:\u{1F600}']);
        assert.equal(store.kv.keys().length, 5);
      });

      it('refuses empty keys and non-string values', () => {
        expectCode(() => store.kv.set('', 'x'), 'STORE_BAD_ARGUMENT');
        expectCode(() => store.kv.set('k', 5 as unknown as string), 'STORE_BAD_ARGUMENT');
        expectCode(() => store.kv.setMax('k', Number.NaN), 'STORE_BAD_ARGUMENT');
      });
    });

    describe('inbox', () => {
      it('inserts, then treats the same fingerprint as a duplicate', () => {
        assert.equal(store.inbox.upsert(row('m1', 'f1')), 'inserted');
        assert.equal(store.inbox.upsert(row('m1', 'f1', { at: 2000 })), 'unchanged');
        const stored = store.inbox.get('m1');
        assert.equal(stored?.fingerprint, 'f1');
        assert.equal(stored?.updatedAt, 1000);
        assert.equal(store.inbox.size(), 1);
      });

      it('overwrites on a new fingerprint (persist is upsert) and keeps receivedAt', () => {
        store.inbox.upsert(row('m1', 'f1', { at: 1000 }));
        assert.equal(store.inbox.upsert(row('m1', 'f2', { at: 2000, body: 'final' })), 'updated');
        const stored = store.inbox.get('m1');
        assert.equal(stored?.body, 'final');
        assert.equal(stored?.receivedAt, 1000);
        assert.equal(stored?.updatedAt, 2000);
      });

      it('never lets a provisional row replace a final one, but a final one replaces a provisional one', () => {
        store.inbox.upsert(row('final', 'f1'));
        assert.equal(store.inbox.upsert(row('final', 'merged', { provisional: true })), 'kept');
        assert.equal(store.inbox.get('final')?.fingerprint, 'f1');

        assert.equal(store.inbox.upsert(row('prov', 'merged', { provisional: true })), 'inserted');
        assert.equal(store.inbox.upsert(row('prov', 'merged2', { provisional: true })), 'updated');
        assert.equal(store.inbox.upsert(row('prov', 'merged2')), 'updated', 'same content, now final');
        assert.equal(store.inbox.get('prov')?.provisional, false);
      });

      it('evicts the least recently written rows beyond its capacity and counts them', () => {
        store.close();
        store = factory.open({ inboxCapacity: 3 });
        store.inbox.upsert(row('a', '1'));
        store.inbox.upsert(row('b', '1'));
        store.inbox.upsert(row('c', '1'));
        store.inbox.upsert(row('a', '2')); // rewriting a makes b the oldest
        store.inbox.upsert(row('d', '1'));
        assert.equal(store.inbox.size(), 3);
        assert.equal(store.inbox.get('b'), undefined);
        assert.ok(store.inbox.get('a') && store.inbox.get('c') && store.inbox.get('d'));
        assert.equal(store.inbox.evicted(), 1);
      });

      it('deletes and clears', () => {
        store.inbox.upsert(row('a', '1'));
        store.inbox.upsert(row('b', '1'));
        assert.equal(store.inbox.delete('a'), true);
        assert.equal(store.inbox.delete('a'), false);
        assert.equal(store.inbox.clear(), 1);
        assert.equal(store.inbox.size(), 0);
        assert.equal(store.inbox.upsert(row('b', '1')), 'inserted', 'a cleared id is new again');
      });

      it('refuses malformed rows', () => {
        expectCode(() => store.inbox.upsert({ ...row('', 'f') }), 'STORE_BAD_ARGUMENT');
        expectCode(() => store.inbox.upsert({ ...row('m', 'f'), body: 3 as unknown as string }), 'STORE_BAD_ARGUMENT');
      });
    });

    describe('queue', () => {
      it('is FIFO with increasing seqs that are never reused', () => {
        const q = store.queue('out');
        const a = q.push('a', 1);
        const b = q.push('b', 2);
        assert.ok(b > a);
        assert.deepEqual(
          q.peek().map((i) => i.value),
          ['a', 'b'],
        );
        assert.equal(q.remove(b), true);
        const c = q.push('c');
        assert.ok(c > b, 'a removed seq is not handed out again');
        assert.deepEqual(q.get(a), { seq: a, value: 'a', enqueuedAt: 1 });
        assert.deepEqual(
          q.peek(1).map((i) => i.seq),
          [a],
        );
        assert.equal(q.size(), 2);
      });

      it('keeps bytes as bytes and text as text', () => {
        const q = store.queue('mixed');
        const bytes = new Uint8Array([0, 1, 2, 255]);
        const s1 = q.push(bytes);
        const s2 = q.push('\u0000text\u{1F600}');
        bytes[0] = 9; // the store holds its own copy
        const item = q.get(s1);
        assert.ok(item?.value instanceof Uint8Array);
        assert.deepEqual(Array.from(item.value as Uint8Array), [0, 1, 2, 255]);
        assert.equal(q.get(s2)?.value, '\u0000text\u{1F600}');
      });

      it('refuses a push into a full reject-queue and counts it', () => {
        const q = store.queue('bounded', { capacity: 2, overflow: 'reject' });
        q.push('1');
        q.push('2');
        const err = expectCode(() => q.push('3'), 'QUEUE_FULL');
        assert.equal(err.details?.queue, 'bounded');
        assert.deepEqual(
          q.peek().map((i) => i.value),
          ['1', '2'],
          'nothing accepted is lost',
        );
        assert.deepEqual(q.counters(), { pushed: 2, removed: 0, dropped: 0, rejected: 1 });
      });

      it('drops the oldest of a full drop-oldest queue and counts it', () => {
        const q = store.queue('ring', { capacity: 2, overflow: 'drop-oldest' });
        q.push('1');
        q.push('2');
        q.push('3');
        q.push('4');
        assert.deepEqual(
          q.peek().map((i) => i.value),
          ['3', '4'],
        );
        assert.deepEqual(q.counters(), { pushed: 4, removed: 0, dropped: 2, rejected: 0 });
      });

      it('refuses an item above maxItemBytes, measured in UTF-8 bytes', () => {
        const q = store.queue('small', { maxItemBytes: 4 });
        q.push('ab\u00e9'); // 4 bytes
        expectCode(() => q.push('abc\u00e9'), 'ITEM_TOO_LARGE');
        expectCode(() => q.push(new Uint8Array(5)), 'ITEM_TOO_LARGE');
        assert.equal(q.counters().rejected, 2);
      });

      it('removes through a seq and clears', () => {
        const q = store.queue('r');
        const seqs = ['a', 'b', 'c', 'd'].map((v) => q.push(v));
        assert.equal(q.removeThrough(seqs[1]), 2);
        assert.deepEqual(
          q.peek().map((i) => i.value),
          ['c', 'd'],
        );
        assert.equal(q.clear(), 2);
        assert.equal(q.size(), 0);
        assert.equal(q.counters().removed, 4);
      });

      it('keeps queues of different names apart and applies new options', () => {
        const a = store.queue('qa');
        const b = store.queue('qb');
        a.push('x');
        assert.equal(b.size(), 0);
        const shrunk = store.queue('qa', { capacity: 1, overflow: 'drop-oldest' });
        assert.equal(shrunk.capacity, 1);
        assert.equal(shrunk.overflow, 'drop-oldest');
        shrunk.push('y');
        assert.deepEqual(
          shrunk.peek().map((i) => i.value),
          ['y'],
        );
        assert.equal(store.queue('qa').capacity, 1, 'a call without options keeps the settings');
      });

      it('refuses bad names, capacities and values', () => {
        expectCode(() => store.queue(''), 'STORE_BAD_ARGUMENT');
        expectCode(() => store.queue('z', { capacity: 0 }), 'STORE_BAD_ARGUMENT');
        expectCode(() => store.queue('z', { capacity: 1.5 }), 'STORE_BAD_ARGUMENT');
        expectCode(() => store.queue('z', { overflow: 'wrap' as 'reject' }), 'STORE_BAD_ARGUMENT');
        expectCode(() => store.queue('z').push(42 as unknown as string), 'STORE_BAD_ARGUMENT');
      });
    });

    describe('seen', () => {
      it('answers whether a key is new, forgetting the oldest beyond capacity', () => {
        const s = store.seen('events', { capacity: 2 });
        assert.equal(s.add('e1'), true);
        assert.equal(s.add('e1'), false);
        assert.equal(s.add('e2'), true);
        assert.equal(s.add('e3'), true);
        assert.equal(s.has('e1'), false);
        assert.equal(s.has('e3'), true);
        assert.equal(s.size(), 2);
        assert.equal(s.evicted(), 1);
        assert.equal(store.seen('other').has('e3'), false);
      });
    });

    describe('transaction', () => {
      it('commits everything together', () => {
        const q = store.queue('t');
        const result = store.transaction(() => {
          store.kv.set('k', 'v');
          store.inbox.upsert(row('m', 'f'));
          q.push('x');
          store.seen('s').add('e');
          return 7;
        });
        assert.equal(result, 7);
        assert.equal(store.kv.get('k'), 'v');
        assert.equal(store.inbox.size(), 1);
        assert.equal(q.size(), 1);
        assert.equal(store.seen('s').has('e'), true);
      });

      it('undoes every write of a transaction that throws', () => {
        const q = store.queue('t', { capacity: 2, overflow: 'drop-oldest' });
        q.push('keep-1');
        q.push('keep-2');
        store.kv.set('k', 'before');
        store.inbox.upsert(row('m', 'f1'));
        const seen = store.seen('s', { capacity: 1 });
        seen.add('old');
        const boom = new Error('boom');
        assert.throws(
          () =>
            store.transaction(() => {
              store.kv.set('k', 'after');
              store.kv.set('new', 'x');
              store.inbox.upsert(row('m', 'f2'));
              store.inbox.upsert(row('m2', 'f'));
              q.push('drops-keep-1');
              q.remove(q.peek()[0].seq);
              seen.add('evicts-old');
              throw boom;
            }),
          (err: unknown) => err === boom,
          'the error of the callback comes back as itself',
        );
        assert.equal(store.kv.get('k'), 'before');
        assert.equal(store.kv.get('new'), undefined);
        assert.equal(store.inbox.get('m')?.fingerprint, 'f1');
        assert.equal(store.inbox.get('m2'), undefined);
        assert.equal(store.inbox.size(), 1);
        assert.deepEqual(
          q.peek().map((i) => i.value),
          ['keep-1', 'keep-2'],
        );
        assert.deepEqual(q.counters(), { pushed: 2, removed: 0, dropped: 0, rejected: 0 });
        assert.equal(seen.has('old'), true);
        assert.equal(seen.has('evicts-old'), false);
        assert.equal(seen.evicted(), 0);
        // The queue keeps working in order after the rollback.
        q.push('next');
        assert.deepEqual(
          q.peek().map((i) => i.value),
          ['keep-2', 'next'],
        );
      });

      it('undoes only the inner part of a nested transaction that throws', () => {
        store.transaction(() => {
          store.kv.set('outer', '1');
          try {
            store.transaction(() => {
              store.kv.set('inner', '1');
              throw new Error('inner');
            });
          } catch {
            // the outer transaction goes on
          }
          store.kv.set('after', '1');
        });
        assert.deepEqual(store.kv.keys(), ['after', 'outer']);
      });

      it('keeps the rejected count of a refused push made inside a transaction that goes on', () => {
        const q = store.queue('full', { capacity: 1 });
        q.push('a');
        store.transaction(() => {
          assert.throws(() => q.push('b'), (err: unknown) => (err as StoreError).code === 'QUEUE_FULL');
          store.kv.set('k', 'v');
        });
        assert.equal(q.counters().rejected, 1);
      });

      it('refuses an asynchronous function and writes nothing', () => {
        expectCode(
          () =>
            store.transaction(() => {
              store.kv.set('k', 'v');
              return Promise.resolve(1);
            }),
          'STORE_BAD_ARGUMENT',
        );
        assert.equal(store.kv.get('k'), undefined);
      });
    });

    it('reports stats', () => {
      store.queue('a', { capacity: 5 }).push('1');
      store.inbox.upsert(row('m', 'f'));
      const stats = store.stats();
      assert.equal(stats.kind, store.kind);
      assert.equal(stats.inboxRows, 1);
      assert.deepEqual(stats.queues.a, { pushed: 1, removed: 0, dropped: 0, rejected: 0, size: 1, capacity: 5 });
    });

    it('refuses use after close, and close is idempotent', () => {
      const q = store.queue('q');
      store.close();
      store.close();
      assert.equal(store.closed, true);
      expectCode(() => store.kv.get('a'), 'STORE_CLOSED');
      expectCode(() => q.push('a'), 'STORE_CLOSED');
      expectCode(() => store.inbox.size(), 'STORE_CLOSED');
      expectCode(() => store.transaction(() => 1), 'STORE_CLOSED');
      store = factory.open(); // for afterEach
    });

    if (factory.reopen) {
      const reopen = factory.reopen;
      it('keeps everything across close and reopen', () => {
        store.kv.set('device', 'dev-1');
        store.kv.setMax('read:c', 42);
        store.inbox.upsert(row('m1', 'f1', { provisional: true }));
        const q = store.queue('out', { capacity: 3, overflow: 'drop-oldest' });
        for (const v of ['1', '2', '3', '4']) q.push(v);
        const removed = q.peek(1)[0].seq;
        q.remove(removed);
        q.push(new Uint8Array([7, 8]));
        store.seen('ev', { capacity: 5 }).add('e1');

        store = reopen(store);
        assert.equal(store.kv.get('device'), 'dev-1');
        assert.equal(store.kv.setMax('read:c', 41), false);
        assert.equal(store.inbox.get('m1')?.provisional, true);
        const again = store.queue('out');
        assert.equal(again.capacity, 3);
        assert.equal(again.overflow, 'drop-oldest');
        const items = again.peek();
        assert.deepEqual(items.slice(0, 2).map((i) => i.value), ['3', '4']);
        assert.deepEqual(Array.from(items[2].value as Uint8Array), [7, 8]);
        assert.deepEqual(again.counters(), { pushed: 5, removed: 1, dropped: 1, rejected: 0 });
        assert.ok(again.push('5') > items[2].seq, 'seqs continue after reopen');
        assert.equal(store.seen('ev').has('e1'), true);
        assert.equal(store.seen('ev').add('e1'), false);
      });

      // Counters (a seen-set's size and order, a queue's) are written when their transaction level ends: one
      // inner level rolled back must take only its own changes with it, before and after a reopen.
      it('keeps the counters of a transaction whose nested part was rolled back, across reopen', () => {
        const q = store.queue('counted', { capacity: 10 });
        store.transaction(() => {
          store.seen('ids', { capacity: 3 }).add('a');
          q.push('1');
          try {
            store.transaction(() => {
              store.seen('ids').add('b');
              q.push('2');
              throw new Error('inner');
            });
          } catch {
            // the outer transaction goes on
          }
          for (const id of ['c', 'd', 'e']) store.seen('ids').add(id);
          q.push('3');
        });
        const check = (s: Store): void => {
          const ids = s.seen('ids', { capacity: 3 });
          assert.deepEqual(['a', 'b', 'c', 'd', 'e'].map((id) => ids.has(id)), [false, false, true, true, true], 'capacity 3: the oldest went, the rolled-back one never came');
          assert.equal(ids.size(), 3);
          assert.equal(ids.evicted(), 1);
          assert.deepEqual(s.queue('counted').peek().map((i) => i.value), ['1', '3']);
          assert.equal(s.queue('counted').counters().pushed, 2);
        };
        check(store);
        store = reopen(store);
        check(store);
        // The order counter survived too: a new id is the newest, so the next eviction takes 'c'.
        const ids = store.seen('ids', { capacity: 3 });
        ids.add('f');
        assert.deepEqual(['c', 'd', 'e', 'f'].map((id) => ids.has(id)), [false, true, true, true]);
      });
    }
  });
}
