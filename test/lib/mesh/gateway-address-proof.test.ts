import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { fromHex, toHex } from '../../../lib/bytes';
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
    assert.notEqual(a.payload_hex, b.payload_hex);
  });
  it('the gateway payload is not the relay one', () => {
    const d = file.the_domain_is_what_stops_a_cross_replay;
    assert.notEqual(toHex(gatewayAddressProofPayload(d.address, hex(d.challenge_hex))), d.same_fields_under_the_relay_domain_hex);
  });
  for (const c of file.proofs.filter((p) => p.address === controlIdentityFromPrivateKey(RFC8032_TV1_SEED).address)) {
    it(`verifies a proof signed with RFC 8032 key 1 for ${c.name}`, () => {
      const challenge = hex(c.challenge_hex);
      const proof = signGatewayAddressProof(RFC8032_TV1_SEED, challenge);
      assert.equal(proof.address, c.address);
      assert.deepEqual(verifyGatewayAddressProof(proof, challenge), { ok: true, address: c.address });
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
