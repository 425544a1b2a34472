/**
 * `permission.resolved` (guide §9.5): collapses the card of a non-empty `request_id`. An empty id (the passive
 * policy deny) matches no card and is reported as information only; `decision` may be absent, `reason` is a code.
 */
import { str } from '../json';
import type { FrameContext } from './context';

export function handlePermissionResolved(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const p = frame.payload;
  const requestId = str(p.request_id) ?? '';
  const decision = str(p.decision);
  const reason = str(p.reason);
  ctx.later(() =>
    services.emit('permission', { kind: 'resolved', requestId, chatId: frame.chatId, decision, reason, card: services.permissions.resolve(requestId) }),
  );
}
