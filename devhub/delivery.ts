/**
 * The delivery pump: the one path from a user's inbox to one of their connections. Device replay and live delivery
 * are the same walk in storage-seq order from the device cursor (guide §11); replay is simply the part of the walk
 * before the inbox first drains, which ends with `replay.done` (§11.5). Walking one ordered log makes the replay/live
 * seam monotonic by construction.
 *
 * Per row the pump decides: skip (self-echo, another device's transit, a capability-filtered signal) or deliver with
 * the connection's stamps — `seq` when v1 is honoured, `dseq` on the ackable events when v2 was granted (§11.7).
 * How the cursor then advances depends on the generation: on socket write (legacy), on `message.cursor_ack` (v1,
 * reliability-v1.ts) or on `message.sync_ack` (v2, reliability-v2.ts).
 */
import type { HubContext } from './context';
import { PROTOCOL_VERSION } from './envelope';
import { stampRow, type InboxRow } from './inbox';
import { kick } from './kick-close';
import type { Session } from './session';

/** The downlink events that carry a `dseq` (§11.7); `sync.mark` and `replay.done` are stamped where they are built. */
const DSEQ_EVENTS = new Set(['message.send', 'message.reply', 'history.transit', 'notify.signal']);

/** Rows walked before the pump yields to the event loop. */
const PUMP_SLICE = 512;

export function schedulePump(ctx: HubContext, session: Session): void {
  if (session.pumpScheduled || !session.authenticated) return;
  session.pumpScheduled = true;
  setImmediate(() => {
    session.pumpScheduled = false;
    pump(ctx, session);
  });
}

function deliverable(session: Session): boolean {
  return session.authenticated && session.ws.readyState === session.ws.OPEN;
}

function pump(ctx: HubContext, session: Session): void {
  if (!deliverable(session) || session.pumping || session.waitingDrain) return;
  const user = session.user!.id;
  session.pumping = true;
  try {
    for (let slice = PUMP_SLICE; ; slice--) {
      if (!deliverable(session)) return;
      if (session.phase === 'replaying' && session.v2 && session.unacked >= ctx.settings.replay_throttle) {
        // Replay throttles itself below the kick depth and resumes on the next sync_ack.
        session.throttled = true;
        return;
      }
      if (session.congested(ctx.settings.send_buffer_max_bytes)) {
        waitForDrain(ctx, session);
        return;
      }
      if (slice === 0) {
        schedulePump(ctx, session);
        return;
      }
      const row = ctx.inbox.next(user, session.pos);
      if (!row) break;
      session.pos = row.seq;
      if (!deliverRow(ctx, session, row)) skipRow(ctx, session, row);
    }
    if (session.phase === 'replaying') finishReplay(ctx, session);
    else if (session.v2 && session.pos > session.v2.covered) sendSyncMark(ctx, session);
  } finally {
    session.pumping = false;
  }
}

function waitForDrain(ctx: HubContext, session: Session): void {
  session.waitingDrain = true;
  session.socket.once('drain', () => {
    session.waitingDrain = false;
    schedulePump(ctx, session);
  });
}

type Skip = 'self' | 'other-device' | 'capability' | 'deferred' | 'seen-live' | undefined;

function skipReason(session: Session, row: InboxRow): Skip {
  if (row.origin_device_id === session.deviceId && row.origin_user_id === session.user!.id) return 'self';
  if (row.target_device_id !== undefined && row.target_device_id !== session.deviceId) return 'other-device';
  if (row.live_skip?.has(session.id)) return 'seen-live';
  if (row.kind === 'notify' && !session.has('notify_signals')) {
    // §9.4: on v2 the capability gates replay too; on v1/legacy only the live frame, the next replay still hands it over.
    if (session.v2) return 'capability';
    if (session.phase === 'live') return 'deferred';
  }
  return undefined;
}

/** Writes the row if this connection should get it; false when it is skipped. */
function deliverRow(ctx: HubContext, session: Session, row: InboxRow): boolean {
  const skip = skipReason(session, row);
  if (skip === 'deferred') ctx.deferredNotify.add(session.user!.id, session.deviceId, row.message_id);
  if (skip !== undefined) return false;
  writeRow(ctx, session, row);
  return true;
}

function writeRow(ctx: HubContext, session: Session, row: InboxRow): void {
  const user = session.user!.id;
  const dseq = session.v2 && DSEQ_EVENTS.has(row.event) ? stampDseq(ctx, session, session.pos, row.kind === 'transit' ? row : undefined) : undefined;
  const text = stampRow(row, session.v1 ? row.seq : undefined, dseq);
  session.sentSeq = Math.max(session.sentSeq, row.seq);
  const legacy = !session.v1 && !session.v2;
  if (legacy) session.pendingWrites++;
  session.write(text, (ok) => {
    if (legacy) {
      session.pendingWrites--;
      if (!ok) session.writeFailed = true;
      if (session.writeFailed) return;
      ctx.inbox.advanceCursor(user, session.deviceId, row.seq);
      if (session.pendingWrites === 0 && session.skipAdvance > 0) {
        ctx.inbox.advanceCursor(user, session.deviceId, session.skipAdvance);
        session.skipAdvance = 0;
      }
    }
    // §11.4: a transit row is deleted once delivered to its target; on v2 only once its dseq is acked.
    if (ok && row.kind === 'transit' && !session.v2) ctx.inbox.delete(user, row);
  });
  if (dseq !== undefined) checkWindow(ctx, session);
}

