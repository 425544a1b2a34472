/**
 * The Bluetooth LE identity assertion: what a peripheral serves on its IDENTITY characteristic (the reference's
 * docs/spec/ble-framing.md; vectors in identity-assertion-v1.vectors.json).
 *
 *   public_key(32) ‖ Ed25519 signature(64) ‖ signed_data      — at least 96 bytes; signed_data may be empty
 *
 * The signature is a plain Ed25519 signature over `signed_data` (the peripheral's advertisement data), with no
 * domain. A central accepts the peer only when the signature verifies under the embedded key and that key derives
 * to the address the peer claims (its DEVICE_ID): the address is self-certifying, so no trust store is needed.
 * Lengths are checked before any cryptography runs, and nothing here throws on hostile input: the verdict is a value.
 */
import { sign, verify, type KeyObject } from 'node:crypto';
import { deriveAddress, ED25519_PUBLIC_KEY_BYTES } from './address';
import { controlIdentityFromPrivateKey, ED25519_SIGNATURE_BYTES, ed25519PublicKeyFromBytes, type Ed25519PrivateKey } from './control-signature';

export const IDENTITY_PUBLIC_KEY_BYTES = ED25519_PUBLIC_KEY_BYTES;
export const IDENTITY_SIGNATURE_BYTES = ED25519_SIGNATURE_BYTES;
/** Nothing shorter holds a whole signature; exactly this many is valid (empty signed data). */
export const IDENTITY_MIN_BYTES = IDENTITY_PUBLIC_KEY_BYTES + IDENTITY_SIGNATURE_BYTES;

/** `public_key ‖ sign(signedData) ‖ signedData` for a private key (KeyObject or 32-byte seed); a fresh copy. */
export function buildIdentityAssertion(privateKey: Ed25519PrivateKey, signedData: Uint8Array): Uint8Array {
  const identity = controlIdentityFromPrivateKey(privateKey);
  const signature = sign(null, signedData, identity.privateKey);
  const out = new Uint8Array(IDENTITY_MIN_BYTES + signedData.length);
  out.set(identity.publicKey, 0);
  out.set(signature, IDENTITY_PUBLIC_KEY_BYTES);
  out.set(signedData, IDENTITY_MIN_BYTES);
  return out;
}

export type IdentityAssertionRefusal = 'IDENTITY_TOO_SHORT' | 'IDENTITY_BAD_KEY' | 'IDENTITY_BAD_SIGNATURE' | 'IDENTITY_ADDRESS_MISMATCH';

export type IdentityAssertionCheck =
  | { ok: true; address: string; publicKey: Uint8Array; signedData: Uint8Array }
  | { ok: false; reason: IdentityAssertionRefusal };

/**
 * Verifies an assertion and returns the address its key derives to. With `expectedAddress` (the DEVICE_ID the peer
 * served, compared exactly) a valid assertion for another address is `IDENTITY_ADDRESS_MISMATCH`. The returned
 * key and data are copies, so the caller's buffer may be reused.
 */
export function verifyIdentityAssertion(assertion: Uint8Array, expectedAddress?: string): IdentityAssertionCheck {
  if (!(assertion instanceof Uint8Array) || assertion.length < IDENTITY_MIN_BYTES) return { ok: false, reason: 'IDENTITY_TOO_SHORT' };
  const publicKey = assertion.slice(0, IDENTITY_PUBLIC_KEY_BYTES);
  const signature = assertion.subarray(IDENTITY_PUBLIC_KEY_BYTES, IDENTITY_MIN_BYTES);
  const signedData = assertion.slice(IDENTITY_MIN_BYTES);
  let key: KeyObject;
  try {
    key = ed25519PublicKeyFromBytes(publicKey);
  } catch {
    return { ok: false, reason: 'IDENTITY_BAD_KEY' };
  }
  let valid: boolean;
  try {
    valid = verify(null, signedData, key, signature);
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, reason: 'IDENTITY_BAD_SIGNATURE' };
  const address = deriveAddress(publicKey);
  if (expectedAddress !== undefined && address !== expectedAddress) return { ok: false, reason: 'IDENTITY_ADDRESS_MISMATCH' };
  return { ok: true, address, publicKey, signedData };
}
