/**
 * Ids across the bridge, chosen so that every gateway bridging the same thing computes the same id and the far side's
 * dedup merges them (docs/hub-bridge.md "Ids"):
 *
 * - mesh → hub: `msg-` + the 16 id bytes in Crockford base32. That is exactly the shape the hub contract binds
 *   (`^msg-[0-9A-HJ-NP-Z]{26}$`, guide §7.6): 128 bits are 26 symbols, the first one at most `7`.
 * - hub → mesh: a hub message may go to several recipients, and each must be its own mesh message (the mesh dedups by
 *   id), so the id is the first 16 bytes of SHA-256(hub message id ‖ 0x00 ‖ recipient), marked as a version 8 UUID.
 * - a hub reply to a message that came from the mesh refers to that mesh message: its id is read back from the hub id.
 */
import { createHash } from 'node:crypto';
import { fromCrockfordBase32, toCrockfordBase32 } from '../../../lib/bytes';
import type { MessageIdLike } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';

const HUB_ID = /^msg-([0-9A-HJ-NP-Z]{26})$/;

export function hubMessageIdFor(meshId: MessageIdLike): string {
  return `msg-${toCrockfordBase32(meshId.bytes)}`;
}

/** The mesh id a bridged hub message id was made from; `undefined` when the id is not of that shape. */
export function meshIdFromHubMessageId(hubMessageId: string): MessageId | undefined {
  const m = HUB_ID.exec(hubMessageId);
  if (!m) return undefined;
  const bytes = fromCrockfordBase32(m[1]!, 16);
  return bytes === undefined ? undefined : MessageId.fromBytes(bytes);
}

export function meshIdForHubMessage(hubMessageId: string, recipient: string): MessageId {
  const digest = createHash('sha256').update(hubMessageId, 'utf8').update(Buffer.of(0)).update(recipient, 'utf8').digest();
  const bytes = new Uint8Array(digest.subarray(0, 16));
  // RFC 9562 version 8 (custom) with the standard variant: a well-formed UUID whose bits say how it was made.
  bytes[6] = 0x80 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  return MessageId.fromBytes(bytes);
}

/** A deterministic file id for a hub media fragment sent to one recipient, so a resend continues the same transfer. */
export function fileIdForHubMedia(hubMessageId: string, index: number, recipient: string): string {
  const digest = createHash('sha256').update(`${hubMessageId}\u0000${index}\u0000${recipient}`, 'utf8').digest('hex');
  return `file_${digest.slice(0, 8)}-${digest.slice(8, 12)}-${digest.slice(12, 16)}-${digest.slice(16, 20)}-${digest.slice(20, 32)}`;
}
