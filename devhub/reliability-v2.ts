/**
 * v2 reliable delivery (guide §11.7): `message.sync_ack{dseq, epoch}` pops the connection's ledger up to `dseq`,
 * advances the device cursor to the storage seq the popped frames cover, and deletes acked `history.transit` rows.
 * A wrong epoch, a dseq out of range or one already acked is a silent no-op (§14.5).
 *
 * The sweep kicks a connection that holds unacked entries and has not acked for `ack_silence_kick_ms`, unless the
 * per-device kick backoff holds it back (kick.ts).
 */
import type { HubContext } from './context';
import { schedulePump } from './delivery';
import { isObject, type Envelope } from './envelope';
import { kick } from './kick-close';
import type { Session } from './session';

export function onSyncAck(ctx: HubContext, session: Session, env: Envelope): void {
  const v2 = session.v2;
  const payload = env.payload;
  if (!v2 || !isObject(payload)) return;
  const { dseq, epoch } = payload;
  if (epoch !== v2.epoch) return;
  if (typeof dseq !== 'number' || !Number.isSafeInteger(dseq) || dseq < 1 || dseq >= v2.next || dseq <= v2.acked) return;
  const user = session.user!.id;
  v2.acked = dseq;
  v2.last_ack_at = ctx.now();
  ctx.kicks.reset(user, session.deviceId);
  let covers = 0;
  while (v2.head < v2.ledger.length && v2.ledger[v2.head].dseq <= dseq) {
    const entry = v2.ledger[v2.head++];
    covers = Math.max(covers, entry.covers);
    if (entry.transit) ctx.inbox.delete(user, entry.transit);
  }
  if (v2.head > 1024 && v2.head * 2 > v2.ledger.length) {
    v2.ledger = v2.ledger.slice(v2.head);
    v2.head = 0;
  }
  if (covers > 0) ctx.inbox.advanceCursor(user, session.deviceId, covers);
  if (session.throttled) {
    session.throttled = false;
    schedulePump(ctx, session);
  }
}

/** One pass of the ack-silence sweep (run every `ack_sweep_interval_ms`, or on demand from the admin interface). */
export function sweepAckSilence(ctx: HubContext): void {
  const now = ctx.now();
  for (const session of ctx.sessions.authenticated()) {
    const v2 = session.v2;
    if (!v2 || session.unacked === 0) continue;
    // Silence is counted from the later of the last ack and the oldest frame still waiting for one.
    const since = Math.max(v2.last_ack_at, v2.ledger[v2.head].sent_at);
    if (now - since < ctx.settings.ack_silence_kick_ms) continue;
    const user = session.user!.id;
    if (!ctx.kicks.allowed(user, session.deviceId, now)) continue;
    ctx.kicks.note(user, session.deviceId, now);
    kick(ctx, session, 'ack_silence');
  }
}
