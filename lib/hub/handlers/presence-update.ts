/** `presence.update`: a live online/offline transition of a watched user (guide §9.2). */
import type { FrameContext } from './context';
import { emitPresence } from './presence';

export function handlePresenceUpdate(ctx: FrameContext): void {
  emitPresence(ctx);
}
