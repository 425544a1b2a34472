/**
 * Bounded exact-match deduplication with expiry (mesh-reference-facts.md §4 "Dedup").
 *
 * Two populations, kept apart on purpose: the delivery deduplicator (1000 ids for 1 h) remembers messages addressed
 * to us, and its entries are load-bearing (a rejected or deferred message is unmarked so that the sender's retry is
 * processed); the relay-seen cache (8192 ids for 600 s) remembers what this node already forwarded, so relay volume
 * can never evict delivery entries. Expiry runs from first sight. At capacity the delivery deduplicator first drops
 * expired entries and then the least recently consulted one; the relay cache drops the oldest.
 * Every operation is O(1) amortized, whatever the traffic.
 */
import type { MessageIdLike } from './message';
import { monotonicNow, nonNegativeOption, positiveIntegerOption } from './options';

export const DEDUP_CAPACITY = 1000;
export const DEDUP_RETENTION_MS = 3_600_000;
export const RELAY_SEEN_CAPACITY = 8192;
export const RELAY_SEEN_RETENTION_MS = 600_000;

export interface DeduplicatorOptions {
  capacity?: number;
  retentionMs?: number;
  /** What leaves first when full and nothing has expired: the least recently consulted (default) or the oldest. */
  eviction?: 'lru' | 'fifo';
  /** Milliseconds from any fixed origin; monotonic by default. */
  now?: () => number;
}

export interface DeduplicatorCounters {
  duplicates: number;
  expired: number;
  /** Ids dropped for room rather than age; should stay at 0 when the capacity fits the traffic. */
  capacityEvictions: number;
}

type Key = string | MessageIdLike;

/** One remembered id: when it was first seen, its place in first-seen order, and its last consultation. */
interface Slot {
  at: number;
  /** Its entry in `bySight`; an entry whose slot says otherwise is stale (the id was forgotten meanwhile). */
  sight: number;
  /** Its latest entry in `byUse` (LRU only); older entries of the same id are stale. */
  use: number;
}

/**
 * Ids in some order with a stamp each, oldest first. Forgetting an id does not touch the queue (that would be a
 * linear search): its entries go stale and are skipped when they reach the front, or dropped when the stale ones
 * outnumber the live ones. A `Map` iterated from the front would do the same skipping on every call, over every id
 * deleted since its table was last rebuilt — thousands of steps per mark for a full LRU set.
 */
class StampQueue {
  private keys: string[] = [];
  private stamps: number[] = [];
  private head = 0;

  get length(): number {
    return this.keys.length - this.head;
  }

  push(key: string, stamp: number): void {
    this.keys.push(key);
    this.stamps.push(stamp);
  }

  /** The front entry's key, `undefined` when empty. */
  frontKey(): string | undefined {
    return this.head < this.keys.length ? this.keys[this.head] : undefined;
  }

  frontStamp(): number {
    return this.stamps[this.head]!;
  }

  shift(): void {
    this.head += 1;
    if (this.head === this.keys.length) this.clear();
    else if (this.head > 1024 && this.head * 2 > this.keys.length) this.compact(() => true);
  }

  /** Keeps only the entries `live` accepts, in order. */
  compact(live: (key: string, stamp: number) => boolean): void {
    const keys: string[] = [];
    const stamps: number[] = [];
    for (let i = this.head; i < this.keys.length; i++) {
      if (!live(this.keys[i]!, this.stamps[i]!)) continue;
      keys.push(this.keys[i]!);
      stamps.push(this.stamps[i]!);
    }
    this.keys = keys;
    this.stamps = stamps;
    this.head = 0;
  }

  clear(): void {
    this.keys = [];
    this.stamps = [];
    this.head = 0;
  }
}

export class Deduplicator {
  private readonly slots = new Map<string, Slot>();
  /** Ids in first-seen order (so the front is always the next to expire), stamped with their `sight`. */
  private readonly bySight = new StampQueue();
  /** Ids in least-recently-consulted order, stamped with their `use` (only for `lru`). */
  private readonly byUse = new StampQueue();
  /** The last stamp given out (sights and uses share it; it only grows). */
  private stamp = 0;
  private readonly capacity: number;
  private readonly retentionMs: number;
  private readonly lru: boolean;
  private readonly now: () => number;
  private readonly tally: DeduplicatorCounters = { duplicates: 0, expired: 0, capacityEvictions: 0 };
  private readonly sightLive = (key: string, stamp: number): boolean => this.slots.get(key)?.sight === stamp;
  private readonly useLive = (key: string, stamp: number): boolean => this.slots.get(key)?.use === stamp;

