/**
 * The four streaming lifecycle downlinks (guide §8): flat payloads keyed by one `message_id`, assembled in memory
 * (no persistence: an offline recipient gets one merged `message.reply` through replay instead, §8.6).
 */
import type { StreamEvent } from '../events';
import { HubError } from '../errors';
import { id } from '../json';
import type { StreamFrame } from '../stream-assembler';
import type { FrameContext } from './context';

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
