import { strict as assert } from 'node:assert';
import { createPublicKey, generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import { fromHex, toBase64 } from '../../../lib/bytes';
import { deriveAddress } from '../../../lib/mesh/address';
import { canonicalControlPayload, CTRL_PK_METADATA_KEY, CTRL_SIG_METADATA_KEY } from '../../../lib/mesh/canonical-payload';
import { checkControlGate, ControlGateContext, ControlGateResult } from '../../../lib/mesh/control-gate';
import { RELAY_ANSWER_PREFIXES } from '../../../lib/mesh/control-prefixes';
import {
  controlIdentityFromPrivateKey,
  ControlIdentity,
  generateControlIdentity,
  signControlMessage,
  verifyControlSignature,
} from '../../../lib/mesh/control-signature';
import { MeshEncodeError } from '../../../lib/mesh/errors';
import { createMessage, MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { controlMessage } from './support/control-message';

// RFC 8032 §7.1 TEST 1: this seed's public key is d75a9801…511a, whose address is the facts' TV1 vector.
const RFC8032_TV1_SEED = fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60') as Uint8Array;

/** Signs over the canonical payload with no sender check, to build frames a correct signer refuses to make. */
function signAnyway(message: MeshMessage, identity: ControlIdentity): MeshMessage {
  const metadata = new Map(message.metadata);
  metadata.set(CTRL_SIG_METADATA_KEY, toBase64(sign(null, canonicalControlPayload(message), identity.privateKey)));
  metadata.set(CTRL_PK_METADATA_KEY, toBase64(identity.publicKey));
  return { ...message, metadata };
}

function withMetadata(message: MeshMessage, changes: Record<string, string | undefined>): MeshMessage {
  const metadata = new Map(message.metadata);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) metadata.delete(k);
    else metadata.set(k, v);
  }
  return { ...message, metadata };
}

function rejected(result: ControlGateResult, reason: string): void {
  assert.equal(result.accepted, false, `expected rejection ${reason}`);
  assert.equal((result as { reason: string }).reason, reason);
}

const BLE: ControlGateContext = { transport: 'ble' };

