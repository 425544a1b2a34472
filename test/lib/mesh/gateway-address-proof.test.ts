import { strict as assert } from 'node:assert';
import { randomBytes, sign } from 'node:crypto';
import { fromHex, toHex } from '../../../lib/bytes';
import { deriveAddress } from '../../../lib/mesh/address';
import { generateControlIdentity } from '../../../lib/mesh/control-signature';
import {
  GATEWAY_ADDRESS_PROOF_DOMAIN,
  gatewayAddressProofPayload,
  signGatewayAddressProof,
  verifyGatewayAddressProof,
} from '../../../lib/mesh/gateway-address-proof';
import { controlIdentityFromPrivateKey } from '../../../lib/mesh/control-signature';
import { loadReferenceVectors } from '../../support/reference-vectors';

interface PayloadCase {
  name?: string;
  address: string;
  challenge_hex: string;
  payload_hex: string;
}
interface VectorFile {
  domain: string;
  proofs: PayloadCase[];
  the_length_prefix_makes_the_payload_unambiguous: { a: PayloadCase; b: PayloadCase };
  the_domain_is_what_stops_a_cross_replay: { address: string; challenge_hex: string; gateway_payload_hex: string; same_fields_under_the_relay_domain_hex: string };
}

const hex = (h: string): Uint8Array => fromHex(h) as Uint8Array;
// RFC 8032 §7.1 test 1: its public half derives to the first proof's address.
const RFC8032_TV1_SEED = hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const RFC8032_TV2_PUBLIC = hex('3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c');

describe('gateway-address-proof: reference vectors (gateway-address-proof-v1.vectors.json)', () => {
  const file = loadReferenceVectors<VectorFile>('gateway-address-proof-v1.vectors.json');
  if (!file) return;
  it('holds the expected cases', () => {
    assert.equal(file.domain, GATEWAY_ADDRESS_PROOF_DOMAIN);
    assert.equal(file.proofs.length, 3);
  });
  const cases: PayloadCase[] = [
    ...file.proofs,
    { name: 'length prefix a', ...file.the_length_prefix_makes_the_payload_unambiguous.a },
    { name: 'length prefix b', ...file.the_length_prefix_makes_the_payload_unambiguous.b },
    { name: 'domain', ...file.the_domain_is_what_stops_a_cross_replay, payload_hex: file.the_domain_is_what_stops_a_cross_replay.gateway_payload_hex },
  ];
  for (const c of cases) {
    it(`encodes ${c.name}`, () => {
      assert.equal(toHex(gatewayAddressProofPayload(c.address, hex(c.challenge_hex))), c.payload_hex);
    });
  }
  it('the two length-prefix cases differ only in the prefix', () => {
    const { a, b } = file.the_length_prefix_makes_the_payload_unambiguous;
    assert.equal(Buffer.from(a.address).toString('hex') + a.challenge_hex, Buffer.from(b.address).toString('hex') + b.challenge_hex);
    assert.notEqual(toHex(gatewayAddressProofPayload(a.address, hex(a.challenge_hex))), toHex(gatewayAddressProofPayload(b.address, hex(b.challenge_hex))));
  });
  it('the gateway payload is not the relay one', () => {
    const d = file.the_domain_is_what_stops_a_cross_replay;
    const ours = toHex(gatewayAddressProofPayload(d.address, hex(d.challenge_hex)));
    assert.notEqual(ours, d.same_fields_under_the_relay_domain_hex);
    // The same layout after the domain: only the domain separates the two proofs.
    const tail = (h: string, domain: string): string => h.slice(Buffer.from(domain).length * 2);
    assert.equal(tail(ours, 'offline-gateway-addr-v1'), tail(d.same_fields_under_the_relay_domain_hex, 'offline-relay-addr-v1'));
  });
  const tv1 = controlIdentityFromPrivateKey(RFC8032_TV1_SEED);
  for (const c of file.proofs) {
    it(`verify: ${c.name}`, () => {
      const challenge = hex(c.challenge_hex);
      if (c.address === tv1.address) {
        // Signed over the vector's own bytes, not ours: the verifier must rebuild exactly them.
        const signature = new Uint8Array(sign(null, hex(c.payload_hex), tv1.privateKey));
        assert.deepEqual(verifyGatewayAddressProof({ address: c.address, publicKey: tv1.publicKey, signature }, challenge), { ok: true, address: c.address });
        assert.deepEqual(signGatewayAddressProof(RFC8032_TV1_SEED, challenge).signature, signature, 'Ed25519 is deterministic');
      } else {
        // RFC 8032 test 2: the public half is published; the address must derive from it, and a proof under
        // another key for that address is refused.
        assert.equal(deriveAddress(RFC8032_TV2_PUBLIC), c.address);
        const signature = new Uint8Array(sign(null, hex(c.payload_hex), tv1.privateKey));
        const r = verifyGatewayAddressProof({ address: c.address, publicKey: RFC8032_TV2_PUBLIC, signature }, challenge);
        assert.equal(!r.ok && r.code, 'BAD_SIGNATURE');
      }
    });
  }
});

describe('verifyGatewayAddressProof', () => {
  const challenge = new Uint8Array(randomBytes(32));
  const me = generateControlIdentity();
  const proof = signGatewayAddressProof(me.privateKey, challenge);

  it('accepts a proof over this challenge', () => {
    assert.deepEqual(verifyGatewayAddressProof(proof, challenge), { ok: true, address: me.address });
  });
  it('refuses another challenge', () => {
    const other = new Uint8Array(challenge);
    other[0] ^= 1;
    assert.equal(verifyGatewayAddressProof(proof, other).ok, false);
  });
  it('refuses an address that is not the key’s', () => {
    const r = verifyGatewayAddressProof({ ...proof, address: generateControlIdentity().address }, challenge);
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.code, 'ADDRESS_NOT_OF_KEY');
  });
  it('refuses a signature under another key for its own address', () => {
    const other = generateControlIdentity();
    const r = verifyGatewayAddressProof({ ...signGatewayAddressProof(other.privateKey, challenge), address: me.address, publicKey: me.publicKey }, challenge);
    assert.equal(!r.ok && r.code, 'BAD_SIGNATURE');
  });
  it('refuses the layout with a length-prefixed challenge', () => {
    const r = verifyGatewayAddressProof(proof, Uint8Array.from([0, 0, 0, 32, ...challenge]));
    assert.equal(r.ok, false);
  });
  it('refuses wrong lengths without throwing', () => {
    assert.equal(verifyGatewayAddressProof({ ...proof, publicKey: new Uint8Array(31) }, challenge).ok, false);
    assert.equal(verifyGatewayAddressProof({ ...proof, signature: new Uint8Array(63) }, challenge).ok, false);
  });
});
