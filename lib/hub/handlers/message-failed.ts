/** `message.failed`: a stream is abandoned; no merged reply will follow (guide §8.3, §14.2). */
import type { FrameContext } from './context';
import { emitStream, streamFrame } from './stream-frames';

export function handleMessageFailed(ctx: FrameContext): void {
  const f = streamFrame(ctx);
  if (f) emitStream(ctx, ctx.services.streams.end(f, 'failed'));
}