describe('control signatures and the gate', () => {
  const alice = generateControlIdentity();
  const mallory = generateControlIdentity();

  describe('signControlMessage', () => {
    it('derives the RFC 8032 test-1 seed to the facts TV1 address', () => {
      const identity = controlIdentityFromPrivateKey(RFC8032_TV1_SEED);
      assert.equal(Buffer.from(identity.publicKey).toString('hex'), 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
      assert.equal(identity.address, 'off1qysluvwl5922yctzd0u9gpr06gn3k7ldfvgtwgvn');
      assert.ok(identity.privateKey instanceof KeyObject);
    });

    it('writes __ctrl_sig (64 bytes) and __ctrl_pk (32 bytes) as padded standard base64 and leaves the input alone', () => {
      const message = controlMessage(alice.address);
      const signed = signControlMessage(message, alice.privateKey);
      assert.equal(message.metadata.size, 0);
      assert.equal(signed.metadata.get(CTRL_SIG_METADATA_KEY)?.length, 88);
      assert.equal(signed.metadata.get(CTRL_PK_METADATA_KEY), toBase64(alice.publicKey));
      assert.equal(signed.metadata.get(CTRL_PK_METADATA_KEY)?.length, 44);
      assert.equal(signed.content, message.content);
      assert.deepEqual(verifyControlSignature(signed), { status: 'valid', publicKey: alice.publicKey, version: 1 });
    });

    it('is deterministic for one key and one message (Ed25519)', () => {
      const message = controlMessage(controlIdentityFromPrivateKey(RFC8032_TV1_SEED).address);
      const a = signControlMessage(message, RFC8032_TV1_SEED);
      const b = signControlMessage(message, controlIdentityFromPrivateKey(RFC8032_TV1_SEED).privateKey);
      assert.equal(a.metadata.get(CTRL_SIG_METADATA_KEY), b.metadata.get(CTRL_SIG_METADATA_KEY));
    });

    it('refuses a key that does not derive to the sender', () => {
      assert.throws(
        () => signControlMessage(controlMessage(alice.address), mallory.privateKey),
        (e: unknown) => e instanceof MeshEncodeError && e.code === 'SIGNER_NOT_SENDER',
      );
    });

    it('refuses something that is not an Ed25519 private key, without echoing it', () => {
      const seed = new Uint8Array(31).fill(7);
      const keys: unknown[] = [seed, createPublicKey(alice.privateKey), generateKeyPairSync('x25519').privateKey, 'secret'];
      for (const key of keys) {
        assert.throws(
          () => signControlMessage(controlMessage(alice.address), key as Uint8Array),
          (e: unknown) => e instanceof MeshEncodeError && e.code === 'BAD_PRIVATE_KEY' && !JSON.stringify(e.toJSON()).includes(toBase64(seed)),
        );
      }
    });
  });

  describe('checkControlGate', () => {
    it('leaves content without a gated prefix alone, including the data-plane prefixes', () => {
      for (const content of ['hello', '__MLS_ENC__AAAA', '__GROUP_MSG__{}']) {
        assert.deepEqual(checkControlGate(controlMessage('anyone', content), BLE), { accepted: true, gated: false, signed: false });
      }
    });

    it('accepts a correctly signed direct frame from the peer that delivered it', () => {
      const signed = signControlMessage(controlMessage(alice.address), alice.privateKey);
      assert.deepEqual(checkControlGate(signed, { transport: 'ble', transportPeerId: alice.address }), { accepted: true, gated: true, signed: true, version: 1 });
      assert.deepEqual(checkControlGate(signed, BLE), { accepted: true, gated: true, signed: true, version: 1 });
    });

    describe('step 1: transport identity', () => {
      it('rejects a hop-0 frame whose sender is not the delivering peer, before looking at the signature', () => {
        const signed = signControlMessage(controlMessage(alice.address), alice.privateKey);
        rejected(checkControlGate(signed, { transport: 'ble', transportPeerId: mallory.address }), 'TRANSPORT_IDENTITY_MISMATCH');
        rejected(checkControlGate(controlMessage(alice.address), { transport: 'ble', transportPeerId: 'carrier' }), 'TRANSPORT_IDENTITY_MISMATCH');
      });

      it('skips the match when hop_count > 0: the carrier is not the origin', () => {
        const relayed = signControlMessage(controlMessage(alice.address, undefined, { hop_count: 1 }), alice.privateKey);
        assert.equal(checkControlGate(relayed, { transport: 'ble', transportPeerId: mallory.address }).accepted, true);
      });

      it('passes a frame with no transport identity unless requireTransportIdentity', () => {
        const signed = signControlMessage(controlMessage(alice.address), alice.privateKey);
        assert.equal(checkControlGate(signed, BLE).accepted, true);
        rejected(checkControlGate(signed, { transport: 'ble', requireTransportIdentity: true }), 'TRANSPORT_IDENTITY_MISSING');
        rejected(checkControlGate(controlMessage(alice.address), { transport: 'ble', requireTransportIdentity: true }), 'TRANSPORT_IDENTITY_MISSING');
      });
    });

    describe('step 2: unsigned', () => {
      it('rejects an unsigned control frame', () => {
        rejected(checkControlGate(controlMessage(alice.address), BLE), 'UNSIGNED_CONTROL');
      });

      it('gives a forged hop count no way around the signature', () => {
        const forged = controlMessage(alice.address, undefined, { hop_count: 5 });
        rejected(checkControlGate(forged, { transport: 'ble', transportPeerId: mallory.address }), 'UNSIGNED_CONTROL');
      });

      it('accepts the six relay answers unsigned only over internet with no transport peer id', () => {
        for (const prefix of RELAY_ANSWER_PREFIXES) {
          const answer = controlMessage('relay', prefix + '{}');
          assert.deepEqual(checkControlGate(answer, { transport: 'internet' }), { accepted: true, gated: true, signed: false, exemption: 'relay-answer' });
          rejected(checkControlGate(answer, { transport: 'ble' }), 'UNSIGNED_CONTROL');
          rejected(checkControlGate(answer, { transport: 'internet', transportPeerId: 'relay', }), 'UNSIGNED_CONTROL');
          rejected(checkControlGate({ ...answer, hop_count: 1 }, { transport: 'internet', transportPeerId: 'relay' }), 'UNSIGNED_CONTROL');
        }
        rejected(checkControlGate(controlMessage('relay', '__CONN_REQ__{}'), { transport: 'internet' }), 'UNSIGNED_CONTROL');
        rejected(checkControlGate(controlMessage('relay', '__GROUP_INFO__{}'), { transport: 'internet', requireTransportIdentity: true }), 'TRANSPORT_IDENTITY_MISSING');
      });
    });

    describe('step 3: one key only, or bad base64', () => {
      const signed = signControlMessage(controlMessage(alice.address), alice.privateKey);

      it('rejects a signature without a key and a key without a signature', () => {
        rejected(checkControlGate(withMetadata(signed, { [CTRL_PK_METADATA_KEY]: undefined }), BLE), 'SIGNATURE_WITHOUT_PUBLIC_KEY');
        rejected(checkControlGate(withMetadata(signed, { [CTRL_SIG_METADATA_KEY]: undefined }), BLE), 'PUBLIC_KEY_WITHOUT_SIGNATURE');
      });

      it('does not extend the relay exemption to a half-signed relay answer', () => {
        const half = withMetadata(controlMessage('relay', '__USER_GROUPS__[]'), { [CTRL_PK_METADATA_KEY]: toBase64(alice.publicKey) });
        rejected(checkControlGate(half, { transport: 'internet' }), 'PUBLIC_KEY_WITHOUT_SIGNATURE');
      });

      it('rejects base64 that is not canonical standard base64', () => {
        const sig = signed.metadata.get(CTRL_SIG_METADATA_KEY) as string;
        const pk = signed.metadata.get(CTRL_PK_METADATA_KEY) as string;
        rejected(checkControlGate(withMetadata(signed, { [CTRL_SIG_METADATA_KEY]: sig.replace(/=+$/, '') }), BLE), 'BAD_SIGNATURE_ENCODING');
        rejected(checkControlGate(withMetadata(signed, { [CTRL_SIG_METADATA_KEY]: '!' + sig.slice(1) }), BLE), 'BAD_SIGNATURE_ENCODING');
        rejected(checkControlGate(withMetadata(signed, { [CTRL_PK_METADATA_KEY]: pk.replace(/\+/g, '-').replace(/\//g, '_') + 'x' }), BLE), 'BAD_PUBLIC_KEY_ENCODING');
        // 'AB==' has non-zero trailing bits (canonical is 'AA=='): a lax decoder would accept it.
        rejected(checkControlGate(withMetadata(signed, { [CTRL_PK_METADATA_KEY]: 'AB==' }), BLE), 'BAD_PUBLIC_KEY_ENCODING');
      });
    });

    describe('step 4: Ed25519 verification', () => {
      const signed = signControlMessage(controlMessage(alice.address), alice.privateKey);

      it('rejects any change to sender, id, recipient or content', () => {
        rejected(checkControlGate({ ...signed, content: signed.content + ' ' }, BLE), 'BAD_SIGNATURE');
        rejected(checkControlGate({ ...signed, recipient: 'someone-else' }, BLE), 'BAD_SIGNATURE');
        rejected(checkControlGate({ ...signed, id: MessageId.random() }, BLE), 'BAD_SIGNATURE');
        rejected(checkControlGate({ ...signed, sender: mallory.address }, BLE), 'BAD_SIGNATURE');
      });

      it('ignores changes to what is not signed: metadata, ttl, hop count, timestamps', () => {
        const moved = withMetadata({ ...signed, ttl: 2, hop_count: 3, timestamp: 5n, lamport_clock: 9n }, { route: 'via-relay' });
        assert.equal(checkControlGate(moved, BLE).accepted, true);
      });

      it('verifies over the lowercase id whatever spelling the id arrived in', () => {
        const upper = createMessage({ ...signed, id: signed.id.toString().toUpperCase(), metadata: signed.metadata });
        assert.equal(checkControlGate(upper, BLE).accepted, true);
      });

      it('rejects a key or signature of the wrong length, and a signature by another key', () => {
        rejected(checkControlGate(withMetadata(signed, { [CTRL_PK_METADATA_KEY]: toBase64(alice.publicKey.subarray(0, 31)) }), BLE), 'BAD_SIGNATURE');
        rejected(checkControlGate(withMetadata(signed, { [CTRL_SIG_METADATA_KEY]: toBase64(new Uint8Array(63)) }), BLE), 'BAD_SIGNATURE');
        rejected(checkControlGate(withMetadata(signed, { [CTRL_PK_METADATA_KEY]: toBase64(mallory.publicKey) }), BLE), 'BAD_SIGNATURE');
      });
    });

    describe('step 5: the sender is the address of the signing key', () => {
      it('rejects a validly signed frame whose sender is not an address', () => {
        rejected(checkControlGate(signAnyway(controlMessage('alice'), alice), BLE), 'SENDER_NOT_ADDRESS');
        rejected(checkControlGate(signAnyway(controlMessage(alice.address.toUpperCase()), alice), BLE), 'SENDER_NOT_ADDRESS');
      });

      it('rejects a validly signed frame claiming someone else’s address', () => {
        rejected(checkControlGate(signAnyway(controlMessage(alice.address), mallory), BLE), 'SENDER_ADDRESS_MISMATCH');
        assert.equal(deriveAddress(mallory.publicKey), mallory.address);
      });
    });
  });
});
