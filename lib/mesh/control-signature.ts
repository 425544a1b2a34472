/**
 * Ed25519 signatures on control messages (mesh-reference-facts.md §5; the reference's docs/spec/control-messages.md
 * for v2), through `node:crypto`.
 *
 * The signer writes two metadata keys, `__ctrl_sig` (base64 of the 64-byte signature over the canonical control
 * payload) and `__ctrl_pk` (base64 of its 32-byte public key). Nothing else of the message changes, and both are
 * reserved keys that only this module writes. Keys and signatures never appear in an error's message or details.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject, sign, verify } from 'node:crypto';
import { fromBase64Canonical, toBase64 } from '../bytes';
import { deriveAddress, ED25519_PUBLIC_KEY_BYTES } from './address';
import { controlPayload, CTRL_PK_METADATA_KEY, CTRL_SIG_METADATA_KEY, type ControlSigningVersion } from './canonical-payload';
import { MeshEncodeError } from './errors';
import type { MeshMessage } from './message';

export const ED25519_SIGNATURE_BYTES = 64;

/** A `node:crypto` Ed25519 private key, or its 32-byte seed. */
export type Ed25519PrivateKey = KeyObject | Uint8Array;

// The PKCS#8 DER header that wraps a raw 32-byte Ed25519 seed (RFC 8410).
const PKCS8_ED25519_PREFIX = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);

export interface ControlIdentity {
  privateKey: KeyObject;
  publicKey: Uint8Array;
  /** The `off1…` address this key signs for. */
  address: string;
}

/** A fresh signing identity: key pair and the address it derives to. */
export function generateControlIdentity(): ControlIdentity {
  const { privateKey } = generateKeyPairSync('ed25519');
  return identityOf(privateKey);
}

/** The identity of an existing private key (KeyObject or 32-byte seed). */
export function controlIdentityFromPrivateKey(privateKey: Ed25519PrivateKey): ControlIdentity {
  return identityOf(toPrivateKeyObject(privateKey));
}

function identityOf(privateKey: KeyObject): ControlIdentity {
  const publicKey = ed25519PublicKeyBytes(createPublicKey(privateKey));
  return { privateKey, publicKey, address: deriveAddress(publicKey) };
}

// Keys cross the KeyObject boundary as JWK (RFC 8037 `OKP`/`Ed25519`): an order of magnitude cheaper in Node
// than building and parsing SPKI DER, and the `x` member is exactly the raw 32-byte key.

/** The raw 32 bytes of an Ed25519 public key object. */
export function ed25519PublicKeyBytes(key: KeyObject): Uint8Array {
  const jwk = key.export({ format: 'jwk' });
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') {
    throw new MeshEncodeError('BAD_PUBLIC_KEY', 'not an Ed25519 public key');
  }
  return new Uint8Array(Buffer.from(jwk.x, 'base64url'));
}

/** A public key object from 32 raw bytes; throws on any other length. */
export function ed25519PublicKeyFromBytes(raw: Uint8Array): KeyObject {
  if (raw.length !== ED25519_PUBLIC_KEY_BYTES) throw new MeshEncodeError('BAD_PUBLIC_KEY', `an Ed25519 public key is ${ED25519_PUBLIC_KEY_BYTES} bytes`);
  const x = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

function toPrivateKeyObject(key: Ed25519PrivateKey): KeyObject {
  if (key instanceof KeyObject) {
    if (key.type !== 'private' || key.asymmetricKeyType !== 'ed25519') {
      throw new MeshEncodeError('BAD_PRIVATE_KEY', 'the signing key must be an Ed25519 private key');
    }
    return key;
  }
  if (key instanceof Uint8Array && key.length === 32) {
    return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, key]), format: 'der', type: 'pkcs8' });
  }
  throw new MeshEncodeError('BAD_PRIVATE_KEY', 'the signing key must be an Ed25519 KeyObject or a 32-byte seed');
}

/**
 * Sign a control message: returns a copy whose metadata carries `__ctrl_sig` and `__ctrl_pk`; the input is untouched.
 * Refuses (`SIGNER_NOT_SENDER`) when the key does not derive to `message.sender`, because every conforming receiver
 * would reject that frame at the gate's last step. `version` 2 binds the timestamp (`offline-ctrl-v2`): for a peer
 * whose key package advertised `ctrl_versions` 2; v1 (the default) is what every peer verifies.
 */
