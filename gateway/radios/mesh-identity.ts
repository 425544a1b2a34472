/**
 * Ed25519 identities for virtual peers and the BLE IDENTITY blob.
 *
 * Virtual peers get keys derived from a seed string, so a demo peer has the same `off1…` address on every run and
 * an integrator's dashboards keep pointing at it. The IDENTITY characteristic holds
 * `pubkey(32) ‖ Ed25519 sig(64) ‖ adv`, the signature a plain Ed25519 signature over `adv`
 * (mesh-reference-facts.md §3); `verifyIdentityBlob` is the rule the reference centrals apply before accepting a
 * peer, and `buildIdentityBlob` is its inverse for the simulation and the tests.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { deriveAddress } from '../../lib/mesh/address';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export const IDENTITY_PUBLIC_KEY_BYTES = 32;
export const IDENTITY_SIGNATURE_BYTES = 64;
/** The reference refuses a shorter blob. */
export const IDENTITY_MIN_BYTES = 96;

export interface MeshIdentity {
  publicKey: Uint8Array;
  privateKey: KeyObject;
  address: string;
}

/** A deterministic identity: the Ed25519 seed is SHA-256 of the text. */
export function identityFromSeed(seedText: string): MeshIdentity {
  const seed = createHash('sha256').update(seedText, 'utf8').digest();
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const publicKey = new Uint8Array(spki.subarray(spki.length - IDENTITY_PUBLIC_KEY_BYTES));
  return { publicKey, privateKey, address: deriveAddress(publicKey) };
}

/** `pubkey ‖ sign(adv) ‖ adv`. */
export function buildIdentityBlob(identity: MeshIdentity, adv: Uint8Array): Uint8Array {
  const signature = sign(null, adv, identity.privateKey);
  return Uint8Array.from(Buffer.concat([identity.publicKey, signature, adv]));
}

export type IdentityCheck =
  | { ok: true; address: string; publicKey: Uint8Array; adv: Uint8Array }
  | { ok: false; reason: 'IDENTITY_TOO_SHORT' | 'IDENTITY_BAD_SIGNATURE' | 'IDENTITY_ADDRESS_MISMATCH' | 'IDENTITY_BAD_KEY' };

/**
 * The reference's peer binding: at least 96 bytes, the signature over `adv` verifies under the embedded key, and
 * the address derived from that key equals the DEVICE_ID the peer served. `deviceId` is compared exactly.
 */
export function verifyIdentityBlob(blob: Uint8Array, deviceId: string): IdentityCheck {
  if (blob.length < IDENTITY_MIN_BYTES) return { ok: false, reason: 'IDENTITY_TOO_SHORT' };
  const publicKey = blob.slice(0, IDENTITY_PUBLIC_KEY_BYTES);
  const signature = blob.subarray(IDENTITY_PUBLIC_KEY_BYTES, IDENTITY_PUBLIC_KEY_BYTES + IDENTITY_SIGNATURE_BYTES);
  const adv = blob.slice(IDENTITY_PUBLIC_KEY_BYTES + IDENTITY_SIGNATURE_BYTES);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]), format: 'der', type: 'spki' });
  } catch {
    return { ok: false, reason: 'IDENTITY_BAD_KEY' };
  }
  let valid: boolean;
  try {
    valid = verify(null, adv, key, signature);
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, reason: 'IDENTITY_BAD_SIGNATURE' };
  const address = deriveAddress(publicKey);
  if (address !== deviceId) return { ok: false, reason: 'IDENTITY_ADDRESS_MISMATCH' };
  return { ok: true, address, publicKey, adv };
}

/**
 * A MeshAdvertisementData v2 (19 bytes, mesh-reference-facts.md §3) for virtual peers: version 2, degree and free
 * slots, score, battery and load unknown, RSSI unknown, uptime, node-id hash, no feature flags.
 */
export function buildAdvertisement(options: { degree?: number; freeSlots?: number; score?: number; uptimeS?: number; nodeIdHash?: bigint } = {}): Uint8Array {
  const adv = new Uint8Array(19);
  const view = new DataView(adv.buffer);
  adv[0] = 0x02;
  adv[1] = (((options.degree ?? 0) & 0x0f) << 4) | ((options.freeSlots ?? 4) & 0x0f);
  adv[2] = options.score ?? 128;
  adv[3] = 0xff;
  adv[4] = 0xff;
  adv[5] = 0xff;
  view.setUint32(6, options.uptimeS ?? 0);
  view.setBigUint64(10, options.nodeIdHash ?? 0n);
  adv[18] = 0;
  return adv;
}
