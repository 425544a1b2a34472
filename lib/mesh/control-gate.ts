/**
 * The control-plane gate (mesh-reference-facts.md §5 "Gate"), in the reference's order:
 *
 *   1. transport identity — with a transport peer id and hop_count 0 the sender must equal it exactly; with hop > 0
 *      the check is skipped (the carrier is not the origin); with none the frame passes unless
 *      `requireTransportIdentity` (default false);
 *   2. unsigned (both metadata keys absent) is rejected, except the relay answers arriving over the internet
 *      transport with no transport peer id;
 *   3. exactly one key present, or base64 that does not decode, is rejected;
 *   4. Ed25519 verification over the canonical control payload;
 *   5. the sender must parse as a canonical address equal to the key's derived address;
 *   6. freshness: a v2 frame's signed timestamp within 30 days back and 48 h ahead of the verifier's clock;
 *   7. the downgrade ratchet: once a sender's `offline-ctrl-v2` signature verified, its v1-signed control frames other
 *      than `__MLS_KEY_PKG__` (which is how a peer that lost its state announces itself again) are refused.
 *
 * Only content under a gated prefix is checked; everything else passes untouched. The transport peer identity is
 * receive context handed in beside the message, never read from it: a value taken from the wire would hand the
 * spoofing check to the spoofer. A rejection is a value with a reason code; the caller must then send no ACK and
 * unmark the message id in its deduplicator (ack.ts `receiveActions` encodes that).
 */
import { parseAddress, deriveAddress } from './address';
import { isGatedControlContent, isRelayAnswerContent } from './control-prefixes';
import { verifyControlSignature } from './control-signature';
import { KEY_PACKAGE_PREFIX } from './key-package';
import type { ControlSigningVersion } from './canonical-payload';
import type { MeshMessage } from './message';
import type { Transport } from './transport';

export interface ControlGateContext {
  /** The physically verified peer that delivered the frame, as the transport authenticated it; absent when unknown. */
  transportPeerId?: string;
  /** The transport the frame arrived on. */
  transport: Transport;
  /** Reject control frames that arrive with no transport peer identity (default false, as in the reference). */
  requireTransportIdentity?: boolean;
  /** Which senders have proven v2; without one, v1 stays accepted from everybody. */
  ratchet?: ControlRatchet;
  /**
   * The verifier's clock (ms since the epoch) and the window a v2-signed timestamp must fall in; absent: no age
   * is judged. Only v2 binds the timestamp, so only v2 frames are judged (a v1 timestamp is the sender's to rewrite).
   */
  freshness?: { now: number; pastMs?: number; futureMs?: number };
}

/** The reference's window for a full node: a frame may be 30 days old (the outbox's 28-day ladder) or 48 h early. */
export const CONTROL_FRESHNESS_PAST_MS = 30 * 24 * 3600 * 1000;
export const CONTROL_FRESHNESS_FUTURE_MS = 48 * 3600 * 1000;

/**
 * The senders whose v2 control signature verified. Its owner keeps it durably (the gateway: in its store), because a
 * restart that forgot it would reopen the downgrade it closes.
 */
export interface ControlRatchet {
  provenV2(address: string): boolean;
  recordV2(address: string): void;
}

/** A ratchet held in memory (tests, tools; a process that keeps no state). */
export class MemoryControlRatchet implements ControlRatchet {
  readonly #proven = new Set<string>();
  provenV2(address: string): boolean {
    return this.#proven.has(address);
  }
  recordV2(address: string): void {
    this.#proven.add(address);
  }
}

export type ControlGateRejection =
  | 'TRANSPORT_IDENTITY_MISMATCH'
  | 'TRANSPORT_IDENTITY_MISSING'
  | 'UNSIGNED_CONTROL'
  | 'PUBLIC_KEY_WITHOUT_SIGNATURE'
  | 'SIGNATURE_WITHOUT_PUBLIC_KEY'
  | 'BAD_SIGNATURE_ENCODING'
  | 'BAD_PUBLIC_KEY_ENCODING'
  | 'BAD_SIGNATURE'
  | 'SENDER_NOT_ADDRESS'
  | 'SENDER_ADDRESS_MISMATCH'
  | 'CONTROL_DOWNGRADE'
  | 'STALE_CONTROL_FRAME';

export type ControlGateResult =
  /** Not control content: the gate does not apply. */
  | { accepted: true; gated: false; signed: false }
  /** Passed; `signed` is false only for an exempt relay answer. */
  | { accepted: true; gated: true; signed: boolean; exemption?: 'relay-answer'; version?: ControlSigningVersion }
  | { accepted: false; gated: true; reason: ControlGateRejection; detail: string };

export function checkControlGate(message: MeshMessage, context: ControlGateContext): ControlGateResult {
  if (!isGatedControlContent(message.content)) return { accepted: true, gated: false, signed: false };

  const peer = context.transportPeerId;
  if (peer !== undefined) {
    if (message.hop_count === 0 && message.sender !== peer) {
      return reject('TRANSPORT_IDENTITY_MISMATCH', 'a direct (hop 0) control frame names a sender other than the peer that delivered it');
    }
  } else if (context.requireTransportIdentity === true) {
    return reject('TRANSPORT_IDENTITY_MISSING', 'control frame arrived without a transport peer identity');
  }

  const check = verifyControlSignature(message);
  if (check.status === 'unsigned') {
    if (context.transport === 'internet' && peer === undefined && isRelayAnswerContent(message.content)) {
      return { accepted: true, gated: true, signed: false, exemption: 'relay-answer' };
    }
    return reject('UNSIGNED_CONTROL', 'control traffic must carry __ctrl_sig and __ctrl_pk');
  }
  if (check.status === 'invalid') return reject(check.reason, check.detail);

  let claimed: string;
  try {
    claimed = parseAddress(message.sender).address;
  } catch {
    return reject('SENDER_NOT_ADDRESS', 'the sender of a signed control frame must be a canonical off1… address');
  }
  if (deriveAddress(check.publicKey) !== claimed) {
    return reject('SENDER_ADDRESS_MISMATCH', 'the signing key does not derive to the claimed sender address');
  }
  const { ratchet, freshness } = context;
  if (freshness !== undefined && check.version === 2) {
    // Judged before the ratchet records anything: a stale frame proves nothing about the sender today.
    const age = freshness.now - Number(message.timestamp);
    if (age > (freshness.pastMs ?? CONTROL_FRESHNESS_PAST_MS) || -age > (freshness.futureMs ?? CONTROL_FRESHNESS_FUTURE_MS)) {
      return reject('STALE_CONTROL_FRAME', `the v2-signed timestamp is ${age >= 0 ? `${Math.round(age / 3600000)} h old` : `${Math.round(-age / 3600000)} h ahead of this clock`}; when many peers are refused so, suspect this clock`);
    }
  }
  if (ratchet !== undefined) {
    if (check.version === 2) {
      if (!ratchet.provenV2(claimed)) ratchet.recordV2(claimed);
    } else if (ratchet.provenV2(claimed) && !message.content.startsWith(KEY_PACKAGE_PREFIX)) {
      return reject('CONTROL_DOWNGRADE', 'this sender has signed with offline-ctrl-v2 before; a v1 control frame from it is refused');
    }
  }
  return { accepted: true, gated: true, signed: true, version: check.version };
}

function reject(reason: ControlGateRejection, detail: string): ControlGateResult {
  return { accepted: false, gated: true, reason, detail };
}
