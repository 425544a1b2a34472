import assert from 'node:assert/strict';
import { buildAdvertisement, buildIdentityBlob, identityFromSeed, verifyIdentityBlob } from '../../../gateway/radios/mesh-identity';
import { deriveAddress, isAddress } from '../../../lib/mesh/address';

describe('gateway/radios mesh-identity', () => {
  it('derives the same identity from the same seed, and an address of its key', () => {
    const a = identityFromSeed('seed');
    assert.equal(identityFromSeed('seed').address, a.address);
    assert.notEqual(identityFromSeed('other').address, a.address);
    assert.equal(a.publicKey.length, 32);
    assert.equal(a.address, deriveAddress(a.publicKey));
    assert.ok(isAddress(a.address));
  });

  it('builds a 19-byte MeshAdvertisementData v2', () => {
    const adv = buildAdvertisement({ degree: 3, freeSlots: 2, score: 200, uptimeS: 0x01020304, nodeIdHash: 0x1122334455667788n });
    assert.equal(Buffer.from(adv).toString('hex'), '02' + '32' + 'c8' + 'ff' + 'ff' + 'ff' + '01020304' + '1122334455667788' + '00');
  });

  it('accepts pubkey ‖ sig(adv) ‖ adv whose key derives the DEVICE_ID, and nothing else', () => {
    const id = identityFromSeed('peer');
    const blob = buildIdentityBlob(id, buildAdvertisement());
    assert.equal(blob.length, 32 + 64 + 19);
    const ok = verifyIdentityBlob(blob, id.address);
    assert.ok(ok.ok);
    assert.equal(ok.ok && ok.address, id.address);
    assert.deepEqual(verifyIdentityBlob(blob.slice(0, 95), id.address), { ok: false, reason: 'IDENTITY_TOO_SHORT' });
    const flipped = blob.slice();
    flipped[100] ^= 0x01; // inside adv: the signature no longer covers it
    assert.deepEqual(verifyIdentityBlob(flipped, id.address), { ok: false, reason: 'IDENTITY_BAD_SIGNATURE' });
    assert.deepEqual(verifyIdentityBlob(blob, identityFromSeed('x').address), { ok: false, reason: 'IDENTITY_ADDRESS_MISMATCH' });
    assert.deepEqual(verifyIdentityBlob(blob, id.address.toUpperCase()), { ok: false, reason: 'IDENTITY_ADDRESS_MISMATCH' });
    // Exactly 96 bytes (empty adv) is the minimum the reference takes.
    const bare = buildIdentityBlob(id, new Uint8Array(0));
    assert.equal(bare.length, 96);
    assert.ok(verifyIdentityBlob(bare, id.address).ok);
  });
});
