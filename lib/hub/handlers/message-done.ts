/** `message.done`: a stream ends with its final fragments (guide §8.3). */
import type { FrameContext } from './context';
import { emitStream, streamFrame } from './stream-frames';

export function handleMessageDone(ctx: FrameContext): void {
  const f = streamFrame(ctx);
  if (f) emitStream(ctx, ctx.services.streams.end(f, 'done'));
}
