/** `message.created`: a stream opens (guide §8.1). */
import type { FrameContext } from './context';
import { emitStream, streamFrame } from './stream-frames';

export function handleMessageCreated(ctx: FrameContext): void {
  const f = streamFrame(ctx);
  if (f) emitStream(ctx, ctx.services.streams.created(f));
}
