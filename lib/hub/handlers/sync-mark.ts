/**
 * `sync.mark` (guide §11.7): skip coverage on v2. Its `dseq` is recorded and acked like any other (that happens for
 * every dseq-bearing frame in the receive path); it is never persisted, `covers_seq` is diagnostic only.
 */
import type { FrameContext } from './context';

export function handleSyncMark(_ctx: FrameContext): void {
  // Nothing beyond the generic dseq bookkeeping.
}
