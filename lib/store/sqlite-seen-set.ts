/**
 * The sqlite seen-set: a log of keys on disk, answered from memory.
 *
 * Why a log: a table keyed by the key puts each new key on a random leaf of its B-tree, so a commit of n message ids
 * wrote about n pages to the WAL (and the checkpoint wrote them again), most of what an MQTT outbox commit cost.
 * Here keys are appended in the order added, as JSON arrays of up to `ROW_FILL` keys per row of `seen_log` (the
 * newest row is rewritten until full): a commit writes about one page for all of its keys.
 *
 * Why memory can answer: the table is still the only truth, and memory holds only what points into it — a filter
 * that answers "never added" for most absent keys (lib/store/key-filter.ts), and a 32-bit hash per live key in
 * log order. A key the filter may hold is looked for among the hashes, and a match is read back from its row and
 * compared, so every answer is exact. About 4 bytes per key of capacity for the hashes plus the filter's 4: some
 * 800 KB for the MQTT outbox's 100 000 ids. Both are read from the table when first needed, and again after a
 * rollback (which may undo appends or evictions) or a change of capacity.
 *
 * Eviction (the oldest first, past the capacity) moves where the live keys begin; a row leaves the table once all
 * of its keys are evicted. The counter `seen.<name>.size` says how many keys are live, so that the evicted keys
 * still at the front of the oldest row are known as such after a reopen.
 */
import { KeyFilter } from './key-filter';
import { checkKey } from './rules';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver';
import type { SeenSet } from './types';

/** What the seen-set needs of the store's connection (the one owner of the file, its caches and transactions). */
export interface SeenConnection {
  readonly db: SqliteDatabase;
  /** Bumped on every rollback: memory built under an older value may point at rows that are gone. */
  readonly generation: number;
  readonly now: () => number;
  op<T>(fn: () => T): T;
  read<T>(fn: () => T): T;
  counter(name: string): number;
  setCounter(name: string, value: number): void;
  addCounter(name: string, delta: number): number;
}

/** Keys the newest row takes before a new row begins (rows stay about a page of text). */
const ROW_FILL = 64;
/** Rows per read when memory is built from the table. */
const LOAD_PAGE = 256;

interface Row {
  /** Its key in the table, from the store's `seen.ord` counter: rows in the order written. */
  first: number;
  /** Log position of its first key. */
  start: number;
  count: number;
}

/** What memory holds of one set, valid for one connection generation and capacity. */
interface Index {
  generation: number;
  capacity: number;
  filter: KeyFilter;
  /** Hash of the key at log position p, at `p % hashes.length`, for live positions. */
  hashes: Uint32Array;
  /** First live position; positions before it are evicted. */
  head: number;
  /** Next position to write. */
  tail: number;
  /** Rows in the table, oldest first, from `rowsHead` on. */
  rows: Row[];
  rowsHead: number;
  /** The keys of the newest row while it takes more (it is rewritten with them). */
  newestKeys: string[] | undefined;
}

/** 32-bit FNV-1a of the UTF-16 units of `key`, mixed: the hash kept per live key. */
function hash32(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 12)) >>> 0;
}

export class SqliteSeenSet implements SeenSet {
  private index: Index | undefined;
  private readonly insertRow: SqliteStatement<[string, number, string, number]>;
  private readonly updateRow: SqliteStatement<[string, number, string, number]>;
  private readonly deleteRow: SqliteStatement<[string, number]>;
  private readonly readRow: SqliteStatement<[string, number], { keys: string }>;
  private readonly pageSizes: SqliteStatement<[string, number, number], { first: number; count: number }>;

