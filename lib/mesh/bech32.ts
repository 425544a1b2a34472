/**
 * Bech32 and bech32m (BIP-173, BIP-350), written here rather than taken as a dependency because the address check is a
 * security check and its every rule should be readable in one place.
 *
 * This layer is deliberately mechanical: it encodes 5-bit groups and verifies a checksum, nothing more. What makes a
 * string an *address* (lowercase only, HRP `off`, one version byte, exactly one spelling per payload) is decided in
 * address.ts, which re-encodes and compares instead of trusting that the groups were canonical.
 */

export const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
export type Bech32Variant = 'bech32' | 'bech32m';

const CHECKSUM_CONSTANT: Record<Bech32Variant, number> = { bech32: 1, bech32m: 0x2bc830a3 };
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
const CHECKSUM_LENGTH = 6;
/** The longest data part (groups plus checksum) a bech32m code can protect, as the `bech32` crate bounds it. */
export const BECH32M_MAX_DATA_CHARS = 1023;
const MAX_HRP_LENGTH = 83;

const CHARSET_REV = (() => {
  const rev = new Int8Array(128).fill(-1);
  for (let i = 0; i < BECH32_CHARSET.length; i++) rev[BECH32_CHARSET.charCodeAt(i)] = i;
  return rev;
})();

function polymod(values: Iterable<number>): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ v) >>> 0;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk = (chk ^ GENERATOR[i]) >>> 0;
  }
  return chk;
}

function* checksumInput(hrp: string, groups: readonly number[]): Generator<number> {
  for (let i = 0; i < hrp.length; i++) yield hrp.charCodeAt(i) >> 5;
  yield 0;
  for (let i = 0; i < hrp.length; i++) yield hrp.charCodeAt(i) & 31;
  yield* groups;
}

/** Encode 5-bit groups (each 0..31) under `hrp` with the chosen checksum. The HRP is taken as given (lowercase it yourself). */
export function encodeBech32(hrp: string, groups: readonly number[], variant: Bech32Variant): string {
  const mod = polymod([...checksumInput(hrp, groups), 0, 0, 0, 0, 0, 0]) ^ CHECKSUM_CONSTANT[variant];
  let out = hrp + '1';
  for (const g of groups) out += BECH32_CHARSET[g];
  for (let i = 0; i < CHECKSUM_LENGTH; i++) out += BECH32_CHARSET[(mod >>> (5 * (5 - i))) & 31];
  return out;
}

export type Bech32DecodeResult =
  | { ok: true; hrp: string; groups: number[] }
  | { ok: false; reason: 'length' | 'separator' | 'hrp' | 'charset' | 'checksum' };

/**
 * Split and verify a lowercase bech32-family string under exactly one checksum variant (never falling back to the
 * other). Returns the HRP and the 5-bit data groups without the checksum; nothing is interpreted.
 */
export function decodeBech32(text: string, variant: Bech32Variant): Bech32DecodeResult {
  const separator = text.lastIndexOf('1');
  if (separator < 0) return { ok: false, reason: 'separator' };
  const hrp = text.slice(0, separator);
  const dataPart = text.length - separator - 1;
  if (dataPart < CHECKSUM_LENGTH || dataPart > BECH32M_MAX_DATA_CHARS) return { ok: false, reason: 'length' };
  if (hrp.length < 1 || hrp.length > MAX_HRP_LENGTH) return { ok: false, reason: 'hrp' };
  for (let i = 0; i < hrp.length; i++) {
    const c = hrp.charCodeAt(i);
    if (c < 33 || c > 126) return { ok: false, reason: 'hrp' };
  }
  const values: number[] = [];
  for (let i = separator + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? CHARSET_REV[c] : -1;
    if (v < 0) return { ok: false, reason: 'charset' };
    values.push(v);
  }
  if (polymod(checksumInput(hrp, values)) !== CHECKSUM_CONSTANT[variant]) return { ok: false, reason: 'checksum' };
  return { ok: true, hrp, groups: values.slice(0, values.length - CHECKSUM_LENGTH) };
}

/** Bytes to 5-bit groups, most significant bit first, the last group zero-padded. */
export function bytesToGroups(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = ((acc << 8) | b) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push((acc >>> bits) & 31);
    }
  }
  if (bits > 0) out.push((acc << (5 - bits)) & 31);
  return out;
}

/**
 * 5-bit groups to bytes the permissive way the `bech32` crate does it: `floor(n·5/8)` bytes, leftover bits dropped
 * unchecked. Canonicity is the caller's job (re-encode and compare), which is what catches dirty padding bits.
 */
export function groupsToBytesLenient(groups: readonly number[]): Uint8Array {
  const out = new Uint8Array(Math.floor((groups.length * 5) / 8));
  let acc = 0;
  let bits = 0;
  let at = 0;
  for (const g of groups) {
    acc = ((acc << 5) | g) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (acc >>> bits) & 0xff;
    }
  }
  return out;
}
