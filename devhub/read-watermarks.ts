/**
 * Read cursors (guide §9.7): per user and chat, the `emitted_at` up to which the chat is read, MAX-guarded, with the
 * time it was last moved (the connect-time snapshot covers the last 30 days of those, newest first, at most 500).
 */
export interface Watermark {
  last_read_emitted_at: number;
  updated_at: number;
}

export class ReadWatermarks {
  private readonly byUser = new Map<string, Map<string, Watermark>>();
  revision = 0;

  /** Stores the watermark if it moves forward; returns whether it did. */
  set(userId: string, chatId: string, lastRead: number, now: number): boolean {
    let chats = this.byUser.get(userId);
    if (!chats) {
      chats = new Map();
      this.byUser.set(userId, chats);
    }
    const current = chats.get(chatId);
    if (current && current.last_read_emitted_at >= lastRead) return false;
    chats.set(chatId, { last_read_emitted_at: lastRead, updated_at: now });
    this.revision++;
    return true;
  }

  /** The connect-time snapshot: watermarks moved since `since`, most recent first, at most `limit`. */
  recent(userId: string, since: number, limit: number): Array<[string, Watermark]> {
    const chats = this.byUser.get(userId);
    if (!chats) return [];
    return [...chats.entries()]
      .filter(([, w]) => w.updated_at >= since)
      .sort((a, b) => b[1].updated_at - a[1].updated_at)
      .slice(0, limit);
  }

  of(userId: string): Record<string, number> {
    return Object.fromEntries([...(this.byUser.get(userId) ?? [])].map(([chat, w]) => [chat, w.last_read_emitted_at]));
  }

  snapshot(): Record<string, Record<string, Watermark>> {
    const out: Record<string, Record<string, Watermark>> = {};
    for (const [user, chats] of this.byUser) out[user] = Object.fromEntries(chats);
    return out;
  }

  restore(saved: Record<string, Record<string, Watermark>>): void {
    for (const [user, chats] of Object.entries(saved)) {
      for (const [chat, w] of Object.entries(chats)) this.set(user, chat, w.last_read_emitted_at, w.updated_at);
    }
  }
}
