import assert from 'node:assert/strict';
import {
  applyCommit,
  computeExpiry,
  ID,
  INT64_MAX,
  isExpired,
  messagesToDelete,
  prepareDisappearingSettings,
  readDisappearingSettings,
  visibleMessages,
} from '../../../lib/dictionary';
import { ALICE, assertApplied, BOB, groupBytes, hex, update } from './fixtures';

const HOUR_NS = 3_600_000_000_000n;

describe('lib/dictionary disappearing messages', () => {
  const settings = { fromNs: 1_000n, inNs: HOUR_NS, enabled: true };

  it('META-050 assigns sent_at_ns + duration when both settings are positive and the message was sent at or after the start', () => {
    assert.equal(computeExpiry(settings, 1_000n, 'application'), 1_000n + HOUR_NS);
    assert.equal(computeExpiry(settings, 5_000n, 'application'), 5_000n + HOUR_NS);
    assert.equal(computeExpiry(settings, 999n, 'application'), undefined);
  });

  it('META-050 assigns nothing unless both settings are present and positive, and never to a membership-change message', () => {
    assert.equal(computeExpiry({ fromNs: 0n, inNs: HOUR_NS, enabled: false }, 5n, 'application'), undefined);
    assert.equal(computeExpiry({ fromNs: 1n, inNs: -1n, enabled: false }, 5n, 'application'), undefined);
    assert.equal(computeExpiry({ inNs: HOUR_NS, enabled: false }, 5n, 'application'), undefined);
    assert.equal(computeExpiry(settings, 5_000n, 'membership-change'), undefined);
  });

  it('META-050 adds with checked signed 64-bit arithmetic and clamps above INT64_MAX', () => {
    assert.equal(computeExpiry({ fromNs: 1n, inNs: INT64_MAX, enabled: true }, INT64_MAX - 5n, 'application'), INT64_MAX);
    assert.equal(computeExpiry({ fromNs: 1n, inNs: 5n, enabled: true }, INT64_MAX - 5n, 'application'), INT64_MAX);
    assert.equal(computeExpiry({ fromNs: 1n, inNs: 4n, enabled: true }, INT64_MAX - 5n, 'application'), INT64_MAX - 1n);
    assert.throws(() => computeExpiry(settings, INT64_MAX + 1n, 'application'), { code: 'INT64_OUT_OF_RANGE' });
  });

  it('META-050 keeps a stored expiry through later settings changes: visibility reads the stored value', () => {
    const stored = { kind: 'application' as const, expiryNs: computeExpiry(settings, 2_000n, 'application') };
    // The settings are later turned off; the stored expiry still hides the message once reached.
    assert.equal(computeExpiry({ enabled: false }, 2_000n, 'application'), undefined);
    assert.equal(visibleMessages([stored], 2_000n + HOUR_NS).length, 0);
  });

  it('META-051 hides a message once its expiry is not later than now', () => {
    const msgs = [
      { id: 'a', kind: 'application' as const, expiryNs: 100n },
      { id: 'b', kind: 'application' as const, expiryNs: 101n },
      { id: 'c', kind: 'application' as const, expiryNs: null },
    ];
    assert.deepEqual(visibleMessages(msgs, 100n).map((m) => m.id), ['b', 'c']);
    assert.equal(isExpired(100n, 99n), false);
    assert.equal(isExpired(undefined, 10n ** 18n), false);
  });

  it('META-063 deletes every application message whose expiry was not later than the pass start', () => {
    const msgs = [
      { id: 'a', kind: 'application' as const, expiryNs: 50n },
      { id: 'b', kind: 'application' as const, expiryNs: 60n },
      { id: 'c', kind: 'membership-change' as const, expiryNs: 10n },
      { id: 'd', kind: 'application' as const },
    ];
    assert.deepEqual(messagesToDelete(msgs, 50n).map((m) => m.id), ['a']);
  });

  it('META-052 reads, sets and clears both settings, enabled exactly when both are present and above 0', () => {
    const group = groupBytes();
    assert.deepEqual(readDisappearingSettings(group), { enabled: false });
    const set = prepareDisappearingSettings(group, ALICE, { fromNs: 10n, inNs: HOUR_NS });
    const r = applyCommit(group, set.map((w) => w.bytes), ALICE);
    assertApplied(r);
    assert.deepEqual(readDisappearingSettings(r.bytes), { fromNs: 10n, inNs: HOUR_NS, enabled: true });
    const clear = prepareDisappearingSettings(r.bytes, ALICE, null);
    assert.equal(clear.length, 2);
    const cleared = applyCommit(r.bytes, clear.map((w) => w.bytes), ALICE);
    assertApplied(cleared);
    assert.deepEqual(readDisappearingSettings(cleared.bytes), { enabled: false });
    assert.deepEqual(prepareDisappearingSettings(cleared.bytes, ALICE, null), []);
    const zero = applyCommit(group, [update(ID.MESSAGE_DISAPPEAR_FROM_NS, hex('0000000000000000')), update(ID.MESSAGE_DISAPPEAR_IN_NS, hex('0000000000000001'))], ALICE);
    assertApplied(zero);
    assert.deepEqual(readDisappearingSettings(zero.bytes), { fromNs: 0n, inNs: 1n, enabled: false });
    assert.throws(() => prepareDisappearingSettings(group, BOB, { fromNs: 1n, inNs: 1n }), { code: 'POLICY_DENIED' });
  });
});
