/** `presence.snapshot`: the state of a watched user, in reply to our `presence.subscribe` (guide §9.2). */
import type { FrameContext } from './context';
import { emitPresence } from './presence';

export function handlePresenceSnapshot(ctx: FrameContext): void {
  emitPresence(ctx);
}
