import { strict as assert } from 'node:assert';
import { fromHex, toHex } from '../../../lib/bytes';
import { canonicalControlPayload, canonicalControlPayloadV2, SIGNING_DOMAINS } from '../../../lib/mesh/canonical-payload';
import { checkControlGate, MemoryControlRatchet } from '../../../lib/mesh/control-gate';
import { generateControlIdentity, signControlMessage, verifyControlSignature } from '../../../lib/mesh/control-signature';
import { MessageId } from '../../../lib/mesh/message-id';
import { loadReferenceVectors } from '../../support/reference-vectors';
import { controlMessage } from './support/control-message';

describe('lib/mesh control signatures v2 (offline-ctrl-v2) and the downgrade ratchet', () => {
  it('signs v2 over the timestamp: the verifier says which version, and a moved timestamp breaks v2 but not v1', () => {
    const alice = generateControlIdentity();
    const v2 = signControlMessage(controlMessage(alice.address), alice.privateKey, 2);
    const v1 = signControlMessage(controlMessage(alice.address), alice.privateKey);
    assert.deepEqual(verifyControlSignature(v2), { status: 'valid', publicKey: alice.publicKey, version: 2 });
    assert.deepEqual(verifyControlSignature(v1), { status: 'valid', publicKey: alice.publicKey, version: 1 });
    const v2Moved = verifyControlSignature({ ...v2, timestamp: v2.timestamp + 1n });
    assert.equal(v2Moved.status, 'invalid');
    assert.equal(verifyControlSignature({ ...v1, timestamp: v1.timestamp + 1n }).status, 'valid');
  });

  it('v2 adds the stamp as a length-prefixed field of eight big-endian two\'s-complement bytes under its own domain', () => {
    const m = { sender: 's', id: MessageId.random(), recipient: '', content: 'c', timestamp: -1n };
    const v1 = canonicalControlPayload(m);
    const v2 = canonicalControlPayloadV2(m);
    assert.equal(v2.length, v1.length + 12);
    assert.equal(new TextDecoder().decode(v2.subarray(0, SIGNING_DOMAINS.controlV2.length)), 'offline-ctrl-v2');
    assert.equal(toHex(v2.subarray(v2.length - 12)), '00000008ffffffffffffffff');
  });

  it('the ratchet: after a v2 frame from a sender, its v1 control frames are refused, but not its v1 key package nor other senders', () => {
    const alice = generateControlIdentity();
    const bob = generateControlIdentity();
    const ratchet = new MemoryControlRatchet();
    const ctx = { transport: 'ble' as const, ratchet };
    assert.deepEqual(checkControlGate(signControlMessage(controlMessage(alice.address), alice.privateKey), ctx), { accepted: true, gated: true, signed: true, version: 1 });
    assert.equal(ratchet.provenV2(alice.address), false);
    assert.deepEqual(checkControlGate(signControlMessage(controlMessage(alice.address), alice.privateKey, 2), ctx), { accepted: true, gated: true, signed: true, version: 2 });
    assert.equal(ratchet.provenV2(alice.address), true);
    const downgraded = checkControlGate(signControlMessage(controlMessage(alice.address), alice.privateKey), ctx);
    assert.equal(downgraded.accepted, false);
    assert.equal(!downgraded.accepted && downgraded.reason, 'CONTROL_DOWNGRADE');
    const keyPackage = checkControlGate(signControlMessage(controlMessage(alice.address, '__MLS_KEY_PKG__{"wire_versions":[1]}'), alice.privateKey), ctx);
    assert.equal(keyPackage.accepted, true);
    assert.equal(checkControlGate(signControlMessage(controlMessage(bob.address), bob.privateKey), ctx).accepted, true);
  });

  it('freshness: a v2 frame over 30 days old or over 48 h ahead is refused as STALE_CONTROL_FRAME and ratchets nothing; a v1 frame is not judged', () => {
    const alice = generateControlIdentity();
    const now = 1_800_000_000_000;
    const day = 24 * 3600 * 1000;
    const at = (timestamp: number, version: 1 | 2 = 2) => signControlMessage(controlMessage(alice.address, undefined, { timestamp: BigInt(timestamp) }), alice.privateKey, version);
    const ratchet = new MemoryControlRatchet();
    const ctx = { transport: 'ble' as const, ratchet, freshness: { now } };
    for (const old of [at(now - 31 * day), at(now + 2 * day + 3600_000), at(Number.MAX_SAFE_INTEGER)]) {
      const r = checkControlGate(old, ctx);
      assert.equal(!r.accepted && r.reason, 'STALE_CONTROL_FRAME');
    }
    assert.equal(ratchet.provenV2(alice.address), false);
    assert.equal(checkControlGate(at(now - 29 * day), ctx).accepted, true);
    assert.equal(checkControlGate(at(now + 47 * 3600_000), ctx).accepted, true);
    const other = generateControlIdentity();
    const v1Old = signControlMessage(controlMessage(other.address, undefined, { timestamp: BigInt(now - 400 * day) }), other.privateKey);
    assert.equal(checkControlGate(v1Old, ctx).accepted, true);
    // Without a window (control_freshness_enforced: false), nothing is judged for its age.
    assert.equal(checkControlGate(at(now - 31 * day), { transport: 'ble' }).accepted, true);
  });

  it('a forged v2 frame does not ratchet its claimed sender', () => {
    const alice = generateControlIdentity();
    const mallory = generateControlIdentity();
    const ratchet = new MemoryControlRatchet();
    const forged = signControlMessage(controlMessage(mallory.address), mallory.privateKey, 2);
    const result = checkControlGate({ ...forged, sender: alice.address }, { transport: 'ble', ratchet });
    assert.equal(result.accepted, false);
    assert.equal(ratchet.provenV2(alice.address), false);
  });

  interface PayloadCase {
    name: string;
    sender: string;
    id: string;
    recipient: string;
    content: string;
    timestamp_ms: string;
    v1_hex: string;
    v2_hex: string;
  }
  interface VectorFile {
    domains: { v1: string; v2: string; live: string[] };
    payloads: PayloadCase[];
  }
  // i64::MAX does not survive JSON.parse as a number: the stamps are read as text.
  const vectors = loadReferenceVectors<VectorFile>('control-signing-v1.vectors.json', (text) => text.replace(/"timestamp_ms":\s*(-?\d+)/g, '"timestamp_ms": "$1"'));
  if (vectors) {
    describe('reference vectors: control-signing-v1.vectors.json', () => {
      it('names the domains this implementation signs under', () => {
        assert.equal(vectors.domains.v1, SIGNING_DOMAINS.control);
        assert.equal(vectors.domains.v2, SIGNING_DOMAINS.controlV2);
        for (const d of Object.values(SIGNING_DOMAINS)) assert.ok(vectors.domains.live.includes(d) || d === SIGNING_DOMAINS.gatewayAddress, d);
      });
      it(`has the ${vectors.payloads.length} payload cases it was read with`, () => assert.ok(vectors.payloads.length >= 6));
      for (const c of vectors.payloads) {
        it(`${c.name}: the v1 and v2 payload bytes`, () => {
          const m = { sender: c.sender, id: MessageId.parse(c.id), recipient: c.recipient, content: c.content, timestamp: BigInt(c.timestamp_ms) };
          assert.equal(toHex(canonicalControlPayload(m)), c.v1_hex);
          assert.equal(toHex(canonicalControlPayloadV2(m)), c.v2_hex);
          assert.ok(fromHex(c.v2_hex));
        });
      }
    });
  }
});
