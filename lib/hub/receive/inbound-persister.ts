/**
 * Inbound persisters: a consumer's own durable write, made part of the store transaction that records a received
 * message in the inbox (the dedup table).
 *
 * Why: the `message` event is emitted after that commit. A consumer that writes its own durable record from the
 * listener (the gateway's to-mesh queue) leaves a window: killed between the commit and its write, it loses the
 * message, since after a restart the hub's replayed copy is a duplicate and is not reported again. A persister
 * runs inside the commit instead, so the inbox row and the consumer's row are on disk together or not at all, and
 * the hub's ack (which follows the commit) never precedes either. It costs no extra commit or fsync.
 *
 * Rules for a persister:
 * - synchronous, and it writes only through `tx.store` (the client's own store: other stores are not part of the
 *   transaction);
 * - in-memory follow-ups (starting work, caches, counters) go to `tx.afterCommit`: they run once the transaction
 *   committed, before the `message` listeners, and never when it rolled back;
 * - a persister that throws makes its frame one that could not be persisted: the frame's savepoint is rolled back
 *   (the inbox row included), the frame is quarantined and acked, and the failure is reported on `warning`
 *   (`FRAME_QUARANTINED`) and `quarantine`, like any frame that cannot be handled (guide §11.7).
 */
import type { InboundMessage } from '../events';
import { HubError } from '../errors';
import type { Store } from '../../store';

export interface InboundPersistContext {
  /** The client's store; writes through it join the transaction of the inbox commit. */
  readonly store: Store;
  /** Runs `fn` once the transaction committed (in order, before the `message` event); dropped on rollback. */
  afterCommit(fn: () => void): void;
}

/**
 * Called for every received message the client is about to report on `message` (same value, `update` included),
 * inside the store transaction that records it. See the module comment for the rules.
 */
export type InboundPersister = (message: InboundMessage, tx: InboundPersistContext) => void;

/** The persisters of one client, in registration order. */
export class InboundPersisters {
  private list: InboundPersister[] = [];

  get size(): number {
    return this.list.length;
  }

  add(persister: InboundPersister): () => void {
    if (typeof persister !== 'function') throw new HubError('BAD_ARGUMENT', 'an inbound persister must be a function');
    // A copy per change, so that one removed while a frame is being handled does not disturb the iteration.
    this.list = [...this.list, persister];
    return () => {
      this.list = this.list.filter((p) => p !== persister);
    };
  }

  /** Runs every persister for `message`; a throw (or a promise returned) propagates and rolls the frame back. */
  run(message: InboundMessage, tx: InboundPersistContext): void {
    for (const persist of this.list) {
      const result: unknown = persist(message, tx);
      if (result !== undefined && typeof (result as { then?: unknown })?.then === 'function') {
        throw new HubError('BAD_ARGUMENT', 'an inbound persister must be synchronous (it returned a promise): its writes would miss the transaction');
      }
    }
  }
}
