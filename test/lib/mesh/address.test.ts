import { strict as assert } from 'node:assert';
import { fromHex } from '../../../lib/bytes';
import {
  addressFromHash,
  addressMatchesKey,
  compareAddresses,
  deriveAddress,
  isAddress,
  parseAddress,
} from '../../../lib/mesh/address';
import { bytesToGroups, encodeBech32 } from '../../../lib/mesh/bech32';
import { MeshDecodeError, MeshEncodeError, MeshError } from '../../../lib/mesh/errors';

const hex = (h: string): Uint8Array => fromHex(h) as Uint8Array;

// mesh-reference-facts.md §8 (crates/offline-protocol-core/src/address.rs, offline-protocol-sealed/src/derive.rs).
const VECTORS: [string, Uint8Array, string][] = [
  ['RFC8032-TV1 hash', hex('21fe31dfa154a261626bf854046fd2271b7bed4b'), 'off1qysluvwl5922yctzd0u9gpr06gn3k7ldfvgtwgvn'],
  ['zeros', new Uint8Array(20), 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf'],
  ['0xff', new Uint8Array(20).fill(0xff), 'off1q8llllllllllllllllllllllllllllllluvweh4p'],
  ['bytes 0..19', Uint8Array.from({ length: 20 }, (_, i) => i), 'off1qyqqzqsrqszsvpcgpy9qkrqdpc83qygjzvpgkpr5'],
];
const TV1_PUBLIC_KEY = hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
const ZEROS = VECTORS[1][2];

/** The 5-bit groups of a `version ‖ hash` payload: how the negative spellings are built from scratch. */
function payloadGroups(version: number, hashLength: number): number[] {
  const payload = new Uint8Array(1 + hashLength);
  payload[0] = version;
  return bytesToGroups(payload);
}

function expectCode(text: string, code: string): void {
  assert.throws(
    () => parseAddress(text),
    (err: unknown) => err instanceof MeshDecodeError && err.code === code,
    `${JSON.stringify(text)} should fail with ${code}`,
  );
  assert.equal(isAddress(text), false);
}

describe('address', () => {
  describe('positive vectors', () => {
    for (const [name, hash, text] of VECTORS) {
      it(`encodes ${name} to its frozen address`, () => {
        assert.equal(addressFromHash(hash), text);
        assert.equal(text.length, 44);
      });
      it(`parses ${name} back to its hash`, () => {
        const parsed = parseAddress(text);
        assert.deepEqual(parsed.hash, hash);
        assert.equal(parsed.version, 1);
        assert.equal(parsed.address, text);
        assert.ok(isAddress(text));
      });
    }

    it('derives the RFC 8032 test-1 public key to the TV1 address', () => {
      assert.equal(deriveAddress(TV1_PUBLIC_KEY), VECTORS[0][2]);
      assert.ok(addressMatchesKey(VECTORS[0][2], TV1_PUBLIC_KEY));
      assert.ok(!addressMatchesKey(ZEROS, TV1_PUBLIC_KEY));
    });

    it('requires a 32-byte key to derive, without checking it is a curve point', () => {
      assert.throws(() => deriveAddress(new Uint8Array(31)), (e: unknown) => e instanceof MeshEncodeError && e.code === 'BAD_PUBLIC_KEY');
      assert.ok(isAddress(deriveAddress(new Uint8Array(32).fill(0xff))));
    });

    it('round-trips arbitrary hashes through one canonical spelling', () => {
      let x = 0x2545f491;
      for (let n = 0; n < 256; n++) {
        const hash = Uint8Array.from({ length: 20 }, () => {
          x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
          return x >>> 24;
        });
        const text = addressFromHash(hash);
        assert.equal(text.length, 44);
        assert.deepEqual(parseAddress(text).hash, hash);
      }
    });

    it('orders addresses by hash bytes, which the rendered strings invert', () => {
      const a = new Uint8Array(20);
      a[0] = 0x20; // first group 4 renders as 'y'
      const b = new Uint8Array(20);
      b[0] = 0x28; // first group 5 renders as '9'
      const [ta, tb] = [addressFromHash(a), addressFromHash(b)];
      assert.ok(compareAddresses(ta, tb) < 0);
      assert.ok(ta > tb);
    });
  });

  describe('negative vectors', () => {
    it('rejects the padding-bit mutants …qpw3fxkm, …qzqzuscy, …qra5g99k as non-canonical', () => {
      const suffixes = ['qpw3fxkm', 'qzqzuscy', 'qra5g99k'];
      for (const padding of [1, 2, 3]) {
        const groups = payloadGroups(1, 20);
        groups[groups.length - 1] |= padding; // the last group's two low bits are padding
        const mutant = encodeBech32('off', groups, 'bech32m');
        assert.ok(mutant.endsWith(suffixes[padding - 1]), `${mutant} should end with ${suffixes[padding - 1]}`);
        expectCode(mutant, 'ADDRESS_NOT_CANONICAL');
      }
      assert.ok(isAddress(ZEROS));
    });

    it('rejects over-long 35-character data parts that truncate to the same 21 bytes', () => {
      for (const extra of [0, 1, 31]) {
        const mutant = encodeBech32('off', [...payloadGroups(1, 20), extra], 'bech32m');
        assert.equal(mutant.length, 45);
        expectCode(mutant, 'ADDRESS_NOT_CANONICAL');
      }
    });

    it('rejects the HRP "ofx" over the same payload', () => {
      const other = encodeBech32('ofx', payloadGroups(1, 20), 'bech32m');
      assert.equal(other.slice(3), ZEROS.slice(3, 38) + other.slice(38));
      expectCode(other, 'ADDRESS_WRONG_HRP');
    });

    it('rejects the bech32 (non-m) checksum …qqxmdlwt', () => {
      const legacy = encodeBech32('off', payloadGroups(1, 20), 'bech32');
      assert.ok(legacy.endsWith('qqxmdlwt'), legacy);
      expectCode(legacy, 'ADDRESS_NOT_BECH32M');
    });

    it('rejects version bytes 0x00, 0x02 and 0xff', () => {
      for (const version of [0x00, 0x02, 0xff]) {
        expectCode(encodeBech32('off', payloadGroups(version, 20), 'bech32m'), 'ADDRESS_WRONG_VERSION');
      }
    });

    it('rejects payloads of 20 and 22 bytes', () => {
      for (const hashLength of [19, 21]) {
        expectCode(encodeBech32('off', payloadGroups(1, hashLength), 'bech32m'), 'ADDRESS_WRONG_LENGTH');
      }
    });

    it('rejects uppercase and mixed case, though BIP-173 allows all-uppercase', () => {
      expectCode(ZEROS.toUpperCase(), 'ADDRESS_NOT_LOWERCASE');
      expectCode(ZEROS.slice(0, -6) + 'N8antf', 'ADDRESS_NOT_LOWERCASE');
    });

    it('rejects a corrupted checksum and characters outside the alphabet', () => {
      expectCode(ZEROS.slice(0, -1) + 'p', 'ADDRESS_NOT_BECH32M');
      for (const bad of ['b', 'i', 'o', 'é']) expectCode(ZEROS.slice(0, -1) + bad, 'ADDRESS_NOT_BECH32M');
    });

    it('rejects structural garbage', () => {
      for (const bad of ['', 'off', 'off1', 'off1qqq', '1qyqqqq', ZEROS.slice(0, -1), 'off1' + 'q'.repeat(2000)]) {
        expectCode(bad, 'ADDRESS_NOT_BECH32M');
      }
    });

    it('rejects a non-string with its own error type', () => {
      assert.throws(() => parseAddress(42 as unknown as string), MeshError);
      assert.equal(isAddress(undefined), false);
    });
  });
});
