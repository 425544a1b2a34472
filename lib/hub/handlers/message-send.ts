/** `message.send` downlink: a materialized message (see materialized.ts). */
import type { FrameContext } from './context';
import { handleMaterialized } from './materialized';

export function handleMessageSend(ctx: FrameContext): void {
  handleMaterialized(ctx, 'message.send');
}
