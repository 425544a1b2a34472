/** `replay.done` (guide §11.5): the end of device replay; on v2 it carries a dseq whose ack is flushed at once. */
import type { FrameContext } from './context';

export function handleReplayDone(ctx: FrameContext): void {
  const { services, sessionId } = ctx;
  ctx.later(() => services.replayDone(sessionId));
}
