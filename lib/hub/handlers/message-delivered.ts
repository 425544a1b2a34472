/** `message.delivered` downlink (guide §14.4): a device of `sender.id` received one of our messages. Ephemeral. */
import { num, str } from '../json';
import type { FrameContext } from './context';

export function handleMessageDelivered(ctx: FrameContext): void {
  const { frame } = ctx;
  const messageId = str(frame.payload.message_id);
  if (!messageId) return;
  ctx.emit('delivered', { messageId, chatId: frame.chatId, byUserId: frame.sender?.id, deliveredAt: num(frame.payload.delivered_at) });
}
