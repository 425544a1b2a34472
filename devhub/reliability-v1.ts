/**
 * v1 reliable delivery (guide §11.7): the device cursor advances only on `message.cursor_ack{seq}`, read as an opaque
 * high-water mark. A malformed ack or a non-positive seq is dropped without a word (§14.5). An ack beyond what this
 * connection has walked is capped there, so a confused client cannot skip rows it never saw.
 */
import type { HubContext } from './context';
import { isObject, type Envelope } from './envelope';
import type { Session } from './session';

export function onCursorAck(ctx: HubContext, session: Session, env: Envelope): void {
  // On a dseq connection message.sync_ack replaces this frame; honouring both would let one skip the other's ledger.
  if (!session.v1 || session.v2) return;
  const payload = env.payload;
  if (!isObject(payload)) return;
  const seq = payload.seq;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq <= 0) return;
  ctx.inbox.advanceCursor(session.user!.id, session.deviceId, Math.min(seq, session.pos));
}
