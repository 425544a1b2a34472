/** `message.done`: a stream ends with its final fragments (guide §8.3). */
import type { FrameContext } from './context';
import { streamFrame } from './stream-frames';

export function handleMessageDone(ctx: FrameContext): void {
  const f = streamFrame(ctx);
  if (f) ctx.emit('stream', ctx.services.streams.end(f, 'done'));
}
