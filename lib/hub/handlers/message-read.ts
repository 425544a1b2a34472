/**
 * `message.read` downlink (guide §9.7): a read watermark from another device of ours, live or in the connect-time
 * burst (`trace_id: ""`). Applied through a MAX-guarded cursor, so a re-delivered older watermark changes nothing.
 */
import { num } from '../json';
import { readCursorKey, readSentKey } from '../read-cursor';
import type { FrameContext } from './context';

export function handleMessageRead(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const chatId = frame.chatId;
  const at = num(frame.payload.last_read_emitted_at);
  if (!chatId || at === undefined || at <= 0) return;
  // The hub already holds it, so it needs no re-send from us either.
  services.store.kv.setMax(readSentKey(chatId), at);
  if (!services.store.kv.setMax(readCursorKey(chatId), at)) return;
  ctx.emit('read', { chatId, lastReadEmittedAt: at, snapshot: frame.traceId === '' });
}
