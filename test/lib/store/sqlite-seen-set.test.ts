/**
 * The sqlite seen-set as a log (lib/store/sqlite-seen-set.ts): what it writes, what a reopen reads back, and a
 * version 1 file's seen rows carried over. The behaviour every store shares is in support/store-suite.ts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store } from '../../../lib/store';
import { loadSqliteDriver } from '../../../lib/store/sqlite-driver';
import { SCHEMA_V1 } from '../../../lib/store/sqlite-schema';

const open = (file: string) => new (loadSqliteDriver())(file);

describe('SqliteSeenSet', () => {
  let dir: string;
  let store: Store | undefined;
  const file = (): string => path.join(dir, 'store.db');
  const rows = (name: string): Array<{ first: number; keys: string[] }> => {
    store?.close();
    store = undefined;
    const db = open(file());
    try {
      return db.prepare<[string], { first: number; keys: string }>('SELECT first, keys FROM seen_log WHERE name = ? ORDER BY first').all(name).map((r) => ({ first: Number(r.first), keys: JSON.parse(String(r.keys)) as string[] }));
    } finally {
      db.close();
    }
  };
  const keys = (prefix: string, from: number, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${from + i}`);

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seen-log-'));
  });
  afterEach(() => {
    if (store && !store.closed) store.close();
    store = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('appends: a batch is one row, and single keys fill the newest row up to 64 before another begins', () => {
    store = openStore(file());
    const seen = store.seen('ids', { capacity: 10_000 });
    for (let b = 0; b < 5; b++) assert.equal(seen.addMany(keys('b', b * 100, 100)), 100);
    for (let i = 0; i < 70; i++) assert.equal(seen.add(`one${i}`), true);
    const written = rows('ids');
    assert.deepEqual(written.map((r) => r.keys.length), [100, 100, 100, 100, 100, 64, 6]);
    assert.deepEqual(written[5]!.keys, keys('one', 0, 64));
  });

  it('takes a key once, whether already there or twice in one call', () => {
    store = openStore(file());
    const seen = store.seen('ids');
    assert.equal(seen.addMany(['a', 'b', 'a']), 2);
    assert.equal(seen.addMany(['b', 'c', 'c', 'a']), 1);
    assert.equal(seen.size(), 3);
    assert.deepEqual(rows('ids').flatMap((r) => r.keys), ['a', 'b', 'c']);
  });

  it('drops a row once every key of it is evicted, and answers exactly across a reopen', () => {
    store = openStore(file());
    let seen = store.seen('ids', { capacity: 150 });
    for (let b = 0; b < 4; b++) seen.addMany(keys('k', b * 100, 100));
    // 400 keys added, 150 live (k250..k399): the rows of k0..k199 are gone, k200..k249 are evicted in a kept row.
    assert.equal(seen.size(), 150);
    assert.equal(seen.evicted(), 250);
    assert.deepEqual(rows('ids').map((r) => r.keys[0]), ['k200', 'k300']);
    store = openStore(file());
    seen = store.seen('ids', { capacity: 150 });
    for (const i of [0, 199, 200, 249]) assert.equal(seen.has(`k${i}`), false, `k${i}`);
    for (const i of [250, 299, 300, 399]) assert.equal(seen.has(`k${i}`), true, `k${i}`);
    assert.equal(seen.add('k249'), true, 'an evicted key is new again');
    assert.equal(seen.has('k250'), false, 'evicted by the key just added');
    assert.equal(seen.add('k251'), false);
    assert.equal(seen.has('k249'), true);
  });

  it('carries a version 1 file’s seen rows over, oldest first, with their counters', () => {
    const db = open(file());
    db.exec(SCHEMA_V1);
    const insert = db.prepare('INSERT INTO seen (name, key, ord, at) VALUES (?, ?, ?, ?)');
    // Two sets, interleaved in order as one process wrote them; 'ids' had evicted 10 before (capacity 200).
    for (let i = 0; i < 200; i++) insert.run('ids', `k${i + 10}`, 2 * i + 100, 1000 + i);
    for (let i = 0; i < 30; i++) insert.run('other', `o${i}`, 2 * i + 101, 1000 + i);
    const counter = db.prepare('INSERT INTO counters (name, value) VALUES (?, ?)');
    counter.run('seen.ord', 600);
    counter.run('seen.ids.size', 200);
    counter.run('seen.ids.evicted', 10);
    counter.run('seen.other.size', 30);
    db.exec('PRAGMA user_version = 1');
    db.close();

    store = openStore(file());
    const ids = store.seen('ids', { capacity: 200 });
    const other = store.seen('other');
    assert.equal(ids.size(), 200);
    assert.equal(ids.evicted(), 10);
    for (const i of [0, 9]) assert.equal(ids.has(`k${i}`), false);
    for (const i of [10, 100, 209]) assert.equal(ids.has(`k${i}`), true);
    assert.equal(other.has('o29'), true);
    assert.equal(ids.has('o29'), false);
    // The next key evicts the oldest carried over.
    assert.equal(ids.add('new'), true);
    assert.equal(ids.has('k10'), false);
    assert.equal(ids.has('k11'), true);
    assert.equal(ids.evicted(), 11);
    const carried = rows('ids').flatMap((r) => r.keys);
    assert.equal(carried[0], 'k10', 'the evicted key stays in its row until the whole row goes');
    assert.deepEqual(carried.slice(-2), ['k209', 'new']);
    const v1 = open(file());
    try {
      assert.equal(Number(v1.prepare<[], { n: number }>('SELECT count(*) AS n FROM seen').get()!.n), 0);
      assert.equal(Number(v1.pragma('user_version', { simple: true })), 2);
    } finally {
      v1.close();
    }
  });
});
