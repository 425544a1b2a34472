/**
 * Any event this client does not know (guide §6: tolerate, do not error, do not close). If it carries a `dseq` it
 * is still acked: the receive path does that for every dseq-bearing frame, whatever its name (§11.7).
 */
import { id } from '../json';
import type { FrameContext } from './context';

export function handleUnknown(ctx: FrameContext): void {
  const { frame } = ctx;
  ctx.emit('unknown', {
    event: frame.event,
    chatId: frame.chatId,
    messageId: id(frame.payload.message_id),
    payload: frame.payload,
    envelope: frame.envelope,
    seq: frame.seq,
    dseq: frame.dseq,
    replay: ctx.replay,
  });
}
