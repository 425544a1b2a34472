/**
 * Which mesh node each bridged hub message came from: a hub reply to it is sent back to that node, and a hub message
 * whose id is here is this bridge's own and never goes back into the mesh. Bounded (oldest forgotten first) and kept
 * in the store so that replies still find their way after a restart. Writes are grouped into one commit every
 * `FLUSH_MS` that does not wait for the disk (a crash or a power cut that loses the last few only sends replies to
 * those messages to the rule's fixed recipient instead of their sender; the bridge's own echoes are still cut, as
 * they come from its own account).
 */
import type { Queue, Store } from '../../../lib/store';
import { backgroundClock, type Clock, type TimerHandle } from '../../../lib/clock';

export const ORIGINS_QUEUE = 'hub-bridge.origins';
const FLUSH_MS = 100;

export interface Origin {
  sender: string;
  appId: string;
}

export class OriginMap {
  private readonly map = new Map<string, Origin>();
  private readonly queue: Queue;
  private batch: Array<[string, Origin]> = [];
  private timer: TimerHandle | undefined;

  constructor(
    private readonly store: Store,
    private readonly capacity: number,
    private readonly clock: Clock = backgroundClock,
  ) {
    this.queue = store.queue(ORIGINS_QUEUE, { capacity, overflow: 'drop-oldest' });
    for (const item of this.queue.peek(capacity)) {
      try {
        const [id, sender, appId] = JSON.parse(String(item.value)) as [string, string, string];
        if (typeof id === 'string' && typeof sender === 'string' && typeof appId === 'string') this.remember(id, { sender, appId });
      } catch {
        // A row from a newer layout: skip it.
      }
    }
  }

  get(hubMessageId: string): Origin | undefined {
    return this.map.get(hubMessageId);
  }

  has(hubMessageId: string): boolean {
    return this.map.has(hubMessageId);
  }

  record(hubMessageId: string, origin: Origin): void {
    if (this.map.get(hubMessageId)?.sender === origin.sender) return;
    this.remember(hubMessageId, origin);
    this.batch.push([hubMessageId, origin]);
    if (this.timer === undefined) {
      this.timer = this.clock.setTimeout(() => this.flush(), FLUSH_MS);
    }
  }

  /** Commits what was recorded (also called on stop). */
  flush(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0 || this.store.closed) return;
    // No fsync of its own (see above): it rides along with the next one another writer waits for.
    this.store.transaction(
      () => {
        for (const [id, o] of batch) this.queue.push(JSON.stringify([id, o.sender, o.appId]));
      },
      { deferSync: true },
    );
  }

  private remember(id: string, origin: Origin): void {
    this.map.delete(id);
    this.map.set(id, origin);
    while (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
  }
}
