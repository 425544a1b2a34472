/**
 * Typing is a level, not an edge (guide §9.1): the hub keeps no state and no expiry. So the producer side re-sends
 * `is_typing: true` every `refreshMs` while a turn runs and always ends with `false` (on stop too), and the receiver
 * side clears a peer's indicator `expiryMs` after the last `true`, so a crashed producer cannot pin it.
 */
import type { Clock, TimerHandle } from '../clock';
import type { TypingEvent } from './events';

const MAX_TRACKED = 10_000;

export class TypingReceiver {
  private readonly timers = new Map<string, TimerHandle>();

  constructor(
    private readonly clock: Clock,
    private readonly expiryMs: number,
    private readonly emit: (event: TypingEvent) => void,
  ) {}

  /** Records a `typing.update`; returns the event to emit now. */
  update(chatId: string, userId: string, isTyping: boolean): TypingEvent {
    const key = `${chatId}\u0000${userId}`;
    this.clock.clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    if (isTyping) {
      if (this.timers.size >= MAX_TRACKED) this.drop(this.timers.keys().next().value as string);
      this.timers.set(
        key,
        this.clock.setTimeout(() => {
          this.timers.delete(key);
          this.emit({ chatId, userId, isTyping: false, expired: true });
        }, this.expiryMs),
      );
    }
    return { chatId, userId, isTyping, expired: false };
  }

  /** Peers currently shown as typing, as `[chatId, userId]`. */
  active(): Array<[string, string]> {
    return [...this.timers.keys()].map((k) => k.split('\u0000') as [string, string]);
  }

  clear(): void {
    for (const handle of this.timers.values()) this.clock.clearTimeout(handle);
    this.timers.clear();
  }

  private drop(key: string): void {
    this.clock.clearTimeout(this.timers.get(key));
    this.timers.delete(key);
  }
}

interface ActiveTyping {
  timer: TimerHandle | undefined;
  startedAt: number;
}

export class TypingProducer {
  private readonly active = new Map<string, ActiveTyping>();

  constructor(
    private readonly clock: Clock,
    private readonly refreshMs: number,
    /** Longest a turn may show typing without a new `set(…, true)`; then `false` goes out by itself. */
    private readonly maxMs: number,
    private readonly send: (chatId: string, isTyping: boolean) => void,
  ) {}

  set(chatId: string, isTyping: boolean): void {
    const current = this.active.get(chatId);
    if (!isTyping) {
      if (current) {
        this.clock.clearTimeout(current.timer);
        this.active.delete(chatId);
      }
      this.send(chatId, false);
      return;
    }
    if (current) this.clock.clearTimeout(current.timer);
    const entry: ActiveTyping = { timer: undefined, startedAt: this.clock.now() };
    this.active.set(chatId, entry);
    this.send(chatId, true);
    this.arm(chatId, entry);
  }

  isActive(chatId: string): boolean {
    return this.active.has(chatId);
  }

  /** After a reconnect: the hub forgot nothing (it holds no typing state) but peers may have expired us. */
  resendActive(): void {
    for (const chatId of this.active.keys()) this.send(chatId, true);
  }

  /** Ends every active indicator with `false` (graceful shutdown, §9.1). */
  stopAll(): void {
    for (const chatId of [...this.active.keys()]) this.set(chatId, false);
  }

  private arm(chatId: string, entry: ActiveTyping): void {
    entry.timer = this.clock.setTimeout(() => {
      if (this.active.get(chatId) !== entry) return;
      if (this.clock.now() - entry.startedAt >= this.maxMs) {
        this.set(chatId, false);
        return;
      }
      this.send(chatId, true);
      this.arm(chatId, entry);
    }, this.refreshMs);
  }
}
