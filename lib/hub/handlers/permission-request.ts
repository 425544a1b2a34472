/** `permission.request` (guide §9.5): an approval card keyed by `request_id`, expired locally at `expires_at`. */
import { id, isObject, num, str } from '../json';
import type { FrameContext } from './context';

export function handlePermissionRequest(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const p = frame.payload;
  const requestId = id(p.request_id);
  if (!requestId) return;
  const card = {
    requestId,
    chatId: frame.chatId,
    agentId: str(p.agent_id),
    operation: str(p.operation),
    target: isObject(p.target) ? p.target : undefined,
    expiresAt: num(p.expires_at),
    receivedAt: ctx.now,
  };
  ctx.later(() => services.emit('permission', services.permissions.request(card)));
}
