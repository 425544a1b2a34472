/**
 * Domain-separated signing payloads (mesh-reference-facts.md §5 "Signed payload", §8 `canonical_payload`).
 *
 *   payload = domain ‖ Σ (u32be(byte length) ‖ field bytes)
 *
 * The domain is written bare (no length prefix); every field is length-prefixed so that two different field splits
 * can never serialize to the same bytes. The domains in use are mutually non-prefixing, which is what stops a
 * signature issued under one from verifying under another.
 */
import { concatBytes, utf8Encode } from '../bytes';
import { MeshEncodeError } from './errors';
import type { MeshMessage } from './message';

export const SIGNING_DOMAINS = Object.freeze({
  /** Control messages: sender, id, recipient, content. */
  control: 'offline-ctrl-v1',
  /** Control messages bound to when they were made: the v1 fields plus the timestamp (i64 big-endian). */
  controlV2: 'offline-ctrl-v2',
  discovery: 'offline-disc-v1',
  invite: 'offline-invite-v1',
  relayAddress: 'offline-relay-addr-v1',
  /** Reserved for the gateway's address proof (facts §7), never the relay's. */
  gatewayAddress: 'offline-gateway-addr-v1',
} as const);

export const CONTROL_SIGNING_DOMAIN = SIGNING_DOMAINS.control;
/** Metadata key of the STANDARD padded base64 of the 64-byte Ed25519 signature. */
export const CTRL_SIG_METADATA_KEY = '__ctrl_sig';
/** Metadata key of the STANDARD padded base64 of the signer's 32-byte public key. */
export const CTRL_PK_METADATA_KEY = '__ctrl_pk';

const U32_MAX = 0xffffffff;

/** `domain ‖ Σ(u32be(len) ‖ part)`, strings taken as UTF-8. */
export function canonicalPayload(domain: string | Uint8Array, parts: readonly (string | Uint8Array)[]): Uint8Array {
  const chunks: Uint8Array[] = [typeof domain === 'string' ? utf8Encode(domain) : domain];
  for (const part of parts) {
    const bytes = typeof part === 'string' ? utf8Encode(part) : part;
    if (bytes.length > U32_MAX) {
      throw new MeshEncodeError('FIELD_TOO_LARGE', `a signed field of ${bytes.length} bytes does not fit a u32 length prefix`);
    }
    const prefix = new Uint8Array(4);
    new DataView(prefix.buffer).setUint32(0, bytes.length, false);
    chunks.push(prefix, bytes);
  }
  return concatBytes(chunks);
}

/**
 * The bytes a control message's signature covers: sender, id, recipient, content under `offline-ctrl-v1`. The id is
 * rendered lowercase hyphenated whatever spelling arrived on the wire; metadata, ttl, hop count and timestamps are not
 * signed (relays rewrite them).
 */
export function canonicalControlPayload(message: Pick<MeshMessage, 'sender' | 'id' | 'recipient' | 'content'>): Uint8Array {
  return canonicalPayload(CONTROL_SIGNING_DOMAIN, [message.sender, message.id.toString(), message.recipient, message.content]);
}

/** Which control payload a signature covers: v1 (four fields) or v2 (the same plus the frame's timestamp). */
export type ControlSigningVersion = 1 | 2;

/**
 * The bytes a v2 control signature covers: the v1 fields and the frame's `timestamp` as a length-prefixed field of
 * eight big-endian two's-complement bytes (one encoding per instant), under `offline-ctrl-v2`. A new domain rather
 * than a field appended under v1's, so that a verifier of the other version fails as "not this version".
 */
export function canonicalControlPayloadV2(message: Pick<MeshMessage, 'sender' | 'id' | 'recipient' | 'content' | 'timestamp'>): Uint8Array {
  const stamp = new Uint8Array(8);
  new DataView(stamp.buffer).setBigInt64(0, BigInt.asIntN(64, message.timestamp), false);
  return canonicalPayload(SIGNING_DOMAINS.controlV2, [message.sender, message.id.toString(), message.recipient, message.content, stamp]);
}

/** The payload of either version. */
export function controlPayload(message: Pick<MeshMessage, 'sender' | 'id' | 'recipient' | 'content' | 'timestamp'>, version: ControlSigningVersion): Uint8Array {
  return version === 2 ? canonicalControlPayloadV2(message) : canonicalControlPayload(message);
}
