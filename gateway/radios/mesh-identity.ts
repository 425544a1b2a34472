/**
 * Ed25519 identities for virtual peers and the BLE IDENTITY blob.
 *
 * Virtual peers get keys derived from a seed string, so a demo peer has the same `off1…` address on every run and
 * an integrator's dashboards keep pointing at it. The IDENTITY characteristic holds
 * `pubkey(32) ‖ Ed25519 sig(64) ‖ adv`; the rule itself (build and verify) is lib/mesh's identity assertion, which
 * integrators use too, and these wrappers only put it in the radio's terms (a `MeshIdentity`, the `adv` bytes).
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { deriveAddress } from '../../lib/mesh/address';
import { buildIdentityAssertion, IDENTITY_PUBLIC_KEY_BYTES, verifyIdentityAssertion, type IdentityAssertionRefusal } from '../../lib/mesh/identity-assertion';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export { IDENTITY_MIN_BYTES, IDENTITY_PUBLIC_KEY_BYTES, IDENTITY_SIGNATURE_BYTES } from '../../lib/mesh/identity-assertion';

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

/** `pubkey ‖ sign(adv) ‖ adv` (lib/mesh/identity-assertion.ts). */
export function buildIdentityBlob(identity: MeshIdentity, adv: Uint8Array): Uint8Array {
  return buildIdentityAssertion(identity.privateKey, adv);
}

export type IdentityCheck =
  | { ok: true; address: string; publicKey: Uint8Array; adv: Uint8Array }
  | { ok: false; reason: IdentityAssertionRefusal };

/**
 * The reference's peer binding (lib/mesh's `verifyIdentityAssertion`): at least 96 bytes, the signature over `adv`
 * verifies under the embedded key, and the address derived from that key equals the DEVICE_ID the peer served.
 */
export function verifyIdentityBlob(blob: Uint8Array, deviceId: string): IdentityCheck {
  const r = verifyIdentityAssertion(blob, deviceId);
  return r.ok ? { ok: true, address: r.address, publicKey: r.publicKey, adv: r.signedData } : r;
}

/** The 19-byte MeshAdvertisementData v2 (mesh-reference-facts.md §3). */
export const ADVERTISEMENT_V2_BYTES = 19;

export interface MeshAdvertisementFields {
  /** Links the node has (0–15). */
  degree?: number;
  /** Links it could still take (0–15). */
  freeSlots?: number;
  score?: number;
  /** Seconds since the node started (u32). */
  uptimeS?: number;
  nodeIdHash?: bigint;
  /** 0–254; absent: 0xFF, none (a mains-powered gateway has no battery). */
  battery?: number;
  load?: number;
}

/**
 * A MeshAdvertisementData v2: version 2, degree and free slots (4 bits each, clamped to 15), score, battery and load
 * (0xFF, none, unless given), RSSI unknown, uptime, node-id hash, no feature flags.
 */
export function buildAdvertisement(options: MeshAdvertisementFields = {}): Uint8Array {
  const nibble = (n: number): number => Math.max(0, Math.min(15, Math.floor(n)));
  const adv = new Uint8Array(ADVERTISEMENT_V2_BYTES);
  const view = new DataView(adv.buffer);
  adv[0] = 0x02;
  adv[1] = (nibble(options.degree ?? 0) << 4) | nibble(options.freeSlots ?? 4);
  adv[2] = options.score ?? 128;
  const byte = (n: number | undefined): number => (n === undefined ? 0xff : Math.max(0, Math.min(254, Math.floor(n))));
  adv[3] = byte(options.battery);
  adv[4] = byte(options.load);
  adv[5] = 0xff;
  view.setUint32(6, Math.max(0, Math.min(0xffff_ffff, Math.floor(options.uptimeS ?? 0))));
  view.setBigUint64(10, options.nodeIdHash ?? 0n);
  adv[18] = 0;
  return adv;
}

export interface MeshAdvertisement {
  version: 2;
  degree: number;
  freeSlots: number;
  score: number;
  /** Undefined when the node sent 0xFF (none). */
  battery?: number;
  load?: number;
  rssi?: number;
  uptimeS: number;
  nodeIdHash: bigint;
  featureFlags: number;
}

/** Reads a MeshAdvertisementData v2; undefined for any other length or version. */
export function parseAdvertisement(adv: Uint8Array): MeshAdvertisement | undefined {
  if (adv.length !== ADVERTISEMENT_V2_BYTES || adv[0] !== 0x02) return undefined;
  const view = new DataView(adv.buffer, adv.byteOffset, adv.byteLength);
  const out: MeshAdvertisement = {
    version: 2,
    degree: adv[1] >> 4,
    freeSlots: adv[1] & 0x0f,
    score: adv[2],
    uptimeS: view.getUint32(6),
    nodeIdHash: view.getBigUint64(10),
    featureFlags: adv[18],
  };
  if (adv[3] !== 0xff) out.battery = adv[3];
  if (adv[4] !== 0xff) out.load = adv[4];
  if (adv[5] !== 0xff) out.rssi = adv[5] - 127;
  return out;
}

/**
 * The node-id hash a gateway puts in its advertisement: the first 8 bytes of SHA-256 of its `off1…` address, big
 * endian. The facts file names the field but not the hash; this one is stable per identity and cheap to check.
 */
export function nodeIdHash(address: string): bigint {
  return createHash('sha256').update(address, 'utf8').digest().readBigUInt64BE(0);
}

/**
 * The battery and load a peer's advertisement reports, as peer fields: a battery above 100 is no percentage the
 * reference defines, so it is left out like 0xFF (none); load is kept on the node's own 0–254 scale.
 */
export function advertisedHealth(adv: MeshAdvertisement | undefined): { battery?: number; load?: number } {
  const out: { battery?: number; load?: number } = {};
  if (adv?.battery !== undefined && adv.battery <= 100) out.battery = adv.battery;
  if (adv?.load !== undefined) out.load = adv.load;
  return out;
}
