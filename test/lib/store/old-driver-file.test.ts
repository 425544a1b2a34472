/**
 * A store file written by better-sqlite3 (the driver before node:sqlite) opens on node:sqlite with every record
 * kind intact: fixtures/better-sqlite3-store.db, made once by fixtures/write-better-sqlite3-store.ts (README.md there).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../../lib/store';

// Tests run from dist/; the fixture stays in the source tree.
const FIXTURE = path.join(__dirname, '..', '..', '..', '..', 'test', 'lib', 'store', 'fixtures', 'better-sqlite3-store.db');

describe('a store file written by better-sqlite3', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'old-driver-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('opens on node:sqlite and reads back its cursors, queue items (text and bytes), counters, inbox rows and seen keys', () => {
    const file = path.join(dir, 'gateway.db');
    fs.copyFileSync(FIXTURE, file);
    const store = SqliteStore.open(file);
    try {
      assert.equal(store.kv.get('cursor:chat-1'), 'c-42');
      assert.equal(store.kv.getNumber('epoch'), 3);
      assert.deepEqual(store.kv.keys(), ['cursor:chat-1', 'epoch']);

      const q = store.queue('hub-outbox');
      assert.equal(q.capacity, 10);
      assert.equal(q.overflow, 'drop-oldest');
      const items = q.peek(10);
      assert.equal(items.length, 2);
      assert.deepEqual({ seq: items[0].seq, value: items[0].value, at: items[0].enqueuedAt }, { seq: 1, value: '{"text":"first"}', at: 1_764_000_000_001 });
      assert.equal(items[1].seq, 2);
      assert.ok(items[1].value instanceof Uint8Array);
      assert.deepEqual([...(items[1].value as Uint8Array)], [0, 1, 2, 254, 255]);
      assert.equal(items[1].enqueuedAt, 1_764_000_000_002);
      assert.deepEqual(store.stats().queues['hub-outbox'], { pushed: 3, removed: 1, dropped: 0, rejected: 0, size: 2, capacity: 10 });
      // The seq counter carries on where the old driver left it: never reused.
      assert.equal(q.push('after the switch'), 4);

      assert.equal(store.inbox.size(), 2);
      const m1 = store.inbox.get('m-1');
      assert.deepEqual(
        m1 && { ...m1 },
        { messageId: 'm-1', chatId: 'chat-1', event: 'message', senderId: 's-1', provisional: false, fingerprint: 'f1', body: '{"text":"hi"}', receivedAt: 1_764_000_000_010, updatedAt: 1_764_000_000_010 },
      );
      const m2 = store.inbox.get('m-2');
      assert.equal(m2?.provisional, true);
      assert.equal(m2?.body, '{"text":"draft 2"}');
      assert.equal(m2?.receivedAt, 1_764_000_000_020);
      assert.equal(m2?.updatedAt, 1_764_000_000_030);
      assert.equal(store.inbox.upsert({ messageId: 'm-1', chatId: 'chat-1', event: 'message', senderId: 's-1', provisional: false, fingerprint: 'f1', body: '{"text":"hi"}', at: 1 }), 'unchanged');

      const seen = store.seen('mesh', { capacity: 2 });
      assert.equal(seen.has('k1'), false);
      assert.equal(seen.has('k2'), true);
      assert.equal(seen.has('k3'), true);
      assert.equal(seen.evicted(), 1);
      assert.equal(seen.add('k3'), false);
    } finally {
      store.close();
    }
  });
});
