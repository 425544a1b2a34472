/**
 * The streams one hub-out node is producing, so that `stream-append` / `stream-done` messages find their writer.
 * Bounded; a stream nobody appends to for `idleMs` is ended with `message.failed`, because the guide forbids
 * letting one dangle (§8.7). An ended stream is remembered for `idleMs` more, so that a late `message.error`
 * for one of its frames can still be reported against the message that opened it.
 */
import type { StreamWriter } from '../../lib/hub';
import { HubNodeError } from './errors';
import type { StreamRef } from './outbound';

export interface StreamEntry<T> {
  writer: StreamWriter;
  /** What the flow associated with the stream (hub-out keeps the opening msg, for reports). */
  context: T;
  timer: NodeJS.Timeout | undefined;
}

export class OpenStreams<T> {
  private readonly entries = new Map<string, StreamEntry<T>>();

  constructor(
    private readonly limit: number,
    private readonly idleMs: number,
    /** A stream went idle while open; the table has already tried `fail()` on it. */
    private readonly onIdle: (entry: StreamEntry<T>, err: unknown) => void,
  ) {}

  get openCount(): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.writer.phase === 'open') n++;
    return n;
  }

  /** Refuses beyond the limit before anything goes on the wire. */
  checkRoom(): void {
    if (this.openCount >= this.limit) {
      throw new HubNodeError('STREAM_LIMIT', `this node already has ${this.limit} open streams; end one with stream-done or stream-fail`, { limit: this.limit });
    }
  }

  add(writer: StreamWriter, context: T): StreamEntry<T> {
    const entry: StreamEntry<T> = { writer, context, timer: undefined };
    this.entries.set(writer.messageId, entry);
    this.touch(entry);
    return entry;
  }

  /** By id, else the most recently opened stream of the chat that is still open. */
  find(ref: StreamRef): StreamEntry<T> {
    if (ref.streamId !== undefined) {
      const entry = this.entries.get(ref.streamId);
      if (entry && entry.writer.phase === 'open') return entry;
      throw new HubNodeError('STREAM_UNKNOWN', `no open stream ${ref.streamId} on this node`, { streamId: ref.streamId });
    }
    let found: StreamEntry<T> | undefined;
    for (const entry of this.entries.values()) if (entry.writer.phase === 'open' && entry.writer.chatId === ref.chatId) found = entry;
    if (!found) throw new HubNodeError('STREAM_UNKNOWN', `no open stream in chat ${String(ref.chatId)} on this node; set msg.stream_id`, { chatId: ref.chatId });
    return found;
  }

  /** An open or recently ended stream, for matching a refusal. */
  get(streamId: string | undefined): StreamEntry<T> | undefined {
    return streamId === undefined ? undefined : this.entries.get(streamId);
  }

  /** Restarts the idle clock (after every frame, and once more after the end). */
  touch(entry: StreamEntry<T>): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => this.expire(entry), this.idleMs);
    entry.timer.unref();
  }

  /** Ends every open stream (`message.failed`) and forgets them all; for the node's close. */
  failAll(): void {
    for (const entry of this.entries.values()) {
      if (entry.timer) clearTimeout(entry.timer);
      if (entry.writer.phase === 'open') {
        try {
          entry.writer.fail();
        } catch {
          // Not connected: the hub's merge buffer times the stream out on its own.
        }
      }
    }
    this.entries.clear();
  }

  private expire(entry: StreamEntry<T>): void {
    entry.timer = undefined;
    if (entry.writer.phase !== 'open') {
      this.entries.delete(entry.writer.messageId);
      return;
    }
    let error: unknown;
    try {
      entry.writer.fail();
    } catch (err) {
      error = err;
    }
    this.touch(entry);
    this.onIdle(entry, error);
  }
}
