/** Real mesh frames for radio tests, built with lib/mesh: a radio carries bytes, and these are the bytes it will carry. */
import { encodeFrame, type FrameFormat } from '../../../../lib/mesh/frame';
import { createMessage, type MeshMessage } from '../../../../lib/mesh/message';
import { MessageId } from '../../../../lib/mesh/message-id';

export function textMessage(text: string, fields: { sender?: string; recipient?: string; requiresAck?: boolean } = {}): MeshMessage {
  return createMessage({
    id: MessageId.random(),
    sender: fields.sender ?? 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf',
    recipient: fields.recipient ?? 'off1q8llllllllllllllllllllllllllllllluvweh4p',
    app_id: 'radio-test',
    priority: 'medium',
    ttl: 8,
    hop_count: 0,
    timestamp: 1_700_000_000_000n,
    content: text,
    requires_ack: fields.requiresAck ?? false,
  });
}

export function frameOf(text: string, format: FrameFormat = 'json'): Uint8Array {
  return encodeFrame(textMessage(text), format);
}

/** A frame of about `bytes` bytes (JSON floor), large enough to need many BLE fragments. */
export function bigFrame(bytes: number): Uint8Array {
  return encodeFrame(textMessage('x'.repeat(Math.max(0, bytes - 300))), 'json');
}

export const hexOf = (b: Uint8Array): string => Buffer.from(b).toString('hex');
