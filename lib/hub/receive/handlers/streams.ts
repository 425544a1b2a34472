/** The streaming lifecycle downlinks: `message.created`, `message.add`, `message.done`, `message.failed`. */
import type { StreamEvent } from '../../events';
import { HubError } from '../../errors';
import { id } from '../../json';
import type { StreamFrame } from '../stream-assembler';
import type { FrameContext } from './context';

/**
 * The four streaming lifecycle downlinks (guide §8): flat payloads keyed by one `message_id`, assembled in memory
 * (no persistence: an offline recipient gets one merged `message.reply` through replay instead, §8.6).
 */
export function streamFrame(ctx: FrameContext): StreamFrame | undefined {
  const { frame } = ctx;
  if (!frame.payloadValid) throw new HubError('BAD_FRAME', `${frame.event} payload is not an object`);
  const messageId = id(frame.payload.message_id);
  if (!messageId) throw new HubError('BAD_FRAME', `${frame.event} has no payload.message_id`);
  if (ctx.isOwnEcho) return undefined;
  return { messageId, chatId: frame.chatId, sender: frame.sender, originDeviceId: frame.originDeviceId, fromSelf: ctx.fromSelf, payload: frame.payload };
}

/** The stream event, after the cut (if any) that this frame caused: a stream over a memory bound, on `warning`. */
export function emitStream(ctx: FrameContext, event: StreamEvent): void {
  for (const cut of ctx.services.streams.takeCuts()) ctx.emit('warning', cut);
  ctx.emit('stream', event);
}

/** `message.created`: a stream opens (guide §8.1). */
export function handleMessageCreated(ctx: FrameContext): void {
  const f = streamFrame(ctx);
  if (f) emitStream(ctx, ctx.services.streams.created(f));
}

/** `message.add`: one increment of a stream, checked against the delta invariant (guide §8.2). */
export function handleMessageAdd(ctx: FrameContext): void {
  const f = streamFrame(ctx);
  if (f) emitStream(ctx, ctx.services.streams.add(f));
}

/** `message.done`: a stream ends with its final fragments (guide §8.3). */
export function handleMessageDone(ctx: FrameContext): void {
  const f = streamFrame(ctx);
  if (f) emitStream(ctx, ctx.services.streams.end(f, 'done'));
}

/** `message.failed`: a stream is abandoned; no merged reply will follow (guide §8.3, §14.2). */
export function handleMessageFailed(ctx: FrameContext): void {
  const f = streamFrame(ctx);
  if (f) emitStream(ctx, ctx.services.streams.end(f, 'failed'));
}
