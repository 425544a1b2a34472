/**
 * Frames a peer's full radio queue refused (`QUEUE_FULL`), waiting for room, one lane per peer in the order they
 * were first parked. They are written again when the radio says the queue drained (its `writable` event: as many as
 * it has room for), and later frames to that peer queue behind them rather than overtake; a retried frame refused
 * again goes back to its place. Where the radio says so before the refusal reached us (a write that finished in the
 * same turn), the room is remembered for the lane that parks next. Every `probeMs` a lane is tried whole, for radios
 * that never say so. A frame parked longer than `maxWaitMs` is given up (its sender resends an un-ACKed message; an
 * ACK lost here is what its sender's resend answers).
 *
 * Why not a timer per frame: under an ACK burst thousands of frames wait on one slow link, and timer waves at fixed
 * delays both cost CPU and leave the link idle between waves (issue 26).
 */
import type { Clock, TimerHandle } from '../lib/clock';

export interface ParkedWritesOptions<T extends Parkable> {
  clock: Clock;
  /** Frames parked over all peers before `park` refuses. */
  capacity: number;
  maxWaitMs: number;
  probeMs: number;
  /** Writes a parked item again; it comes back through `park(…, true)` when refused. */
  retry: (key: string, item: T) => void;
  /** Items given up: too old, or their peer went away. */
  giveUp: (key: string, items: T[], why: 'expired' | 'peer_gone') => void;
}

/** What is parked carries when it was first parked, so that going round again does not make it young. */
export interface Parkable {
  parkedAt?: number;
  /** Its place among parked frames, kept when it goes round again. */
  seq?: number;
}

interface Lane<T> {
  frames: T[];
  probe: TimerHandle | undefined;
}

export class ParkedWrites<T extends Parkable> {
  readonly #o: ParkedWritesOptions<T>;
  readonly #lanes = new Map<string, Lane<T>>();
  /** Room a radio reported for a peer with no lane yet. */
  readonly #credit = new Map<string, number>();
  #size = 0;
  #seq = 0;

  constructor(options: ParkedWritesOptions<T>) {
    this.#o = options;
  }

  get size(): number {
    return this.#size;
  }

  /** Frames wait for this peer: a new frame to it must queue behind them. */
  waiting(key: string): boolean {
    return this.#lanes.has(key);
  }

  /** Parks `item` (a retried one back in its place). False when full: the caller drops it. */
  park(key: string, item: T): boolean {
    if (this.#size >= this.#o.capacity) return false;
    let lane = this.#lanes.get(key);
    if (lane === undefined) {
      lane = { frames: [], probe: undefined };
      this.#lanes.set(key, lane);
      const credit = this.#credit.get(key);
      if (credit !== undefined) {
        this.#credit.delete(key);
        // After the refusals of this turn have parked: they go in their order.
        queueMicrotask(() => this.#release(key, credit));
      }
    }
    item.parkedAt ??= this.#o.clock.now();
    if (item.seq === undefined) {
      item.seq = this.#seq++;
      lane.frames.push(item);
    } else {
      let i = 0;
      while (i < lane.frames.length && lane.frames[i]!.seq! < item.seq) i++;
      lane.frames.splice(i, 0, item);
    }
    this.#size += 1;
    this.#armProbe(key, lane);
    return true;
  }

  /**
   * The peer's queue has room for `free` frames: the oldest go again. When more wait than that, one more goes too: its
   * refusal is what makes the radio say so again once the queue drains (a radio reports room once per refusal).
   */
  writable(key: string, free: number): void {
    if (this.#lanes.has(key)) this.#release(key, free + 1);
    else this.#credit.set(key, free + 1);
  }

  /** The peer went away: what waited for it is given up. */
  drop(key: string): void {
    this.#credit.delete(key);
    const lane = this.#lanes.get(key);
    if (lane === undefined) return;
    this.#remove(key, lane);
    this.#o.giveUp(key, lane.frames, 'peer_gone');
  }

  clear(): void {
    for (const lane of this.#lanes.values()) this.#o.clock.clearTimeout(lane.probe);
    this.#lanes.clear();
    this.#credit.clear();
    this.#size = 0;
  }

  #release(key: string, count: number): void {
    const lane = this.#lanes.get(key);
    if (lane === undefined) return;
    const now = this.#o.clock.now();
    const expired: T[] = [];
    while (lane.frames.length > 0 && now - lane.frames[0]!.parkedAt! > this.#o.maxWaitMs) expired.push(lane.frames.shift()!);
    const take = lane.frames.splice(0, Math.max(0, count));
    this.#size -= expired.length + take.length;
    // Emptied first: a retry refused again parks a fresh lane with its own probe.
    if (lane.frames.length === 0) this.#remove(key, lane);
    if (expired.length > 0) this.#o.giveUp(key, expired, 'expired');
    for (const item of take) this.#o.retry(key, item);
  }

  #armProbe(key: string, lane: Lane<T>): void {
    if (lane.probe !== undefined) return;
    lane.probe = this.#o.clock.setTimeout(() => {
      lane.probe = undefined;
      if (this.#lanes.get(key) !== lane) return;
      this.#release(key, lane.frames.length);
      if (this.#lanes.get(key) === lane) this.#armProbe(key, lane);
    }, this.#o.probeMs);
  }

  #remove(key: string, lane: Lane<T>): void {
    this.#o.clock.clearTimeout(lane.probe);
    lane.probe = undefined;
    if (this.#lanes.get(key) === lane) {
      this.#lanes.delete(key);
      this.#size -= lane.frames.length;
    }
  }
}
