/**
 * Self-certifying `off1…` addresses (mesh-reference-facts.md §5 "Address", §8 vectors).
 *
 *   address = bech32m(hrp "off", 0x01 ‖ SHA-256(ed25519 public key)[0..20])   — 44 lowercase characters
 *
 * Because the payload is a hash of the key, a claimed sender is checked by re-deriving it from the key that signed
 * the frame (control-gate.ts); no trust-on-first-use store is involved. That only holds if every payload has exactly
 * one accepted spelling, so parsing refuses uppercase, the bech32 (non-m) checksum, another HRP, another version
 * byte, a payload that is not 21 bytes, and any spelling that decodes to the right bytes but is not the one this
 * module would write (dirty padding bits, an over-long data part): it re-encodes and compares.
 */
import { createHash } from 'node:crypto';
import { compareBytes } from '../bytes';
import { bytesToGroups, decodeBech32, encodeBech32, groupsToBytesLenient } from './bech32';
import { MeshDecodeError, MeshEncodeError } from './errors';

export const ADDRESS_HRP = 'off';
export const ADDRESS_VERSION = 0x01;
export const ADDRESS_HASH_BYTES = 20;
export const ADDRESS_PAYLOAD_BYTES = 1 + ADDRESS_HASH_BYTES;
export const ADDRESS_LENGTH = 44;
export const ED25519_PUBLIC_KEY_BYTES = 32;

export interface ParsedAddress {
  /** The canonical text, identical to the input. */
  readonly address: string;
  readonly version: number;
  /** The truncated key hash; orders addresses (see `compareAddresses`). */
  readonly hash: Uint8Array;
}

/** The address of a 20-byte truncated key hash. */
export function addressFromHash(hash: Uint8Array): string {
  if (!(hash instanceof Uint8Array) || hash.length !== ADDRESS_HASH_BYTES) {
    throw new MeshEncodeError('BAD_ADDRESS_HASH', `an address hash is ${ADDRESS_HASH_BYTES} bytes`, { length: hash?.length });
  }
  const payload = new Uint8Array(ADDRESS_PAYLOAD_BYTES);
  payload[0] = ADDRESS_VERSION;
  payload.set(hash, 1);
  return encodeBech32(ADDRESS_HRP, bytesToGroups(payload), 'bech32m');
}

/**
 * The address of a 32-byte Ed25519 public key. Like the reference, the key is hashed as given and not checked to be a
 * curve point: whether it verifies anything is the signature check's business.
 */
export function deriveAddress(publicKey: Uint8Array): string {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== ED25519_PUBLIC_KEY_BYTES) {
    throw new MeshEncodeError('BAD_PUBLIC_KEY', `an Ed25519 public key is ${ED25519_PUBLIC_KEY_BYTES} bytes`, { length: publicKey?.length });
  }
  const digest = createHash('sha256').update(publicKey).digest();
  return addressFromHash(new Uint8Array(digest.buffer, digest.byteOffset, ADDRESS_HASH_BYTES));
}

/**
 * Parse a canonical address. Every refusal is a `MeshDecodeError`: `ADDRESS_NOT_LOWERCASE`, `ADDRESS_NOT_BECH32M`
 * (separator, charset, length or checksum, including a valid bech32 checksum), `ADDRESS_WRONG_HRP`,
 * `ADDRESS_WRONG_LENGTH`, `ADDRESS_WRONG_VERSION`, `ADDRESS_NOT_CANONICAL`. The checks run in that order.
 */
export function parseAddress(text: string): ParsedAddress {
  if (typeof text !== 'string') throw new MeshDecodeError('ADDRESS_NOT_BECH32M', 'an address is a string');
  if (/[A-Z]/.test(text)) throw new MeshDecodeError('ADDRESS_NOT_LOWERCASE', 'an address is lowercase only');
  const decoded = decodeBech32(text, 'bech32m');
  if (!decoded.ok) {
    throw new MeshDecodeError('ADDRESS_NOT_BECH32M', `not a valid bech32m string (${decoded.reason})`, { reason: decoded.reason });
  }
  if (decoded.hrp !== ADDRESS_HRP) {
    throw new MeshDecodeError('ADDRESS_WRONG_HRP', `address prefix is "${decoded.hrp}", expected "${ADDRESS_HRP}"`, { hrp: decoded.hrp });
  }
  const payload = groupsToBytesLenient(decoded.groups);
  if (payload.length !== ADDRESS_PAYLOAD_BYTES) {
    throw new MeshDecodeError('ADDRESS_WRONG_LENGTH', `address payload is ${payload.length} bytes, expected ${ADDRESS_PAYLOAD_BYTES}`, {
      length: payload.length,
    });
  }
  if (payload[0] !== ADDRESS_VERSION) {
    throw new MeshDecodeError('ADDRESS_WRONG_VERSION', `address version byte is 0x${payload[0].toString(16).padStart(2, '0')}, expected 0x01`, {
      version: payload[0],
    });
  }
  const hash = payload.slice(1);
  if (addressFromHash(hash) !== text) {
    throw new MeshDecodeError('ADDRESS_NOT_CANONICAL', 'address decodes to a valid payload but is not its canonical spelling');
  }
  return { address: text, version: ADDRESS_VERSION, hash };
}

export function isAddress(text: unknown): text is string {
  if (typeof text !== 'string' || text.length !== ADDRESS_LENGTH) return false;
  try {
    parseAddress(text);
    return true;
  } catch {
    return false;
  }
}

/** Whether an address is the one a public key derives to. */
export function addressMatchesKey(address: string, publicKey: Uint8Array): boolean {
  return publicKey instanceof Uint8Array && publicKey.length === ED25519_PUBLIC_KEY_BYTES && deriveAddress(publicKey) === address;
}

/**
 * Order of two addresses by their hash bytes, as the reference's `Ord` does. It is not the order of the strings (the
 * bech32 alphabet is not ASCII-monotonic), so never sort rendered addresses for a tie-break that peers must agree on.
 */
export function compareAddresses(a: string, b: string): number {
  return compareBytes(parseAddress(a).hash, parseAddress(b).hash);
}

/**
 * The 1:1 session slot two peers share (the reference's docs/spec/identity.md): `session:<first>:<second>`, the
 * addresses ordered by hash bytes (`compareAddresses`). Both sides must name the same slot whichever of them
 * computes it, and sorting the rendered strings would name a different one for some pairs. When either id is not a
 * canonical address (a user id from before addresses), the chapter orders the two as strings: still total and
 * deterministic, so both sides still agree.
 */
export function sessionSlotId(a: string, b: string): string {
  const first = isAddress(a) && isAddress(b) ? compareAddresses(a, b) <= 0 : a <= b;
  return first ? `session:${a}:${b}` : `session:${b}:${a}`;
}
