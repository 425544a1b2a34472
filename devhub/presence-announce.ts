/** Presence transitions pushed to watchers (the presence book itself: presence.ts). */
import type { HubContext } from './context';
import { PROTOCOL_VERSION } from './envelope';

/** Pushes a `presence.update` to every connection watching `userId` (a transition: first device up, last device down). */
export function announcePresence(ctx: HubContext, userId: string, online: boolean): void {
  ctx.presence.markSeen(userId, ctx.now());
  const watchers = ctx.presence.watchersOf(userId);
  if (watchers.length === 0) return;
  const text = JSON.stringify({
    version: PROTOCOL_VERSION,
    event: 'presence.update',
    trace_id: `presence-${ctx.ids.ulid()}`,
    emitted_at: ctx.now(),
    payload: ctx.presence.payload(userId, online),
  });
  for (const session of watchers) session.sendReply(text, ctx.settings.send_buffer_max_bytes);
}
