/** Shared by the two presence downlinks: `presence.snapshot` and `presence.update` carry the same payload (§9.2). */
import { EVENT } from '../envelope';
import { bool, id, str } from '../json';
import type { FrameContext } from './context';

export function emitPresence(ctx: FrameContext): void {
  const p = ctx.frame.payload;
  const userId = id(p.user_id);
  if (!userId) return;
  ctx.emit('presence', { userId, online: bool(p.online) ?? false, lastSeenAt: str(p.last_seen_at), snapshot: ctx.frame.event === EVENT.presenceSnapshot });
}
