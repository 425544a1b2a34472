/** Frames about the session itself: replay's end, sync marks, pongs, deprecated offline frames, and unknown events. */
import type { InboundFrame } from '../../envelope';
import type { FrameEvent } from '../../events';
import { id } from '../../json';
import type { FrameContext } from './context';

/** `replay.done` (guide §11.5): the end of device replay; on v2 it carries a dseq whose ack is flushed at once. */
export function handleReplayDone(ctx: FrameContext): void {
  const { services, sessionId } = ctx;
  ctx.later(() => services.core.bus.emit('replay-done', sessionId));
}

/**
 * `sync.mark` (guide §11.7): skip coverage on v2. Its `dseq` is recorded and acked like any other (that happens for
 * every dseq-bearing frame in the receive path); it is never persisted, `covers_seq` is diagnostic only.
 */
export function handleSyncMark(_ctx: FrameContext): void {
  // Nothing beyond the generic dseq bookkeeping.
}

/**
 * `pong` (guide §12): the answer to our optional JSON `ping`. Any frame already proves the socket alive (the read
 * layer records its time), so there is nothing more to do; the server never pings, so there is no ping handler.
 */
export function handlePong(_ctx: FrameContext): void {
  // Liveness is recorded for every frame at the read layer.
}

/**
 * `offline.batch` / `offline.done` (guide §11.3): deprecated, never emitted by a current hub; a conformant client
 * implements none of the offline handshake. Received anyway, they are tolerated and reported as frames only.
 */
export function handleDeprecatedOffline(_ctx: FrameContext): void {
  // Deliberately nothing: implementing offline.ack would be the deprecated protocol.
}

/**
 * Any event this client does not know (guide §6: tolerate, do not error, do not close). If it carries a `dseq` it
 * is still acked: the receive path does that for every dseq-bearing frame, whatever its name (§11.7).
 */

/** A received frame as the `frame` and `unknown` events show it. */
export function frameEvent(frame: InboundFrame, replay: boolean): FrameEvent {
  return {
    event: frame.event,
    chatId: frame.chatId,
    messageId: id(frame.payload.message_id),
    payload: frame.payload,
    envelope: frame.envelope,
    seq: frame.seq,
    dseq: frame.dseq,
    replay,
  };
}

export function handleUnknown(ctx: FrameContext): void {
  ctx.emit('unknown', frameEvent(ctx.frame, ctx.replay));
}
