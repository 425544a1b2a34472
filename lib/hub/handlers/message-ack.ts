/**
 * `message.ack` (guide §7.2): the hub accepted one of our uplinks. Correlated by `trace_id`, then by
 * `payload.message_id`; after commit the waiter is settled and the outbox row retired (removed with the client's
 * next commit: a removal lost in a crash only repeats a send the hub dedups and acks again, so it does not need a
 * commit of its own, and a batch of acks writes nothing). An ack that matches nothing (a retransmit answered
 * twice) is ignored.
 */
import { num, str } from '../json';
import type { FrameContext } from './context';

export function handleMessageAck(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const messageId = str(frame.payload.message_id);
  const entry = services.outbox.byTrace(frame.traceId) ?? (messageId ? services.outbox.byMessageId(messageId) : undefined);
  if (!entry) return;
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
