/**
 * `message.ack` (guide §7.2): the hub accepted one of our uplinks. Correlated by `trace_id`, then by
 * `payload.message_id`; the outbox row is removed in the same transaction, the waiter is settled after commit.
 * An ack that matches nothing (a retransmit answered twice) is ignored.
 */
import { num, str } from '../json';
import type { FrameContext } from './context';

export function handleMessageAck(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const messageId = str(frame.payload.message_id);
  const entry = services.outbox.byTrace(frame.traceId) ?? (messageId ? services.outbox.byMessageId(messageId) : undefined);
  if (!entry) return;
  services.outbox.removeDurable(entry);
  const ack = {
    event: entry.event,
    messageId: messageId ?? entry.messageId,
    traceId: entry.traceId,
    chatId: entry.chatId,
    acceptedAt: num(frame.payload.accepted_at),
    attempts: entry.attempts,
    ...(entry.tag !== undefined ? { tag: entry.tag } : {}),
  };
  ctx.later(() => services.sends.acked(entry, ack));
}
