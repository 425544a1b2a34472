/** The hub's answers to our durable uplinks: `message.ack` and `message.error`. */
import type { SendAck, SendRejection } from '../../events';
import { num, str } from '../../json';
import type { FrameContext } from './context';

/**
 * `message.ack` (guide §7.2): the hub accepted one of our uplinks. Correlated by `trace_id`, then by
 * `payload.message_id`; after commit the waiter is settled and the outbox row retired (removed with the client's
 * next commit: a removal lost in a crash only repeats a send the hub dedups and acks again, so it does not need a
 * commit of its own, and a batch of acks writes nothing). An ack that matches nothing (a retransmit answered
 * twice) is ignored.
 */
export function handleMessageAck(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const messageId = str(frame.payload.message_id);
  const entry = services.outbox.byTrace(frame.traceId) ?? (messageId ? services.outbox.byMessageId(messageId) : undefined);
  if (!entry) return;
  const ack: SendAck = {
    event: entry.event,
    messageId: messageId ?? entry.messageId,
    traceId: entry.traceId,
    chatId: entry.chatId,
    acceptedAt: num(frame.payload.accepted_at),
    attempts: entry.attempts,
  };
  if (entry.tag !== undefined) ack.tag = entry.tag;
  ctx.later(() => services.sends.acked(entry, ack));
}

/**
 * `message.error` (guide §14.3): the only negative ack, terminal for the uplink whatever its code (unknown codes
 * too; never auto-retried). `chat_not_found` / `not_member` also close the chat's send gate.
 */
const GATING_CODES = new Set(['chat_not_found', 'not_member']);

export function handleMessageError(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const p = frame.payload;
  const messageId = str(p.message_id) || undefined;
  const entry = services.outbox.byTrace(frame.traceId) ?? (messageId ? services.outbox.byMessageId(messageId) : undefined);
  const traced = entry ? undefined : services.traces.take(frame.traceId);
  const code = str(p.code) ?? '';
  const rejection: SendRejection = {
    origin: 'hub',
    event: entry?.event ?? traced?.event ?? '',
    messageId: messageId ?? entry?.messageId ?? traced?.messageId,
    traceId: frame.traceId,
    chatId: frame.chatId ?? entry?.chatId ?? traced?.chatId,
    code,
    reason: str(p.reason),
    rejectedAt: num(p.rejected_at),
    matched: entry !== undefined || traced !== undefined,
    ...(entry?.tag !== undefined ? { tag: entry.tag } : {}),
  };
  if (entry) services.outbox.removeDurable(entry);
  const chatId = rejection.chatId;
  ctx.later(() => {
    if (chatId && GATING_CODES.has(code)) services.gate.close(chatId);
    traced?.onRejected?.(rejection);
    services.sends.rejected(entry, rejection);
  });
}
