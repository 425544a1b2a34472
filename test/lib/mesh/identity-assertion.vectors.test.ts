import { strict as assert } from 'node:assert';
import { fromHex, toHex } from '../../../lib/bytes';
import { generateControlIdentity } from '../../../lib/mesh/control-signature';
import { buildIdentityAssertion, IDENTITY_MIN_BYTES, verifyIdentityAssertion } from '../../../lib/mesh/identity-assertion';
import { loadReferenceVectors } from '../../support/reference-vectors';

const hex = (h: string): Uint8Array => fromHex(h) as Uint8Array;

interface VectorFile {
  minimum_length: number;
  assertions: Array<{ name: string; public_key_hex: string; signature_hex: string; signed_data_hex: string; assertion_hex: string; address: string }>;
  refusals: Array<{ name: string; assertion_hex: string }>;
}

// RFC 8032 §7.1 test 1's secret: Ed25519 is deterministic, so building from it must give the vector's bytes.
const RFC8032_TV1_SEED = hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');

describe('reference vectors: identity-assertion-v1.vectors.json', () => {
  const file = loadReferenceVectors<VectorFile>('identity-assertion-v1.vectors.json');
  if (!file) return;
  it('has the 3 assertions and 3 refusals it was read with, and our floor', () => {
    assert.deepEqual([file.assertions.length, file.refusals.length], [3, 3]);
    assert.equal(file.minimum_length, IDENTITY_MIN_BYTES);
  });
  for (const c of file.assertions) {
    it(`verifies ${c.name} and returns the address its key derives to, with its parts`, () => {
      assert.equal(c.assertion_hex, c.public_key_hex + c.signature_hex + c.signed_data_hex, 'the layout the file states');
      const r = verifyIdentityAssertion(hex(c.assertion_hex), c.address);
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(r.address, c.address);
      assert.equal(toHex(r.publicKey), c.public_key_hex);
      assert.equal(toHex(r.signedData), c.signed_data_hex);
    });
    it(`refuses ${c.name} with one bit of its signed data or signature changed`, () => {
      const bytes = hex(c.assertion_hex);
      bytes[bytes.length - 1] ^= 0x01;
      assert.deepEqual(verifyIdentityAssertion(bytes), { ok: false, reason: 'IDENTITY_BAD_SIGNATURE' });
    });
  }
  it('builds rfc8032-tv1 byte for byte from its secret key', () => {
    const c = file.assertions[0]!;
    assert.equal(toHex(buildIdentityAssertion(RFC8032_TV1_SEED, hex(c.signed_data_hex))), c.assertion_hex);
  });
  it('refuses an assertion for another address than the one expected', () => {
    const [a, b] = file.assertions;
    assert.deepEqual(verifyIdentityAssertion(hex(a!.assertion_hex), b!.address), { ok: false, reason: 'IDENTITY_ADDRESS_MISMATCH' });
  });
  for (const c of file.refusals) {
    it(`refuses: ${c.name}`, () => assert.deepEqual(verifyIdentityAssertion(hex(c.assertion_hex)), { ok: false, reason: 'IDENTITY_TOO_SHORT' }));
  }
});

describe('buildIdentityAssertion / verifyIdentityAssertion', () => {
  it('round-trips a fresh key over advertisement bytes, and refuses a foreign key in front of the signature', () => {
    const me = generateControlIdentity();
    const blob = buildIdentityAssertion(me.privateKey, Uint8Array.from([2, 0x14, 128]));
    assert.deepEqual(verifyIdentityAssertion(blob, me.address), { ok: true, address: me.address, publicKey: me.publicKey, signedData: Uint8Array.from([2, 0x14, 128]) });
    const swapped = Uint8Array.from(blob);
    swapped.set(generateControlIdentity().publicKey, 0);
    assert.equal(verifyIdentityAssertion(swapped).ok, false);
  });
});
