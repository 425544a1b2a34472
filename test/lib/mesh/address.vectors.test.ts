import { strict as assert } from 'node:assert';
import { fromHex, toHex } from '../../../lib/bytes';
import { ADDRESS_HASH_BYTES, ADDRESS_HRP, ADDRESS_LENGTH, ADDRESS_VERSION, addressFromHash, compareAddresses, deriveAddress, parseAddress, sessionSlotId } from '../../../lib/mesh/address';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { loadReferenceVectors } from '../../support/reference-vectors';

const hex = (h: string): Uint8Array => fromHex(h) as Uint8Array;

interface AddressFile {
  hrp: string;
  version_byte: number;
  hash_len: number;
  encoded_len: number;
  encode: Array<{ name: string; hash_hex: string; address: string }>;
  reject: Array<{ name: string; input: string; reason: string }>;
  ordering: Array<{ a: string; b: string; a_hash_hex: string; b_hash_hex: string; first_by_hash_bytes: string; first_by_rendered_string: string }>;
}
interface DeriveFile {
  derive: Array<{ name: string; public_key_hex: string; address: string }>;
  sessions: Array<{ a: string; b: string; session_id: string; orders_disagree: boolean; session_id_if_ordered_by_string: string }>;
}

/** The vector's reason in this parser's codes: the refusal must be that one, not merely some throw. */
const REJECT_CODES: Record<string, string> = {
  'not lowercase': 'ADDRESS_NOT_LOWERCASE',
  'hrp mismatch': 'ADDRESS_WRONG_HRP',
  'version mismatch': 'ADDRESS_WRONG_VERSION',
  'payload length': 'ADDRESS_WRONG_LENGTH',
};

describe('reference vectors: address-v1.vectors.json', () => {
  const file = loadReferenceVectors<AddressFile>('address-v1.vectors.json');
  if (!file) return;
  it('has the 4 encode, 5 reject and 3 ordering cases it was read with, under our constants', () => {
    assert.deepEqual([file.encode.length, file.reject.length, file.ordering.length], [4, 5, 3]);
    assert.deepEqual([file.hrp, file.version_byte, file.hash_len, file.encoded_len], [ADDRESS_HRP, ADDRESS_VERSION, ADDRESS_HASH_BYTES, ADDRESS_LENGTH]);
  });
  for (const c of file.encode) {
    it(`encode: ${c.name}`, () => assert.equal(addressFromHash(hex(c.hash_hex)), c.address));
    it(`decode: ${c.name}`, () => assert.equal(toHex(parseAddress(c.address).hash), c.hash_hex));
  }
  for (const c of file.reject) {
    it(`rejects: ${c.name}`, () => {
      assert.throws(() => parseAddress(c.input), (err: unknown) => err instanceof MeshDecodeError && err.code === REJECT_CODES[c.reason]);
    });
  }
  for (const [i, c] of file.ordering.entries()) {
    it(`orders pair ${i + 1} by hash bytes, not by the rendered strings`, () => {
      assert.equal(toHex(parseAddress(c.a).hash), c.a_hash_hex);
      assert.equal(toHex(parseAddress(c.b).hash), c.b_hash_hex);
      assert.equal(compareAddresses(c.a, c.b) < 0 ? c.a : c.b, c.first_by_hash_bytes);
      assert.equal(compareAddresses(c.b, c.a) < 0 ? c.b : c.a, c.first_by_hash_bytes);
      assert.equal([c.a, c.b].sort()[0], c.first_by_rendered_string, 'the vector is one where the string order differs or agrees as it says');
    });
  }
});

describe('reference vectors: derive-address-v1.vectors.json', () => {
  const file = loadReferenceVectors<DeriveFile>('derive-address-v1.vectors.json');
  if (!file) return;
  it('has the 5 derive and 3 session cases it was read with', () => assert.deepEqual([file.derive.length, file.sessions.length], [5, 3]));
  for (const c of file.derive) {
    it(`derive: ${c.name}`, () => assert.equal(deriveAddress(hex(c.public_key_hex)), c.address));
  }
  for (const [i, c] of file.sessions.entries()) {
    it(`session slot ${i + 1}${c.orders_disagree ? ' (hash and string orders disagree)' : ''}: either argument order`, () => {
      assert.equal(sessionSlotId(c.a, c.b), c.session_id);
      assert.equal(sessionSlotId(c.b, c.a), c.session_id);
      assert.equal(c.session_id === c.session_id_if_ordered_by_string, !c.orders_disagree);
    });
  }
});

describe('sessionSlotId', () => {
  const tv3 = 'off1q8dvqulqzgaaafvamxemm2w0vqmlvwk2sgxvx0lk';
  const tv2 = 'off1qyulwy7s5ezz20cy222zrw04rwds39uapqv9j8r0';
  it('orders two addresses by hash bytes, whose order here is not the strings\'', () => {
    assert.equal(sessionSlotId(tv3, tv2), `session:${tv2}:${tv3}`);
  });
  it('falls back to string order when either id is not an address, the same both ways round', () => {
    assert.equal(sessionSlotId(tv2, 'bob'), `session:bob:${tv2}`);
    assert.equal(sessionSlotId('bob', tv2), `session:bob:${tv2}`);
    assert.equal(sessionSlotId('zed', 'amy'), 'session:amy:zed');
  });
});
