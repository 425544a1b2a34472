/**
 * The merge buffer of streaming messages (guide §8.6): per `(chat, producer, message_id)`, the latest cumulative
 * fragments, so that `message.done` can materialize one `message.reply` row. `message.failed` discards it; an
 * abandoned stream expires after `stream_idle_timeout_ms`.
 */
export interface StreamBuffer {
  chat_id: string;
  user_id: string;
  device_id: string;
  message_id: string;
  message_mode: string;
  fragments: Record<string, unknown>[];
  sequence: number;
  last_at: number;
}

function key(chatId: string, userId: string, messageId: string): string {
  return `${chatId}\u0000${userId}\u0000${messageId}`;
}

export class StreamBuffers {
  private readonly buffers = new Map<string, StreamBuffer>();

  /** The buffer of this stream, opened on first sight (an `add` whose `created` was lost still merges). */
  touch(chatId: string, userId: string, deviceId: string, messageId: string, now: number): StreamBuffer {
    const k = key(chatId, userId, messageId);
    let buffer = this.buffers.get(k);
    if (!buffer) {
      buffer = { chat_id: chatId, user_id: userId, device_id: deviceId, message_id: messageId, message_mode: '', fragments: [], sequence: 0, last_at: now };
      this.buffers.set(k, buffer);
    }
    buffer.last_at = now;
    return buffer;
  }

  take(chatId: string, userId: string, messageId: string): StreamBuffer | undefined {
    const k = key(chatId, userId, messageId);
    const buffer = this.buffers.get(k);
    this.buffers.delete(k);
    return buffer;
  }

  expire(now: number, idleMs: number): number {
    let removed = 0;
    for (const [k, buffer] of this.buffers) {
      if (now - buffer.last_at >= idleMs) {
        this.buffers.delete(k);
        removed++;
      }
    }
    return removed;
  }

  get size(): number {
    return this.buffers.size;
  }
}
