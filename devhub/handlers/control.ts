/**
 * The small control uplinks: `ping` (answered with a `pong` echoing `trace_id` and `emitted_at` verbatim, §12),
 * `device.cursor.reset` (cursor to 0, then this connection closes: the close is the ack, §11.6), and the deprecated
 * `offline.ack`, accepted and ignored (§11.3).
 */
import type { HubContext } from '../context';
import { PROTOCOL_VERSION, type Envelope } from '../envelope';
import { kick } from '../kick-close';
import { traceOf } from '../replies';
import type { Session } from '../session';

export function onPing(ctx: HubContext, session: Session, env: Envelope): void {
  const pong: Record<string, unknown> = { version: PROTOCOL_VERSION, event: 'pong', trace_id: traceOf(env) };
  if (env.emitted_at !== undefined) pong.emitted_at = env.emitted_at;
  pong.payload = {};
  session.sendReply(JSON.stringify(pong), ctx.settings.send_buffer_max_bytes);
}

export function onCursorReset(ctx: HubContext, session: Session): void {
  ctx.inbox.resetCursor(session.user!.id, session.deviceId);
  kick(ctx, session, 'cursor_reset');
}

export function onInert(): void {
  // offline.ack: whitelisted and discarded, no error, no log (§11.3).
}