  constructor(
    private readonly c: SeenConnection,
    readonly name: string,
    public capacity: number,
  ) {
    this.insertRow = c.db.prepare('INSERT INTO seen_log (name, first, keys, at) VALUES (?, ?, ?, ?)');
    // Plain `?` in order: Node 22's node:sqlite refuses numbered parameters bound by position (SQLITE_RANGE).
    this.updateRow = c.db.prepare('UPDATE seen_log SET keys = ?, at = ? WHERE name = ? AND first = ?');
    this.deleteRow = c.db.prepare('DELETE FROM seen_log WHERE name = ? AND first = ?');
    this.readRow = c.db.prepare('SELECT keys FROM seen_log WHERE name = ? AND first = ?');
    this.pageSizes = c.db.prepare('SELECT first, json_array_length(keys) AS count FROM seen_log WHERE name = ? AND first > ? ORDER BY first LIMIT ?');
  }

  add(key: string, at?: number): boolean {
    checkKey(key);
    return this.addMany([key], at) === 1;
  }

  addMany(keys: readonly string[], at?: number): number {
    for (let i = 0; i < keys.length; i++) checkKey(keys[i]!);
    if (keys.length === 0) return 0;
    return this.c.op(() => {
      const x = this.current();
      // A key already there, or twice in this call, is taken once (as one `add` after another would).
      let fresh: string[];
      if (keys.length === 1) fresh = this.holds(x, keys[0]!) ? [] : [keys[0]!];
      else {
        const inCall = new Set<string>();
        fresh = [];
        for (const k of keys) {
          if (inCall.has(k) || this.holds(x, k)) continue;
          inCall.add(k);
          fresh.push(k);
        }
      }
      if (fresh.length === 0) return 0;
      this.append(x, fresh, at ?? this.c.now());
      const size = this.c.addCounter(this.sizeCounter, fresh.length);
      if (size > this.capacity) {
        const evicted = size - this.capacity;
        x.head += evicted;
        this.c.addCounter(this.sizeCounter, -evicted);
        this.c.addCounter(`seen.${this.name}.evicted`, evicted);
        this.dropEvictedRows(x);
      }
      // Hashes of the live keys only: with more keys in one call than the capacity, the first are evicted at once.
      for (let i = 0, p = x.tail - fresh.length; i < fresh.length; i++, p++) {
        if (p < x.head) continue;
        x.hashes[p % x.hashes.length] = hash32(fresh[i]!);
        x.filter.add(fresh[i]!);
      }
      x.filter.taken(fresh.length);
      return fresh.length;
    });
  }

  has(key: string): boolean {
    return this.c.read(() => this.holds(this.current(), key));
  }

  size(): number {
    return this.c.read(() => this.c.counter(this.sizeCounter));
  }

  evicted(): number {
    return this.c.read(() => this.c.counter(`seen.${this.name}.evicted`));
  }

  private get sizeCounter(): string {
    return `seen.${this.name}.size`;
  }

  /** Is `key` live in the set? The filter first; then the hashes; then the row, for every hash that matches. */
  private holds(x: Index, key: string): boolean {
    if (!x.filter.mayHave(key)) return false;
    const h = hash32(key);
    const ring = x.hashes;
    // The live positions lie in the ring as one stretch or two (when they wrap): scanned without a modulo each, the
    // newest first, because a key that comes again is most often a recent one (a resend): a scan of the whole ring is
    // then paid only by the rare absent key the filter lets through (~0.2 ms for 100 000 keys on the dev machine).
    const from = x.head % ring.length;
    const live = x.tail - x.head;
    const firstStretch = Math.min(live, ring.length - from);
    for (let i = live - 1; i >= 0; i--) {
      const at = i < firstStretch ? from + i : i - firstStretch;
      if (ring[at] !== h) continue;
      const p = x.head + i;
      const row = this.rowAt(x, p);
      if (row !== undefined && this.keysOf(x, row)[p - row.start] === key) return true;
    }
    return false;
  }

