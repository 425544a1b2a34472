/**
 * When hub-out may call `done()` for a send: once the client reports it `queued`, i.e. durably in the outbox (the
 * client writes every send of one event-loop turn in one transaction, then emits `queued` for each). A refusal
 * before that (bad input at once; a full outbox or a store failure at the commit) arrives as the rejection of the
 * send's promise instead, and the waiter is cancelled.
 *
 * Sends are matched by message id, which hub-out knows before it calls the client (it mints it, or the flow gave
 * it; for a reaction it is the reaction's slot id). Several waiters on one id are served in order.
 */
export class QueuedWaiters {
  private readonly waiting = new Map<string, Array<() => void>>();

  /** Calls `onQueued` when `messageId` is reported queued; returns a function that cancels the wait. */
  wait(messageId: string, onQueued: () => void): () => void {
    const list = this.waiting.get(messageId) ?? [];
    list.push(onQueued);
    this.waiting.set(messageId, list);
    return () => {
      const current = this.waiting.get(messageId);
      if (!current) return;
      const i = current.indexOf(onQueued);
      if (i >= 0) current.splice(i, 1);
      if (current.length === 0) this.waiting.delete(messageId);
    };
  }

  /** From the client's `queued` event. */
  queued(messageId: string): void {
    const list = this.waiting.get(messageId);
    const first = list?.shift();
    if (list && list.length === 0) this.waiting.delete(messageId);
    first?.();
  }

  get size(): number {
    let n = 0;
    for (const list of this.waiting.values()) n += list.length;
    return n;
  }
}
