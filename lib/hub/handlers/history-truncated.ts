/** `history.truncated` (guide §11.7): the inbox was pruned past our cursor; show "earlier messages unavailable". */
import { num } from '../json';
import type { FrameContext } from './context';

export function handleHistoryTruncated(ctx: FrameContext): void {
  ctx.emit('history-truncated', { oldestSeq: num(ctx.frame.payload.oldest_seq), payload: ctx.frame.payload });
}
