import { MemoryStore, openStore } from '../../../lib/store';
import assert from 'node:assert/strict';
import { storeSuite } from './support/store-suite';

storeSuite('MemoryStore', { open: (options) => openStore(':memory:', options) });

describe('openStore(":memory:")', () => {
  it('gives the memory implementation, which needs no native module', () => {
    const store = openStore(':memory:');
    assert.ok(store instanceof MemoryStore);
    assert.equal(store.kind, 'memory');
    assert.equal(store.location, ':memory:');
    store.close();
  });
});

describe('MemoryStore inbox bounded in characters (inboxMaxChars)', () => {
  const row = (i: number, body: string) => ({ messageId: `m${i}`, chatId: 'c', event: 'message.send', senderId: 's', provisional: false, fingerprint: `f${i}`, body, at: i });

  it('evicts the least recently written rows once their characters pass the limit, whatever the row count', () => {
    const store = new MemoryStore({ inboxCapacity: 100_000, inboxMaxChars: 10_000 });
    for (let i = 0; i < 100; i++) store.inbox.upsert(row(i, 'x'.repeat(900)));
    // Each row costs its strings (920 characters) plus 128, 1 048 in all: nine fit in 10 000, a tenth does not.
    assert.equal(store.inbox.size(), 9);
    assert.equal(store.inbox.evicted(), 91);
    assert.equal(store.inbox.get('m90'), undefined);
    assert.ok(store.inbox.get('m99'));
    assert.ok(store.inbox.get('m91'));
    store.close();
  });

  it('gives the characters back on rollback and on delete, and keeps a single row larger than the limit', () => {
    const store = new MemoryStore({ inboxMaxChars: 5_000 });
    store.inbox.upsert(row(1, 'a'.repeat(2000)));
    assert.throws(() =>
      store.transaction(() => {
        store.inbox.upsert(row(2, 'b'.repeat(2000)));
        store.inbox.upsert(row(3, 'c'.repeat(2000)));
        throw new Error('roll back');
      }),
    );
    assert.deepEqual([store.inbox.size(), store.inbox.evicted()], [1, 0]);
    store.inbox.upsert(row(2, 'b'.repeat(2000)));
    assert.equal(store.inbox.size(), 2, 'after the rollback the two rows fit again');
    store.inbox.delete('m1');
    store.inbox.upsert(row(3, 'c'.repeat(2000)));
    assert.equal(store.inbox.size(), 2, 'the deleted row no longer counts');
    store.inbox.upsert(row(4, 'd'.repeat(9000)));
    assert.deepEqual([store.inbox.size(), !!store.inbox.get('m4')], [1, true]);
    store.close();
  });
});