  /** The row holding log position `p` (binary search: rows are in position order). */
  private rowAt(x: Index, p: number): Row | undefined {
    let lo = x.rowsHead;
    let hi = x.rows.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const row = x.rows[mid]!;
      if (p < row.start) hi = mid - 1;
      else if (p >= row.start + row.count) lo = mid + 1;
      else return row;
    }
    return undefined;
  }

  private keysOf(x: Index, row: Row): string[] {
    if (row === x.rows[x.rows.length - 1] && x.newestKeys !== undefined) return x.newestKeys;
    const stored = this.readRow.get(this.name, row.first);
    return stored === undefined ? [] : (JSON.parse(stored.keys) as string[]);
  }

  /** Writes `fresh` into the newest row while it has room, else into a new row. */
  private append(x: Index, fresh: string[], at: number): void {
    const newest = x.rows.length > x.rowsHead ? x.rows[x.rows.length - 1] : undefined;
    if (newest !== undefined && x.newestKeys !== undefined) {
      const keys = x.newestKeys.concat(fresh);
      this.updateRow.run(JSON.stringify(keys), at, this.name, newest.first);
      newest.count = keys.length;
      x.newestKeys = keys.length < ROW_FILL ? keys : undefined;
    } else {
      const first = this.c.counter('seen.ord') + 1;
      this.c.setCounter('seen.ord', first);
      this.insertRow.run(this.name, first, JSON.stringify(fresh), at);
      x.rows.push({ first, start: x.tail, count: fresh.length });
      x.newestKeys = fresh.length < ROW_FILL ? fresh : undefined;
    }
    x.tail += fresh.length;
  }

  /** Rows whose every key is evicted leave the table. */
  private dropEvictedRows(x: Index): void {
    while (x.rowsHead < x.rows.length) {
      const row = x.rows[x.rowsHead]!;
      if (row.start + row.count > x.head) break;
      this.deleteRow.run(this.name, row.first);
      x.rowsHead += 1;
      if (x.rowsHead === x.rows.length) x.newestKeys = undefined;
    }
    if (x.rowsHead > 64 && x.rowsHead * 2 > x.rows.length) {
      x.rows = x.rows.slice(x.rowsHead);
      x.rowsHead = 0;
    }
  }

  /** Memory for the present generation and capacity, read from the table when it is stale or absent. */
  private current(): Index {
    const x = this.index;
    if (x !== undefined && x.generation === this.c.generation && x.capacity === this.capacity) return x;
    return (this.index = this.load());
  }

  private load(): Index {
    const rows: Row[] = [];
    let total = 0;
    // First the rows and their sizes (sqlite counts the keys: nothing parsed yet); which keys are live is known once
    // the total is.
    for (let after = Number.MIN_SAFE_INTEGER; ; ) {
      const page = this.pageSizes.all(this.name, after, LOAD_PAGE);
      for (const r of page) {
        rows.push({ first: r.first, start: total, count: r.count });
        total += r.count;
      }
      if (page.length < LOAD_PAGE) break;
      after = page[page.length - 1]!.first;
    }
    const live = Math.min(total, this.c.counter(this.sizeCounter));
    const head = total - live;
    // A set holding more than its capacity (lowered since) keeps them all until its next add evicts.
    const hashes = new Uint32Array(Math.max(1, this.capacity, live));
    const filter = new KeyFilter(Math.max(this.capacity, live));
    let newestKeys: string[] | undefined;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const last = i === rows.length - 1;
      if (row.start + row.count <= head && !last) continue;
      const keys = JSON.parse(this.readRow.get(this.name, row.first)!.keys) as string[];
      if (last) newestKeys = keys;
      for (let k = 0; k < keys.length; k++) {
        const p = row.start + k;
        if (p < head) continue;
        hashes[p % hashes.length] = hash32(keys[k]!);
        filter.add(keys[k]!);
      }
    }
    filter.taken(live);
    return {
      generation: this.c.generation,
      capacity: this.capacity,
      filter,
      hashes,
      head,
      tail: total,
      rows,
      rowsHead: 0,
      newestKeys: newestKeys !== undefined && newestKeys.length < ROW_FILL ? newestKeys : undefined,
    };
  }
}
