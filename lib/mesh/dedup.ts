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

export class Deduplicator {
  /** id → first-seen time, in first-seen order (so the front is always the next to expire). */
  private readonly seenAt = new Map<string, number>();
  /** ids in least-recently-consulted order (only for `lru`). */
  private readonly recency = new Map<string, true>();
  private readonly capacity: number;
  private readonly retentionMs: number;
  private readonly lru: boolean;
  private readonly now: () => number;
  private readonly tally: DeduplicatorCounters = { duplicates: 0, expired: 0, capacityEvictions: 0 };

  constructor(options: DeduplicatorOptions = {}) {
    this.capacity = positiveIntegerOption(options.capacity, DEDUP_CAPACITY, 'capacity');
    this.retentionMs = nonNegativeOption(options.retentionMs, DEDUP_RETENTION_MS, 'retentionMs');
    this.lru = (options.eviction ?? 'lru') === 'lru';
    this.now = options.now ?? monotonicNow;
  }

  get size(): number {
    return this.seenAt.size;
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
    const key = String(id);
    const at = this.seenAt.get(key);
    if (at === undefined) return false;
    if (this.now() - at >= this.retentionMs) {
      this.remove(key);
      this.tally.expired++;
      return false;
    }
    if (this.lru) {
      this.recency.delete(key);
      this.recency.set(key, true);
    }
    return true;
  }

  /** Record an id; returns false when it was already recorded and unexpired. */
  mark(id: Key): boolean {
    const key = String(id);
    const now = this.now();
    this.expire(now);
    if (this.seenAt.has(key)) return false;
    while (this.seenAt.size >= this.capacity) {
      const victim = this.lru ? (this.recency.keys().next().value as string) : (this.seenAt.keys().next().value as string);
      this.remove(victim);
      this.tally.capacityEvictions++;
    }
    this.seenAt.set(key, now);
    if (this.lru) this.recency.set(key, true);
    return true;
  }

  /** Forget an id so that its next arrival is processed as new (after a security rejection or a deferral). */
  unmark(id: Key): boolean {
    const key = String(id);
    if (!this.seenAt.has(key)) return false;
    this.remove(key);
    return true;
  }

  /** Drop every expired id now (also done on every `mark`); returns how many went. */
  sweep(): number {
    return this.expire(this.now());
  }

  clear(): void {
    this.seenAt.clear();
    this.recency.clear();
  }

  private expire(now: number): number {
    let n = 0;
    for (const [key, at] of this.seenAt) {
      if (now - at < this.retentionMs) break;
      this.remove(key);
      n++;
    }
    this.tally.expired += n;
    return n;
  }

  private remove(key: string): void {
    this.seenAt.delete(key);
    this.recency.delete(key);
  }
}

/** The relay-seen variant: 8192 ids for 600 s, oldest out first. */
export function createRelaySeenCache(options: Omit<DeduplicatorOptions, 'eviction'> = {}): Deduplicator {
  return new Deduplicator({ capacity: RELAY_SEEN_CAPACITY, retentionMs: RELAY_SEEN_RETENTION_MS, ...options, eviction: 'fifo' });
}
