/** `message.reply` downlink: a materialized message with a reply context (see materialized.ts). */
import type { FrameContext } from './context';
import { handleMaterialized } from './materialized';

export function handleMessageReply(ctx: FrameContext): void {
  handleMaterialized(ctx, 'message.reply');
}
