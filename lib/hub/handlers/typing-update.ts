/** `typing.update` downlink (guide §9.1): a peer's indicator, expired locally if no refresh comes. */
import { bool } from '../json';
import type { FrameContext } from './context';

export function handleTypingUpdate(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const userId = frame.sender?.id;
  if (!frame.chatId || !userId || userId === ctx.userId) return;
  const isTyping = bool(frame.payload.is_typing) ?? false;
  const chatId = frame.chatId;
  ctx.later(() => services.emit('typing', services.typing.update(chatId, userId, isTyping)));
}
