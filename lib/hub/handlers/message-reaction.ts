/**
 * `message.reaction` downlink (guide §9.6): a last-write-wins slot `rxn:<target>:<reactor>`, inbox-durable, so it
 * is upserted like a message and reported when new or changed (a different emoji, or `removed` as a tombstone).
 */
import { recordInbox } from '../inbox-record';
import { HubError } from '../errors';
import { bool, id, str } from '../json';
import type { FrameContext } from './context';

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
