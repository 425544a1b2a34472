import assert from 'node:assert/strict';
import {
  BasePolicy,
  decodeComponentMetadata,
  decodeMembershipEntry,
  decodeOneshotMessage,
  DictionaryError,
  encodeComponentMetadata,
  encodeMembershipEntry,
  encodeOneshotMessage,
  evaluatePolicy,
  isValidPolicy,
  type MetadataPolicy,
} from '../../../lib/dictionary';
import { hex } from './fixtures';

const ALLOW: MetadataPolicy = { kind: 'base', base: BasePolicy.ALLOW };
const ADMIN: MetadataPolicy = { kind: 'base', base: BasePolicy.ALLOW_IF_ADMIN };
const SUPER: MetadataPolicy = { kind: 'base', base: BasePolicy.ALLOW_IF_SUPER_ADMIN };

function failCode(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof DictionaryError);
    return err.code;
  }
  assert.fail('expected a DictionaryError');
}

describe('lib/dictionary ComponentMetadata and MetadataPolicy', () => {
  it('encodes a ComponentMetadata in field order and decodes it back', () => {
    const meta = { componentType: 2, permissions: { insert: ALLOW, update: ADMIN, delete: SUPER } };
    const bytes = encodeComponentMetadata(meta);
    // 08 02 | 12 0c { 0a 02 08 01 | 12 02 08 03 | 1a 02 08 04 }
    assert.deepEqual(bytes, hex('0802 120c 0a020801 12020803 1a020804'));
    assert.deepEqual(decodeComponentMetadata(bytes), meta);
  });

  it('META-016 decodes an entry with unknown fields (varint, fixed, length-delimited, group) without losing its meaning', () => {
    const known = encodeComponentMetadata({ componentType: 1, permissions: { insert: ALLOW, update: ALLOW, delete: ALLOW } });
    const withUnknown = Buffer.concat([known, hex('2007 2901020304050607 08 3203616263 3b 0801 3c 4d01020304')]);
    const meta = decodeComponentMetadata(withUnknown);
    assert.equal(meta.componentType, 1);
    assert.deepEqual(meta.permissions?.insert, ALLOW);
  });

  it('merges a repeated singular message field as protobuf does, and a later oneof member replaces an earlier one', () => {
    // permissions appears twice: first with insert, then with update; the result carries both.
    const bytes = hex('0801 1204 0a020801 1204 12020803');
    const meta = decodeComponentMetadata(bytes);
    assert.deepEqual(meta.permissions, { insert: ALLOW, update: ADMIN });
    // insert_policy: base ALLOW, then an any_condition: the oneof ends as any(ALLOW_IF_ADMIN).
    const oneof = hex('120e 0a0c 0801 1a08 0a020803 0a020804');
    const m2 = decodeComponentMetadata(oneof);
    assert.deepEqual(m2.permissions?.insert, { kind: 'any', policies: [ADMIN, SUPER] });
  });

  it('rejects a known field with the wrong wire type, a truncated field and a bad varint', () => {
    assert.equal(failCode(() => decodeComponentMetadata(hex('0a0102'))), 'PROTOBUF_MALFORMED');
    assert.equal(failCode(() => decodeComponentMetadata(hex('1205 0a02'))), 'PROTOBUF_MALFORMED');
    assert.equal(failCode(() => decodeComponentMetadata(hex('08ffffffffffffffffffff01'))), 'PROTOBUF_MALFORMED');
    assert.equal(failCode(() => decodeComponentMetadata(hex('0f'))), 'PROTOBUF_MALFORMED');
    assert.equal(failCode(() => decodeComponentMetadata(hex('3b 0801'))), 'PROTOBUF_MALFORMED');
  });

  it('rejects nesting deeper than 100 messages instead of recursing without bound', () => {
    let policy = hex('0801');
    for (let i = 0; i < 120; i++) {
      const cond = Buffer.concat([Buffer.of(0x0a), lengthOf(policy), policy]);
      policy = Buffer.concat([Buffer.of(0x12), lengthOf(cond), cond]);
    }
    const perms = Buffer.concat([Buffer.of(0x0a), lengthOf(policy), policy]);
    const bytes = Buffer.concat([hex('0801 12'), lengthOf(perms), perms]);
    assert.equal(failCode(() => decodeComponentMetadata(bytes)), 'PROTOBUF_MALFORMED');
  });

  it('PERM-017 validity: base 0 or unknown, an empty And/Any and an unset policy are invalid and deny', () => {
    const roles = { superAdmin: true, admin: true };
    for (const p of [
      { kind: 'base', base: 0 },
      { kind: 'base', base: 9 },
      { kind: 'and', policies: [] },
      { kind: 'any', policies: [] },
      { kind: 'none' },
      { kind: 'and', policies: [ALLOW, { kind: 'base', base: 0 }] },
    ] as MetadataPolicy[]) {
      assert.equal(isValidPolicy(p), false, JSON.stringify(p));
      assert.equal(evaluatePolicy(p, roles), false);
    }
  });

  it('PERM-001 evaluation: ALLOW_IF_ADMIN admits admins and super admins, And needs all, Any needs one', () => {
    const member = { superAdmin: false, admin: false };
    const admin = { superAdmin: false, admin: true };
    const superAdmin = { superAdmin: true, admin: false };
    assert.equal(evaluatePolicy(ADMIN, member), false);
    assert.equal(evaluatePolicy(ADMIN, admin), true);
    assert.equal(evaluatePolicy(ADMIN, superAdmin), true);
    assert.equal(evaluatePolicy(SUPER, admin), false);
    assert.equal(evaluatePolicy({ kind: 'base', base: BasePolicy.DENY }, superAdmin), false);
    assert.equal(evaluatePolicy({ kind: 'and', policies: [ALLOW, SUPER] }, admin), false);
    assert.equal(evaluatePolicy({ kind: 'any', policies: [SUPER, ADMIN] }, admin), true);
    assert.equal(evaluatePolicy(undefined, superAdmin), false);
  });

  it('GroupMembershipEntry and OneshotMessage round-trip and accept unknown fields', () => {
    const m = encodeMembershipEntry(300n, [hex('0102')]);
    assert.deepEqual(decodeMembershipEntry(m).v1?.sequenceId, 300n);
    assert.deepEqual(decodeMembershipEntry(m).v1?.failedInstallations, [hex('0102')]);
    assert.deepEqual(decodeMembershipEntry(hex('1000')), {});
    const o = encodeOneshotMessage(hex('abcd'), 9n);
    assert.deepEqual(decodeOneshotMessage(o).readdRequest?.groupId, hex('abcd'));
    assert.equal(decodeOneshotMessage(o).readdRequest?.latestCommitSequenceId, 9n);
    assert.equal(failCode(() => decodeMembershipEntry(hex('0a05'))), 'PROTOBUF_MALFORMED');
  });
});

function lengthOf(b: Uint8Array): Buffer {
  const out: number[] = [];
  let n = b.length;
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}
