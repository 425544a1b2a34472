/**
 * Any event this client does not know (guide §6: tolerate, do not error, do not close). If it carries a `dseq` it
 * is still acked: the receive path does that for every dseq-bearing frame, whatever its name (§11.7).
 */
import type { InboundFrame } from '../envelope';
import type { FrameEvent } from '../events';
import { id } from '../json';
import type { FrameContext } from './context';

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
