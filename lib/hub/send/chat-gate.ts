/**
 * The per-chat send gate of guide §14.3: after `chat_not_found` or `not_member`, further sends to that chat are
 * refused locally for a bounded window (600 s by default), because a conversation id can become valid again. The
 * gate opens early on any sign of life from the chat (see receive-pipeline.ts). Exempt chats (an agent's owner
 * conversation) are never gated.
 */
import type { Clock } from '../../clock';

const MAX_GATED_CHATS = 10_000;

export class ChatGate {
  private readonly until = new Map<string, number>();
  private readonly exempt: Set<string>;

  constructor(
    private readonly clock: Clock,
    private readonly windowMs: number,
    exempt: Iterable<string> = [],
  ) {
    this.exempt = new Set(exempt);
  }

  /** Closes the gate for `chatId`; returns when it reopens, or undefined for an exempt chat or a zero window. */
  close(chatId: string): number | undefined {
    if (this.exempt.has(chatId) || this.windowMs <= 0) return undefined;
    const at = this.clock.now() + this.windowMs;
    this.until.delete(chatId);
    this.until.set(chatId, at);
    if (this.until.size > MAX_GATED_CHATS) this.until.delete(this.until.keys().next().value as string);
    return at;
  }

  /** When the gate for `chatId` reopens, or undefined if it is open. */
  closedUntil(chatId: string): number | undefined {
    const at = this.until.get(chatId);
    if (at === undefined) return undefined;
    if (at <= this.clock.now()) {
      this.until.delete(chatId);
      return undefined;
    }
    return at;
  }

  /** Opens the gate for `chatId`; true if it was closed. */
  open(chatId: string): boolean {
    return this.until.delete(chatId);
  }

  openAll(): number {
    const n = this.until.size;
    this.until.clear();
    return n;
  }

  /** The chats currently gated, with the time each reopens. */
  snapshot(): Record<string, number> {
    const now = this.clock.now();
    const out: Record<string, number> = {};
    for (const [chat, at] of this.until) if (at > now) out[chat] = at;
    return out;
  }
}
