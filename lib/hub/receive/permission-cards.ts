/**
 * Approval cards for `permission.request` / `permission.resolved` (guide §9.5): keyed by `request_id`, collapsed by
 * a resolution with a non-empty `request_id`, and expired locally at `expires_at` when no resolution comes. The
 * decision itself goes back over REST, never over this socket.
 */
import type { Clock, TimerHandle } from '../../clock';
import type { PermissionCard, PermissionEvent } from '../events';

const MAX_CARDS = 1000;

export class PermissionCards {
  private readonly cards = new Map<string, { card: PermissionCard; timer: TimerHandle | undefined }>();

  constructor(
    private readonly clock: Clock,
    private readonly emit: (event: PermissionEvent) => void,
  ) {}

  request(card: PermissionCard): PermissionEvent {
    this.remove(card.requestId);
    let timer: TimerHandle | undefined;
    if (card.expiresAt !== undefined) {
      const delay = card.expiresAt - this.clock.now();
      timer = this.clock.setTimeout(() => {
        if (this.cards.get(card.requestId)?.card !== card) return;
        this.cards.delete(card.requestId);
        this.emit({ kind: 'expired', card });
      }, Math.max(0, delay));
    }
    this.cards.set(card.requestId, { card, timer });
    if (this.cards.size > MAX_CARDS) this.remove(this.cards.keys().next().value as string);
    return { kind: 'request', card };
  }

  /** Collapses the card of `requestId` (an empty id matches no card, §9.5). */
  resolve(requestId: string): PermissionCard | undefined {
    if (requestId === '') return undefined;
    const entry = this.cards.get(requestId);
    this.remove(requestId);
    return entry?.card;
  }

  list(): PermissionCard[] {
    return [...this.cards.values()].map((e) => e.card);
  }

  clear(): void {
    for (const id of [...this.cards.keys()]) this.remove(id);
  }

  private remove(requestId: string): void {
    const entry = this.cards.get(requestId);
    if (!entry) return;
    this.clock.clearTimeout(entry.timer);
    this.cards.delete(requestId);
  }
}
