/**
 * Whether the `sender` of a received message is known to be who it claims. The mesh does not authenticate the sender
 * of a data message: any neighbour can write any address there, and a relay can rewrite it. So a sender is verified
 * only when the frame came straight from it — hop 0, delivered by the peer whose transport authenticated that very
 * address (BLE IDENTITY, serial HELLO) — or when its Ed25519 signature passed the control gate.
 *
 * The delivering peer's address is receive context from the transport, never read from the frame: a value taken from
 * the wire would let the spoofer vouch for itself.
 */
import { checkControlGate } from './control-gate';
import type { MeshMessage } from './message';

export interface SenderEvidence {
  /** The verified address of the neighbour that delivered the frame, when its transport authenticated one. */
  peerAddress?: string | undefined;
  /** The message passed the control gate with a valid signature (`ControlGateResult.signed`). */
  signed?: boolean;
}

export function isSenderVerified(message: Pick<MeshMessage, 'sender' | 'hop_count'>, evidence: SenderEvidence): boolean {
  if (evidence.signed === true) return true;
  return message.hop_count === 0 && evidence.peerAddress !== undefined && evidence.peerAddress === message.sender;
}

/**
 * `sender_verified` for a frame a flow received from a neighbour whose address its link authenticated (`peerAddress`;
 * absent or empty when unknown): a signature that passes the control gate proves the sender whatever the hop; a
 * direct frame needs the peer's address.
 */
export function senderVerifiedFromPeer(message: MeshMessage, peerAddress: unknown): boolean {
  const peer = typeof peerAddress === 'string' && peerAddress !== '' ? peerAddress : undefined;
  const gate = checkControlGate(message, { transport: 'ble', ...(peer !== undefined ? { transportPeerId: peer } : {}) });
  return isSenderVerified(message, { peerAddress: peer, signed: gate.accepted && gate.signed });
}
