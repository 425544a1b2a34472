/** `message.add`: one increment of a stream, checked against the delta invariant (guide §8.2). */
import type { FrameContext } from './context';
import { emitStream, streamFrame } from './stream-frames';

export function handleMessageAdd(ctx: FrameContext): void {
  const f = streamFrame(ctx);
  if (f) emitStream(ctx, ctx.services.streams.add(f));
}
