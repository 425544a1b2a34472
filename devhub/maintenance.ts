/**
 * Housekeeping that runs on timers: inbox retention by age and count, expiry of abandoned stream buffers, and the hook
 * that wakes a recipient's connections when a row lands in their inbox.
 */
import type { HubContext } from './context';
import { schedulePump } from './delivery';

/** Retention by age and count for every inbox, plus expiry of abandoned stream buffers. */
export function sweepRetention(ctx: HubContext): void {
  const now = ctx.now();
  const retention = ctx.settings.retention;
  for (const user of ctx.inbox.userIds()) {
    ctx.inbox.prune(user, {
      older_than: retention.max_age_ms > 0 ? now - retention.max_age_ms : undefined,
      keep_last: retention.max_rows_per_user > 0 ? retention.max_rows_per_user : undefined,
    });
  }
  ctx.streams.expire(now, ctx.settings.stream_idle_timeout_ms);
}

/** Hooks the inbox to the delivery pump: every new row wakes the recipient's connections. */
export function wakeOnAppend(ctx: HubContext): void {
  ctx.inbox.onAppend((userId) => {
    for (const session of ctx.sessions.ofUser(userId)) schedulePump(ctx, session);
  });
}