export function signControlMessage(message: MeshMessage, privateKey: Ed25519PrivateKey, version: ControlSigningVersion = 1): MeshMessage {
  const identity = identityOf(toPrivateKeyObject(privateKey));
  if (identity.address !== message.sender) {
    throw new MeshEncodeError('SIGNER_NOT_SENDER', "the signing key does not derive to the message's sender address", {
      sender: message.sender,
      keyAddress: identity.address,
    });
  }
  const signature = sign(null, controlPayload(message, version), identity.privateKey);
  const metadata = new Map(message.metadata);
  metadata.set(CTRL_SIG_METADATA_KEY, toBase64(signature));
  metadata.set(CTRL_PK_METADATA_KEY, toBase64(identity.publicKey));
  return { ...message, metadata };
}

export type ControlSignatureCheck =
  | { status: 'unsigned' }
  | { status: 'valid'; publicKey: Uint8Array; version: ControlSigningVersion }
  | {
      status: 'invalid';
      reason: 'PUBLIC_KEY_WITHOUT_SIGNATURE' | 'SIGNATURE_WITHOUT_PUBLIC_KEY' | 'BAD_SIGNATURE_ENCODING' | 'BAD_PUBLIC_KEY_ENCODING' | 'BAD_SIGNATURE';
      detail: string;
    };

/**
 * Steps 2–4 of the gate as one value: both keys absent is `unsigned`; one key alone, base64 that is not canonical
 * STANDARD, a key that is not 32 bytes, a signature that is not 64 bytes, or a failed Ed25519 verification is
 * `invalid` with its reason. Says nothing about whether the key belongs to the sender (that is step 5).
 */
export function verifyControlSignature(message: MeshMessage): ControlSignatureCheck {
  const sig = message.metadata.get(CTRL_SIG_METADATA_KEY);
  const pk = message.metadata.get(CTRL_PK_METADATA_KEY);
  if (sig === undefined && pk === undefined) return { status: 'unsigned' };
  if (sig === undefined) return invalid('PUBLIC_KEY_WITHOUT_SIGNATURE', 'control message carries __ctrl_pk without __ctrl_sig');
  if (pk === undefined) return invalid('SIGNATURE_WITHOUT_PUBLIC_KEY', 'control message carries __ctrl_sig without __ctrl_pk');
  const signature = fromBase64Canonical(sig);
  if (signature === undefined) return invalid('BAD_SIGNATURE_ENCODING', '__ctrl_sig is not canonical standard base64');
  const publicKey = fromBase64Canonical(pk);
  if (publicKey === undefined) return invalid('BAD_PUBLIC_KEY_ENCODING', '__ctrl_pk is not canonical standard base64');
  if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES) return invalid('BAD_SIGNATURE', `__ctrl_pk decodes to ${publicKey.length} bytes, not 32`);
  if (signature.length !== ED25519_SIGNATURE_BYTES) return invalid('BAD_SIGNATURE', `__ctrl_sig decodes to ${signature.length} bytes, not 64`);
  let key: KeyObject;
  try {
    key = ed25519PublicKeyFromBytes(publicKey);
  } catch {
    return invalid('BAD_SIGNATURE', '__ctrl_pk is not an Ed25519 public key');
  }
  // Nothing on the wire says which payload was signed: v2 first (what current peers send), then v1.
  for (const version of [2, 1] as const) {
    let ok: boolean;
    try {
      ok = verify(null, controlPayload(message, version), key, signature);
    } catch {
      ok = false;
    }
    if (ok) return { status: 'valid', publicKey: new Uint8Array(publicKey), version };
  }
  return invalid('BAD_SIGNATURE', 'Ed25519 verification failed under offline-ctrl-v2 and offline-ctrl-v1');
}

function invalid(reason: Extract<ControlSignatureCheck, { status: 'invalid' }>['reason'], detail: string): ControlSignatureCheck {
  return { status: 'invalid', reason, detail };
}