function skipRow(ctx: HubContext, session: Session, row: InboxRow): void {
  if (session.v1 || session.v2) return; // v1 acks cover skipped rows; v2 coverage rides on the next dseq or a sync.mark
  if (session.writeFailed) return;
  if (session.pendingWrites === 0) ctx.inbox.advanceCursor(session.user!.id, session.deviceId, row.seq);
  else session.skipAdvance = Math.max(session.skipAdvance, row.seq);
}

/** Assigns the next dense `dseq` and records what acking it covers. */
export function stampDseq(ctx: HubContext, session: Session, covers: number, transit?: InboxRow): number {
  const v2 = session.v2!;
  if (v2.skip > 0) {
    v2.next += v2.skip;
    v2.skip = 0;
  }
  const dseq = v2.next++;
  v2.ledger.push({ dseq, covers, sent_at: ctx.now(), transit });
  v2.covered = Math.max(v2.covered, covers);
  return dseq;
}

/** §11.7: a live connection whose unacked window exceeds the limit is kicked at once. */
function checkWindow(ctx: HubContext, session: Session): void {
  if (session.phase === 'live' && session.unacked > ctx.settings.unacked_window_max) kick(ctx, session, 'unacked_window');
}

function sendSyncMark(ctx: HubContext, session: Session): void {
  const dseq = stampDseq(ctx, session, session.pos);
  // The guide's example carries no trace_id on sync.mark; the frame is reproduced as shown.
  session.write(JSON.stringify({ version: PROTOCOL_VERSION, event: 'sync.mark', dseq, emitted_at: ctx.now(), payload: { covers_seq: session.pos } }));
  checkWindow(ctx, session);
}

/** Writes a frame that carries a `dseq` on v2 connections (used for injected frames); returns false if closed. */
export function writeWithDseq(ctx: HubContext, session: Session, frame: Record<string, unknown>): boolean {
  if (!deliverable(session)) return false;
  const out = session.v2 ? { ...frame, dseq: stampDseq(ctx, session, session.pos) } : frame;
  const ok = session.write(JSON.stringify(out));
  if (session.v2) checkWindow(ctx, session);
  return ok;
}

/**
 * After `hello-ok`: the optional `history.truncated` (v1), the `message.read` snapshot (multi_device), then the inbox
 * rows from the device cursor, then `replay.done` (§11 "Connect ordering").
 */
export function startReplay(ctx: HubContext, session: Session): void {
  const user = session.user!;
  session.phase = 'replaying';
  const cursor = ctx.inbox.cursor(user.id, session.deviceId);
  session.pos = cursor;
  if (session.v1) {
    const pruned = ctx.inbox.prunedThrough(user.id);
    if (pruned > cursor) {
      const oldest = ctx.inbox.oldestSeq(user.id) ?? ctx.inbox.peekNextSeq();
      session.write(
        JSON.stringify({
          version: PROTOCOL_VERSION,
          event: 'history.truncated',
          trace_id: `trunc-${ctx.ids.ulid()}`,
          emitted_at: ctx.now(),
          payload: { oldest_seq: oldest },
        }),
      );
      // The pruned hole is skipped for good: the cursor jumps over it.
      session.pos = pruned;
      ctx.inbox.advanceCursor(user.id, session.deviceId, pruned);
    }
  }
  if (session.has('multi_device')) {
    const since = ctx.now() - ctx.settings.read_snapshot_max_age_ms;
    for (const [chatId, mark] of ctx.watermarks.recent(user.id, since, ctx.settings.read_snapshot_max_chats)) {
      session.write(
        JSON.stringify({
          version: PROTOCOL_VERSION,
          event: 'message.read',
          trace_id: '',
          emitted_at: mark.last_read_emitted_at,
          chat_id: chatId,
          sender: { id: user.id, type: 'direct', nick_name: user.nick_name },
          payload: { last_read_emitted_at: mark.last_read_emitted_at },
        }),
      );
    }
  }
  session.deferred = ctx.deferredNotify.take(user.id, session.deviceId);
  schedulePump(ctx, session);
}

function finishReplay(ctx: HubContext, session: Session): void {
  const user = session.user!.id;
  for (const id of session.deferred) {
    const row = ctx.inbox.get(user, id);
    // A row past the walk position was (or will be) delivered by the walk itself.
    if (row && row.seq <= session.pos) writeRow(ctx, session, row);
  }
  session.deferred = [];
  if (ctx.faults.takeReplayDoneWithhold(user, session.deviceId)) {
    // The withhold-replay-done fault: no frame and no dseq for it; what the walk skipped is still covered on v2.
    if (session.v2 && session.pos > session.v2.covered) sendSyncMark(ctx, session);
  } else {
    const done: Record<string, unknown> = {
      version: PROTOCOL_VERSION,
      event: 'replay.done',
      trace_id: `rd-${ctx.ids.ulid()}`,
      emitted_at: ctx.now(),
      payload: {},
    };
    if (session.v2) done.dseq = stampDseq(ctx, session, session.pos);
    session.write(JSON.stringify(done));
  }
  session.phase = 'live';
  const queued = session.liveQueue;
  session.liveQueue = [];
  for (const text of queued) session.write(text);
  ctx.events.emit('replay-done', session.info());
}
