/**
 * The gateway attach proof of gateway-daemon v1 (the reference's gateway contract, "Attach"): a device proves it
 * holds the key of the `off1…` address it declares by signing
 *
 *   "offline-gateway-addr-v1" ‖ u32be(len(address_utf8)) ‖ address_utf8 ‖ challenge
 *
 * The address is the only length-prefixed field; the challenge goes in raw. The domain is the relay's layout under a
 * different name so that a proof given to a gateway cannot be replayed at the relay and back. Pure functions: which
 * challenge was minted for which connection, and that none is honoured twice, is the daemon's business.
 */
import { sign, verify } from 'node:crypto';
import { utf8Encode } from '../bytes';
import { deriveAddress, ED25519_PUBLIC_KEY_BYTES } from './address';
import { ED25519_SIGNATURE_BYTES, ed25519PublicKeyFromBytes, type Ed25519PrivateKey, controlIdentityFromPrivateKey } from './control-signature';
import { MeshEncodeError } from './errors';

export const GATEWAY_ADDRESS_PROOF_DOMAIN = 'offline-gateway-addr-v1';
/** The challenge a daemon mints: 32 random bytes. */
export const GATEWAY_CHALLENGE_BYTES = 32;
/** An address longer than this is no `off1` address; refusing it bounds the payload before anything is allocated. */
const MAX_ADDRESS_UTF8_BYTES = 1024;
const MAX_CHALLENGE_BYTES = 1024;

const DOMAIN_BYTES = utf8Encode(GATEWAY_ADDRESS_PROOF_DOMAIN);

/** The canonical bytes under the signature. Lengths are checked first; the result is a fresh array. */
export function gatewayAddressProofPayload(address: string, challenge: Uint8Array): Uint8Array {
  if (typeof address !== 'string') throw new MeshEncodeError('BAD_PROOF_INPUT', 'the address is a string');
  if (!(challenge instanceof Uint8Array) || challenge.length > MAX_CHALLENGE_BYTES) {
    throw new MeshEncodeError('BAD_PROOF_INPUT', `the challenge is at most ${MAX_CHALLENGE_BYTES} bytes`);
  }
  if (Buffer.byteLength(address, 'utf8') > MAX_ADDRESS_UTF8_BYTES) {
    throw new MeshEncodeError('BAD_PROOF_INPUT', `the address is at most ${MAX_ADDRESS_UTF8_BYTES} bytes`);
  }
  const addressBytes = utf8Encode(address);
  const out = new Uint8Array(DOMAIN_BYTES.length + 4 + addressBytes.length + challenge.length);
  out.set(DOMAIN_BYTES, 0);
  new DataView(out.buffer).setUint32(DOMAIN_BYTES.length, addressBytes.length, false);
  out.set(addressBytes, DOMAIN_BYTES.length + 4);
  out.set(challenge, DOMAIN_BYTES.length + 4 + addressBytes.length);
  return out;
}

export interface GatewayAddressProof {
  address: string;
  publicKey: Uint8Array;
  signature: Uint8Array;
}

/** The device's half: its address, public key and the signature over this challenge. */
export function signGatewayAddressProof(privateKey: Ed25519PrivateKey, challenge: Uint8Array): GatewayAddressProof {
  const identity = controlIdentityFromPrivateKey(privateKey);
  const payload = gatewayAddressProofPayload(identity.address, challenge);
  const signature = new Uint8Array(sign(null, payload, identity.privateKey));
  return { address: identity.address, publicKey: identity.publicKey, signature };
}

export type GatewayAddressProofCheck =
  | { ok: true; address: string }
  | { ok: false; code: 'BAD_PUBLIC_KEY' | 'BAD_SIGNATURE' | 'ADDRESS_NOT_OF_KEY' | 'BAD_PROOF_INPUT'; reason: string };

/**
 * The gateway's two checks on the proof itself (the third, the challenge's freshness, is the caller's): the address
 * is the one derived from the key, and the signature verifies over the canonical bytes under that key. Never throws.
 */
export function verifyGatewayAddressProof(proof: GatewayAddressProof, challenge: Uint8Array): GatewayAddressProofCheck {
  const { address, publicKey, signature } = proof;
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== ED25519_PUBLIC_KEY_BYTES) {
    return { ok: false, code: 'BAD_PUBLIC_KEY', reason: `public_key is not ${ED25519_PUBLIC_KEY_BYTES} bytes` };
  }
  if (!(signature instanceof Uint8Array) || signature.length !== ED25519_SIGNATURE_BYTES) {
    return { ok: false, code: 'BAD_SIGNATURE', reason: `signature is not ${ED25519_SIGNATURE_BYTES} bytes` };
  }
  if (deriveAddress(publicKey) !== address) {
    return { ok: false, code: 'ADDRESS_NOT_OF_KEY', reason: 'address is not the one derived from public_key' };
  }
  let payload: Uint8Array;
  try {
    payload = gatewayAddressProofPayload(address, challenge);
  } catch (err) {
    return { ok: false, code: 'BAD_PROOF_INPUT', reason: (err as Error).message };
  }
  let good: boolean;
  try {
    good = verify(null, payload, ed25519PublicKeyFromBytes(publicKey), signature);
  } catch {
    // A 32-byte string that is no curve point: node:crypto refuses to build the key.
    return { ok: false, code: 'BAD_PUBLIC_KEY', reason: 'public_key is not an Ed25519 key' };
  }
  return good ? { ok: true, address } : { ok: false, code: 'BAD_SIGNATURE', reason: 'signature does not verify over the attach proof' };
}
