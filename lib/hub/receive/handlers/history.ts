/** Device history: `history.transit` from a sibling device, and `history.truncated`. */
import { id, isObject, num, str } from '../../json';
import type { FrameContext } from './context';

/**
 * `history.transit` downlink (guide §11.4): sibling-device history, routed by the sender's own user id. On v2 the
 * hub deletes its copy when our ack arrives (§11.7), so the frame is copied to a durable queue first; the ack
 * follows the commit. The copy stays until the application releases it.
 */
export function handleHistoryTransit(ctx: FrameContext): void {
  const { frame, services } = ctx;
  if (frame.targetDeviceId !== undefined && frame.targetDeviceId !== ctx.deviceId) return;
  const ciphertext = Array.isArray(frame.envelope.ciphertext_fragments) ? (frame.envelope.ciphertext_fragments as unknown[]) : undefined;
  const record = {
    senderId: frame.sender?.id,
    originDeviceId: id(frame.envelope.origin_device_id),
    targetDeviceId: frame.targetDeviceId,
    kind: str(frame.payload.kind),
    payload: isObject(frame.envelope.payload) ? frame.payload : {},
    ciphertextFragments: ciphertext,
    receivedAt: ctx.now,
  };
  const localId = services.history.push(JSON.stringify(record), ctx.now);
  ctx.emit('history-transit', {
    localId,
    senderId: record.senderId,
    originDeviceId: record.originDeviceId,
    targetDeviceId: record.targetDeviceId,
    kind: record.kind,
    payload: record.payload,
    ciphertextFragments: ciphertext,
    replay: ctx.replay,
  });
}

/** `history.truncated` (guide §11.7): the inbox was pruned past our cursor; show "earlier messages unavailable". */
export function handleHistoryTruncated(ctx: FrameContext): void {
  ctx.emit('history-truncated', { oldestSeq: num(ctx.frame.payload.oldest_seq), payload: ctx.frame.payload });
}
