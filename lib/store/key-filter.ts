/**
 * A memory filter in front of a bounded seen-set on disk: it answers "never added" without a query, and "maybe"
 * otherwise, in which case the caller asks the table, which stays the only truth. Wrong answers can only be
 * "maybe" for a key that is not there (a false positive, about 1 in 1 000 absent keys, or a key added in a write
 * that rolled back, or one the table has evicted meanwhile): they cost a search, never a wrong "no".
 *
 * Two Bloom filters, each taking `capacity` keys before the older is dropped and a fresh one begins, so that
 * together they always hold at least the last `capacity` keys added, which is all a seen-set of that capacity
 * keeps (it forgets its oldest first). The owner counts what the table really took (`added`): rows it ignored
 * or rolled back must not age the filters, or a key still on disk could fall out of both. Two bytes per key of
 * capacity for each filter: 400 KB for the MQTT outbox's 100 000 ids, where the ids themselves as a JavaScript set
 * would take some 8 MB.
 */

/**
 * Bits per key of capacity and probes per key: a false-positive rate of about 0.05 % with the filter full (a "maybe"
 * costs its owner a search, so it must be rare).
 */
const BITS_PER_KEY = 16;
const PROBES = 11;

class Bloom {
  readonly bits: Uint32Array;
  /** Keys the table took while this filter was the newest. */
  taken = 0;

  constructor(readonly size: number) {
    this.bits = new Uint32Array(Math.ceil(size / 32));
  }
}

export class KeyFilter {
  private readonly size: number;
  private newer: Bloom;
  private older: Bloom | undefined;
  /** The two halves of the last key's hash (`hash` then `probe`, never apart). */
  private h1 = 0;
  private h2 = 0;

  constructor(readonly capacity: number) {
    this.size = Math.max(64, capacity * BITS_PER_KEY);
    this.newer = new Bloom(this.size);
  }

  /** False when `key` was never `add`ed (within the last `capacity` keys taken); true when it may have been. */
  mayHave(key: string): boolean {
    this.hash(key);
    return this.probe(this.newer, false) || (this.older !== undefined && this.probe(this.older, false));
  }

  /** Records `key`; call before the table's write, so that no moment exists when it is on disk and not here. */
  add(key: string): void {
    this.hash(key);
    this.probe(this.newer, true);
  }

  /** The table took `n` new keys (each `add`ed before): past `capacity`, the older filter goes. */
  taken(n: number): void {
    this.newer.taken += n;
    if (this.newer.taken < this.capacity) return;
    this.older = this.newer;
    this.newer = new Bloom(this.size);
  }

  /** Two independent 32-bit FNV-1a style hashes of the UTF-16 units of `key`. */
  private hash(key: string): void {
    let a = 0x811c9dc5;
    let b = 0x01000193 ^ key.length;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    this.h1 = (a ^ (a >>> 13)) >>> 0;
    this.h2 = (b ^ (b >>> 16)) >>> 0;
  }

  /** Tests (or sets) the key's bits: `h1 + i·h2` modulo the size, for each probe. */
  private probe(filter: Bloom, set: boolean): boolean {
    const size = this.size;
    const bits = filter.bits;
    let at = this.h1 % size;
    const step = this.h2 % size || 1;
    for (let i = 0; i < PROBES; i++) {
      const word = at >>> 5;
      const mask = 1 << (at & 31);
      if (set) bits[word]! |= mask;
      else if ((bits[word]! & mask) === 0) return false;
      at += step;
      if (at >= size) at -= size;
    }
    return true;
  }
}
