/** What others did with messages: `message.delivered`, `message.read`, `message.reaction`. */
import { HubError } from '../../errors';
import { recordInbox } from '../inbox-record';
import { bool, id, num, str } from '../../json';
import { readCursorKey, readSentKey } from '../../read-cursor';
import type { FrameContext } from './context';

/** `message.delivered` downlink (guide §14.4): a device of `sender.id` received one of our messages. Ephemeral. */
export function handleMessageDelivered(ctx: FrameContext): void {
  const { frame } = ctx;
  const messageId = str(frame.payload.message_id);
  if (!messageId) return;
  ctx.emit('delivered', { messageId, chatId: frame.chatId, byUserId: frame.sender?.id, deliveredAt: num(frame.payload.delivered_at) });
}

/**
 * `message.read` downlink (guide §9.7): a read watermark from another device of ours, live or in the connect-time
 * burst (`trace_id: ""`). Applied through a MAX-guarded cursor, so a re-delivered older watermark changes nothing.
 */
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

/**
 * `message.reaction` downlink (guide §9.6): a last-write-wins slot `rxn:<target>:<reactor>`, inbox-durable, so it
 * is upserted like a message and reported when new or changed (a different emoji, or `removed` as a tombstone).
 */
export function handleMessageReaction(ctx: FrameContext): void {
  const { frame, services } = ctx;
  if (!frame.payloadValid) throw new HubError('BAD_FRAME', 'message.reaction payload is not an object');
  const p = frame.payload;
  const target = id(p.target_message_id);
  if (!target) throw new HubError('BAD_FRAME', 'message.reaction has no target_message_id');
  if (ctx.isOwnEcho) return;
  const reactor = id(p.reactor_user_id) ?? frame.sender?.id ?? '';
  const slotId = id(p.message_id) ?? `rxn:${target}:${reactor}`;
  const emoji = str(p.emoji) ?? '';
  const removed = bool(p.removed) ?? false;
  const chatId = frame.chatId ?? '';
  const outcome = recordInbox(
    services.store,
    { messageId: slotId, chatId, event: frame.event, senderId: reactor, provisional: false, content: { emoji, removed, target }, body: { target, emoji, removed, reactor } },
    ctx.now,
    services.inboxBodyMaxBytes,
  );
  if (outcome !== 'inserted' && outcome !== 'updated') return;
  ctx.emit('reaction', {
    chatId,
    chatType: frame.chatType,
    slotId,
    targetMessageId: target,
    emoji,
    removed,
    reactorUserId: reactor,
    fromSelf: reactor === ctx.userId,
    replay: ctx.replay,
    update: outcome === 'updated',
  });
}