  constructor(options: DeduplicatorOptions = {}) {
    this.capacity = positiveIntegerOption(options.capacity, DEDUP_CAPACITY, 'capacity');
    this.retentionMs = nonNegativeOption(options.retentionMs, DEDUP_RETENTION_MS, 'retentionMs');
    this.lru = (options.eviction ?? 'lru') === 'lru';
    this.now = options.now ?? monotonicNow;
  }

  get size(): number {
    return this.slots.size;
  }

  get counters(): Readonly<DeduplicatorCounters> {
    return { ...this.tally };
  }

  /** Whether the id was seen within the retention window; marks it if not. The one call a receive path needs. */
  check(id: Key): boolean {
    if (this.has(id)) {
      this.tally.duplicates++;
      return true;
    }
    this.mark(id);
    return false;
  }

  /** Seen within the retention window? Counts as a use for LRU; does not mark. */
  has(id: Key): boolean {
    const key = typeof id === 'string' ? id : String(id);
    const slot = this.slots.get(key);
    if (slot === undefined) return false;
    if (this.now() - slot.at >= this.retentionMs) {
      this.slots.delete(key);
      this.tally.expired++;
      this.tidy();
      return false;
    }
    if (this.lru) {
      slot.use = ++this.stamp;
      this.byUse.push(key, slot.use);
      this.tidy();
    }
    return true;
  }

  /** Record an id; returns false when it was already recorded and unexpired. */
  mark(id: Key): boolean {
    const key = typeof id === 'string' ? id : String(id);
    const now = this.now();
    this.expire(now);
    if (this.slots.has(key)) return false;
    while (this.slots.size >= this.capacity) {
      const victim = this.oldest(this.lru ? this.byUse : this.bySight, this.lru ? this.useLive : this.sightLive);
      if (victim === undefined) break;
      this.slots.delete(victim);
      this.tally.capacityEvictions++;
    }
    const stamp = ++this.stamp;
    this.slots.set(key, { at: now, sight: stamp, use: stamp });
    this.bySight.push(key, stamp);
    if (this.lru) this.byUse.push(key, stamp);
    this.tidy();
    return true;
  }

  /** Forget an id so that its next arrival is processed as new (after a security rejection or a deferral). */
  unmark(id: Key): boolean {
    const key = typeof id === 'string' ? id : String(id);
    if (!this.slots.delete(key)) return false;
    this.tidy();
    return true;
  }

  /** Drop every expired id now (also done on every `mark`); returns how many went. */
  sweep(): number {
    return this.expire(this.now());
  }

  clear(): void {
    this.slots.clear();
    this.bySight.clear();
    this.byUse.clear();
  }

  private expire(now: number): number {
    let n = 0;
    for (;;) {
      const key = this.oldest(this.bySight, this.sightLive);
      if (key === undefined || now - this.slots.get(key)!.at < this.retentionMs) break;
      this.slots.delete(key);
      this.bySight.shift();
      n++;
    }
    this.tally.expired += n;
    return n;
  }

  /** The key at the front of `queue` once its stale entries are dropped; `undefined` when none is left. */
  private oldest(queue: StampQueue, live: (key: string, stamp: number) => boolean): string | undefined {
    for (let key = queue.frontKey(); key !== undefined; key = queue.frontKey()) {
      if (live(key, queue.frontStamp())) return key;
      queue.shift();
    }
    return undefined;
  }

  /** Stale entries (forgotten ids, earlier uses) are dropped once they outnumber the live ones: O(1) amortized. */
  private tidy(): void {
    const bound = 2 * this.slots.size + 64;
    if (this.bySight.length > bound) this.bySight.compact(this.sightLive);
    if (this.byUse.length > bound) this.byUse.compact(this.useLive);
  }
}

/** The relay-seen variant: 8192 ids for 600 s, oldest out first. */
export function createRelaySeenCache(options: Omit<DeduplicatorOptions, 'eviction'> = {}): Deduplicator {
  return new Deduplicator({ capacity: RELAY_SEEN_CAPACITY, retentionMs: RELAY_SEEN_RETENTION_MS, ...options, eviction: 'fifo' });
}
