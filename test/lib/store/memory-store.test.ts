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
