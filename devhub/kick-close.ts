/**
 * Server-initiated closes. A kick is a close frame with no status (the client sees 1005, §14.1), distinct from the
 * 4001 of a takeover and from the bare TCP drop of a handshake rejection. (Their rate limit: kick.ts.)
 */
import type { HubContext } from './context';
import type { Session } from './session';
import type { KickInfo } from './types';

export function kick(ctx: HubContext, session: Session, reason: KickInfo['reason'], code?: number, text?: string): void {
  if (!session.open) return;
  ctx.events.emit('kick', { connection_id: session.id, user_id: session.user?.id ?? '', device_id: session.deviceId, reason });
  ctx.log('info', 'connection kicked', { connection: session.id, user: session.user?.id, device: session.deviceId, reason });
  if (code === undefined) session.ws.close();
  else session.ws.close(code, text);
}
