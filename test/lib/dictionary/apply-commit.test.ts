import assert from 'node:assert/strict';
import {
  applyCommit,
  componentKey,
  decodeDictionary,
  decodeSnapshot,
  encodeComponentMetadata,
  encodeDictionary,
  encodeSnapshot,
  type FieldDefinition,
  hashKey,
  ID,
  SHAPES,
} from '../../../lib/dictionary';
import {
  ALICE,
  appEntry,
  assertApplied,
  assertRejected,
  BOB,
  bytesEqualCheck,
  CAROL,
  delta,
  dict,
  dmBytes,
  groupBytes,
  hex,
  inbox,
  registryInsert,
  registryMutation,
  remove,
  update,
  utf8,
} from './fixtures';

const EMPTY = new Uint8Array(0);
const setOf = (...ids: string[]) => encodeSnapshot(ids.map(inbox).sort(Buffer.compare).map((key) => ({ key, value: EMPTY })), SHAPES.setInbox);
const def = (id: number, componentType: number, name = `F${id.toString(16)}`): FieldDefinition => ({
  id,
  name,
  componentType,
  permissions: {
    insert: { kind: 'base', base: 1 },
    update: { kind: 'base', base: 1 },
    delete: { kind: 'base', base: 1 },
  },
  inGroups: true,
  inDms: true,
});

/** The group after a commit by ALICE, asserting it applied. */
function after(pre: Uint8Array, proposals: Uint8Array[], actor = ALICE, external = false): Uint8Array {
  const r = applyCommit(pre, proposals, actor, { external });
  assertApplied(r);
  return r.bytes;
}

function withComponents(pre: Uint8Array, set: Record<number, Uint8Array>): Uint8Array {
  const m = decodeDictionary(pre);
  for (const [id, v] of Object.entries(set)) m.set(Number(id), v);
  return encodeDictionary(m);
}

describe('lib/dictionary applyCommit', () => {
  const group = groupBytes();

  describe('component ids', () => {
    it('META-003 rejects an Update or a Remove of a reserved id', () => {
      assertRejected(applyCommit(group, [update(0xff00, utf8('x'))], ALICE), 'COMPONENT_ID_RESERVED', 'META-003');
      assertRejected(applyCommit(group, [remove(0xffff)], ALICE), 'COMPONENT_ID_RESERVED', 'META-003');
    });
    it('rejects a write outside the component space', () => {
      assertRejected(applyCommit(group, [update(0x0001, utf8('x'))], ALICE), 'COMPONENT_ID_OUTSIDE_SPACE');
    });
    it('META-005 rejects a registry key that decodes above 0xFFFF', () => {
      const entry = encodeComponentMetadata(appEntry(2));
      const payload = Buffer.concat([Buffer.of(1 + 4 + 1 + entry.length), hex('00 80010000'), Buffer.of(entry.length), entry]);
      assertRejected(applyCommit(group, [update(ID.COMPONENT_REGISTRY, payload)], ALICE), 'COMPONENT_ID_TOO_LARGE', 'META-005');
    });
  });

  describe('immutable components', () => {
    const withImmutableEntries = after(group, [
      registryInsert(0xfd00, appEntry(2)),
      registryMutation({ type: 'insert', key: componentKey(0xfd01), value: encodeComponentMetadata(appEntry(6)) }),
    ]);
    it('META-004 rejects every Update and Remove of a present immutable component', () => {
      assertRejected(applyCommit(group, [update(ID.CONVERSATION_TYPE, hex('00000002'))], ALICE), 'IMMUTABLE_COMPONENT', 'META-004');
      assertRejected(applyCommit(group, [remove(ID.CREATOR_INBOX_ID)], ALICE), 'IMMUTABLE_COMPONENT', 'META-004');
    });
    it('META-004 permits one initial value of an absent immutable component', () => {
      const r = applyCommit(withImmutableEntries, [update(0xfd00, utf8('fixed'))], ALICE);
      assertApplied(r);
      assert.equal(Buffer.from(r.dictionary.get(0xfd00) as Uint8Array).toString(), 'fixed');
      assertRejected(applyCommit(r.bytes, [update(0xfd00, utf8('changed'))], ALICE), 'IMMUTABLE_COMPONENT');
    });
    it('META-004 rejects a later Update to an immutable component in the same commit', () => {
      assertRejected(applyCommit(withImmutableEntries, [update(0xfd00, utf8('one')), update(0xfd00, utf8('two'))], ALICE), 'IMMUTABLE_COMPONENT', 'META-004');
    });
    it('META-004 accepts only an insert-only delta as the first value of an immutable collection', () => {
      const ok = applyCommit(withImmutableEntries, [update(0xfd01, delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(BOB) }]))], ALICE);
      assertApplied(ok);
      const mixed = delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(BOB) }, { type: 'remove', key: inbox(BOB) }]);
      assertRejected(applyCommit(withImmutableEntries, [update(0xfd01, mixed)], ALICE), 'IMMUTABLE_COMPONENT', 'META-004');
    });
  });

  describe('encodings and type dispatch', () => {
    it('META-010 decodes a scalar Update as the replacement value', () => {
      const r = applyCommit(group, [update(ID.GROUP_NAME, utf8('Kitchen'))], ALICE);
      assertApplied(r);
      assert.deepEqual(r.dictionary.get(ID.GROUP_NAME), utf8('Kitchen'));
    });
    it('META-010 applies a delta to the stored snapshot, or to an empty collection when the component is absent', () => {
      const pre = groupBytes({ definitions: [def(0xc001, 3)] });
      const r = applyCommit(pre, [update(0xc001, delta(SHAPES.mapBytesBytes, [{ type: 'insert', key: utf8('k'), value: utf8('v') }]))], BOB);
      assertApplied(r);
      assert.deepEqual(decodeSnapshot(r.dictionary.get(0xc001) as Uint8Array, SHAPES.mapBytesBytes, 't').map((e) => Buffer.from(e.value).toString()), ['v']);
      const r2 = applyCommit(r.bytes, [update(0xc001, delta(SHAPES.mapBytesBytes, [{ type: 'update', key: utf8('k'), value: utf8('w') }]))], BOB);
      assertApplied(r2);
    });
    it('META-010 rejects an Update payload that does not decode', () => {
      assertRejected(applyCommit(group, [update(ID.ADMIN_LIST, hex('05 00 00'))], ALICE), 'TRUNCATED');
      assertRejected(applyCommit(group, [update(ID.ADMIN_LIST, hex('00 00'))], ALICE), 'TRAILING_BYTES');
    });
    it('META-010 enforces the table limits: string length, UTF-8, exact widths, the version format', () => {
      assertApplied(applyCommit(group, [update(ID.GROUP_NAME, utf8('n'.repeat(100)))], ALICE));
      assertRejected(applyCommit(group, [update(ID.GROUP_NAME, utf8('n'.repeat(101)))], ALICE), 'VALUE_TOO_LONG', 'META-010');
      assertRejected(applyCommit(group, [update(ID.GROUP_DESCRIPTION, hex('c3'))], ALICE), 'UTF8_INVALID');
      assertRejected(applyCommit(group, [update(ID.MESSAGE_DISAPPEAR_IN_NS, hex('00000000000001'))], ALICE), 'VALUE_WRONG_LENGTH');
      assertRejected(applyCommit(group, [update(ID.MIN_SUPPORTED_PROTOCOL_VERSION, utf8('1.02.0'))], ALICE), 'SEMVER_INVALID');
      assertRejected(applyCommit(group, [update(ID.COMMIT_LOG_SIGNER, hex('01'))], ALICE), 'VALUE_WRONG_LENGTH');
    });
    it('META-010 rejects writes to a component whose registry type is unknown or unspecified', () => {
      for (const componentType of [0, 42]) {
        const pre = after(group, [registryInsert(0xc002, appEntry(componentType))]);
        assertRejected(applyCommit(pre, [update(0xc002, utf8('x'))], ALICE), 'UNSUPPORTED_TYPE', 'META-010');
      }
    });
    it('META-010 validates UTF-8 for TLS_MAP_INBOX_ID_STRING in the delta and in the resulting snapshot', () => {
      const mk = (...m: Parameters<typeof delta>[1]) => update(ID.USER_DISPLAY_NAME, delta(SHAPES.mapInboxBytes, m));
      assertApplied(applyCommit(group, [mk({ type: 'insert', key: inbox(ALICE), value: utf8('Alice ✓') })], ALICE));
      assertRejected(applyCommit(group, [mk({ type: 'insert', key: inbox(ALICE), value: hex('ff') })], ALICE), 'UTF8_INVALID');
      // Inserted then deleted: the resulting snapshot is fine, the delta still carried an invalid value.
      assertRejected(
        applyCommit(group, [mk({ type: 'insert', key: inbox(ALICE), value: hex('c0af') }, { type: 'delete', key: inbox(ALICE) })], ALICE),
        'UTF8_INVALID',
      );
      // A stored invalid value fails the resulting snapshot's check even when the delta touches another key.
      const bad = withComponents(group, { [ID.USER_DISPLAY_NAME]: encodeSnapshot([{ key: inbox(BOB), value: hex('ff') }], SHAPES.mapInboxBytes) });
      assertRejected(applyCommit(bad, [mk({ type: 'insert', key: inbox(ALICE), value: utf8('A') })], ALICE), 'UTF8_INVALID');
    });
    it('META-011 rejects an inbox key whose version byte is not 0x00 inside a delta', () => {
      const payload = hex(`22 00 01 ${BOB}`);
      assertRejected(applyCommit(group, [update(ID.SUPER_ADMIN_LIST, payload)], ALICE), 'INBOX_ID_VERSION', 'META-011');
    });
    it('META-012 rejects a delta on a stored snapshot that is not sorted and unique', () => {
      const unsorted = hex(`4042 00 ${CAROL} 00 ${BOB}`);
      const pre = withComponents(group, { [ID.ADMIN_LIST]: unsorted });
      assertRejected(applyCommit(pre, [update(ID.ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(ALICE) }]))], ALICE), 'SNAPSHOT_NOT_CANONICAL', 'META-012');
    });
  });

  describe('delta application', () => {
    it('META-013 rejects the whole commit when a delta fails, applying none of its changes', () => {
      const pre = groupBytes();
      const copy = Buffer.from(pre);
      const failing = delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(BOB) }, { type: 'remove', key: inbox(CAROL) }]);
      const r = applyCommit(pre, [update(ID.GROUP_NAME, utf8('Changed')), update(ID.ADMIN_LIST, failing)], ALICE);
      assertRejected(r, 'DELTA_KEY_ABSENT', 'META-013');
      assert.deepEqual(Buffer.from(pre), copy, 'the pre-commit bytes are unchanged');
      assert.equal(Buffer.from(dict(pre).get(ID.GROUP_NAME) as Uint8Array).toString(), 'Lobby');
    });
    it('META-013 rejects an insert of a present key and a remove_by_hash that matches nothing', () => {
      assertRejected(applyCommit(group, [update(ID.SUPER_ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(ALICE) }]))], ALICE), 'DELTA_INSERT_PRESENT');
      const h = hashKey(inbox(BOB), SHAPES.setInbox);
      assertRejected(applyCommit(group, [update(ID.SUPER_ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'remove_by_hash', hash: h }]))], ALICE), 'DELTA_HASH_UNRESOLVED');
    });
    it('META-013 resolves remove_by_hash in a commit against the snapshot before the delta', () => {
      const pre = after(group, [update(ID.SUPER_ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(BOB) }]))]);
      const r = applyCommit(pre, [update(ID.SUPER_ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'remove_by_hash', hash: hashKey(inbox(BOB), SHAPES.setInbox) }]))], ALICE);
      assertApplied(r);
      assert.deepEqual(r.dictionary.get(ID.SUPER_ADMIN_LIST), setOf(ALICE));
    });
    it('META-064 applies successive Updates of one component to successive snapshots', () => {
      const r = applyCommit(
        group,
        [
          update(ID.ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(BOB) }])),
          update(ID.ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(CAROL) }, { type: 'remove', key: inbox(BOB) }])),
          update(ID.GROUP_NAME, utf8('First')),
          update(ID.GROUP_NAME, utf8('Second')),
        ],
        ALICE,
      );
      assertApplied(r);
      assert.deepEqual(r.dictionary.get(ID.ADMIN_LIST), setOf(CAROL));
      assert.deepEqual(r.changes, [{ fieldName: 'group_name', oldValue: 'Lobby', newValue: 'Second' }]);
      // The second Update is validated on the first one's result: inserting BOB twice fails.
      const twice = update(ID.ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(BOB) }]));
      assertRejected(applyCommit(group, [twice, twice], ALICE), 'DELTA_INSERT_PRESENT');
    });
    it('META-064 keeps authority on the pre-commit state while snapshots advance', () => {
      const two = after(group, [update(ID.SUPER_ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(BOB) }]))]);
      // BOB drops his own super-admin role, then writes an admin-only setting in the same commit.
      const r = applyCommit(
        two,
        [update(ID.SUPER_ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'remove', key: inbox(BOB) }])), update(ID.MESSAGE_DISAPPEAR_IN_NS, hex('0000000000000001'))],
        BOB,
      );
      assertApplied(r);
      // CAROL, made an admin by this very commit, has no authority in it.
      assertRejected(
        applyCommit(group, [update(ID.ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(CAROL) }])), update(ID.MESSAGE_DISAPPEAR_IN_NS, hex('0000000000000001'))], CAROL),
        'NOT_AUTHORIZED',
      );
    });
  });

  describe('registry', () => {
    it('META-014 rejects registry keys below the component space, reserved or hardcoded', () => {
      for (const id of [0x7fff, 0xff00, ID.COMPONENT_REGISTRY, ID.SUPER_ADMIN_LIST]) {
        assertRejected(applyCommit(group, [registryInsert(id, appEntry(2))], ALICE), 'REGISTRY_KEY_FORBIDDEN', 'META-014');
      }
    });
    it('META-014 rejects inserted or updated entries that are not ComponentMetadata with all three policies', () => {
      assertRejected(applyCommit(group, [registryInsert(0xc003, hex('ff'))], ALICE), 'REGISTRY_ENTRY_INVALID', 'META-014');
      assertRejected(applyCommit(group, [registryInsert(0xc003, { componentType: 2 })], ALICE), 'REGISTRY_ENTRY_INVALID');
      const noDelete = { componentType: 2, permissions: { insert: { kind: 'base', base: 1 }, update: { kind: 'base', base: 1 } } } as const;
      assertRejected(applyCommit(group, [registryInsert(0xc003, noDelete)], ALICE), 'REGISTRY_ENTRY_INVALID');
      const upd = registryMutation({ type: 'update', key: componentKey(ID.GROUP_NAME), value: hex('0802') });
      assertRejected(applyCommit(group, [upd], ALICE), 'REGISTRY_ENTRY_INVALID');
    });
    it('META-014 applies PERM-017 validity to the resulting policies, including ADMIN_LIST restriction', () => {
      const badBase = { componentType: 2, permissions: { insert: { kind: 'base', base: 0 }, update: { kind: 'base', base: 1 }, delete: { kind: 'base', base: 1 } } } as const;
      assertRejected(applyCommit(group, [registryInsert(0xc003, badBase)], ALICE), 'POLICY_INVALID', 'PERM-017');
      const emptyAnd = { componentType: 2, permissions: { insert: { kind: 'and', policies: [] }, update: { kind: 'base', base: 1 }, delete: { kind: 'base', base: 1 } } } as const;
      assertRejected(applyCommit(group, [registryInsert(0xc003, emptyAnd)], ALICE), 'POLICY_INVALID');
      const adminAllow = registryMutation({ type: 'update', key: componentKey(ID.ADMIN_LIST), value: encodeComponentMetadata(appEntry(6, 'ALLOW')) });
      assertRejected(applyCommit(group, [adminAllow], ALICE), 'POLICY_INVALID', 'PERM-017');
      const adminOk = registryMutation({ type: 'update', key: componentKey(ID.ADMIN_LIST), value: encodeComponentMetadata(appEntry(6, 'ALLOW_IF_ADMIN')) });
      assertApplied(applyCommit(group, [adminOk], ALICE));
    });
    it('META-015 rejects removing COMPONENT_REGISTRY', () => {
      assertRejected(applyCommit(group, [remove(ID.COMPONENT_REGISTRY)], ALICE), 'REGISTRY_REMOVED', 'META-015');
    });
    it('META-015 rejects an update or delete of an immutable component entry, after its insert', () => {
      const pre = after(group, [registryInsert(0xfd10, appEntry(1))]);
      const upd = registryMutation({ type: 'update', key: componentKey(0xfd10), value: encodeComponentMetadata(appEntry(2)) });
      assertRejected(applyCommit(pre, [upd], ALICE), 'REGISTRY_IMMUTABLE_ENTRY', 'META-015');
      assertRejected(applyCommit(pre, [registryMutation({ type: 'delete', key: componentKey(0xfd10) })], ALICE), 'REGISTRY_IMMUTABLE_ENTRY', 'META-015');
    });
    it('META-016 preserves an undecodable registry entry and one with unknown fields byte for byte', () => {
      const reg = decodeSnapshot(dict(group).get(ID.COMPONENT_REGISTRY) as Uint8Array, SHAPES.registry, 'r');
      const garbage = hex('ffff0102');
      const unknownFields = Buffer.concat([encodeComponentMetadata(appEntry(2)), hex('f80701 a2060161')]);
      const entries = [...reg, { key: componentKey(0xc0aa), value: garbage }, { key: componentKey(0xc0bb), value: new Uint8Array(unknownFields) }].sort((a, b) =>
        Buffer.compare(a.key, b.key),
      );
      const pre = withComponents(group, { [ID.COMPONENT_REGISTRY]: encodeSnapshot(entries, SHAPES.registry) });
      const r = applyCommit(pre, [registryInsert(0xc0cc, appEntry(2))], ALICE);
      assertApplied(r);
      const out = decodeSnapshot(r.dictionary.get(ID.COMPONENT_REGISTRY) as Uint8Array, SHAPES.registry, 'r');
      const find = (id: number) => out.find((e) => Buffer.compare(e.key, componentKey(id)) === 0)?.value;
      assert.deepEqual(find(0xc0aa), garbage);
      assert.deepEqual(Buffer.from(find(0xc0bb) as Uint8Array), unknownFields);
      // The undecodable entry authorizes nothing, and an authorized delta can repair it.
      assertRejected(applyCommit(pre, [update(0xc0aa, utf8('x'))], ALICE), 'NO_REGISTRY_ENTRY', 'PERM-012');
      const repaired = after(pre, [registryMutation({ type: 'update', key: componentKey(0xc0aa), value: encodeComponentMetadata(appEntry(2)) })]);
      assertApplied(applyCommit(repaired, [update(0xc0aa, utf8('x'))], ALICE));
    });
    it('META-068 bounds registry entries as stored and the registry snapshot', () => {
      const big = Buffer.concat([encodeComponentMetadata(appEntry(2)), hex('fa07 8040'), Buffer.alloc(8192)]);
      assertRejected(applyCommit(group, [registryInsert(0xc004, new Uint8Array(big))], ALICE), 'GLOBAL_BOUND_EXCEEDED', 'META-068');
    });
  });

  describe('preservation', () => {
    it('META-017 leaves every untouched component byte-identical, including ones it cannot decode', () => {
      const pre = withComponents(group, { 0x9000: hex('deadbeef'), 0xc123: hex('ff00ff'), [ID.ADMIN_LIST]: hex('4042') });
      const r = applyCommit(pre, [update(ID.GROUP_NAME, utf8('Kitchen'))], ALICE);
      assertApplied(r);
      const before = dict(pre);
      const afterMap = decodeDictionary(r.bytes);
      for (const [id, value] of before) {
        if (id === ID.GROUP_NAME) continue;
        bytesEqualCheck(afterMap.get(id), value, `component 0x${id.toString(16)}`);
      }
      assert.deepEqual(afterMap.get(ID.GROUP_NAME), utf8('Kitchen'));
    });
  });

  describe('authorization', () => {
    it('PERM-010 evaluates the committed policy: a member may not change an admin-only setting', () => {
      assertRejected(applyCommit(group, [update(ID.MESSAGE_DISAPPEAR_IN_NS, hex('0000000000000001'))], BOB), 'NOT_AUTHORIZED', 'PERM-010');
      assertApplied(applyCommit(group, [update(ID.GROUP_NAME, utf8('Any member'))], BOB));
    });
    it('PERM-026 lets only super admins write the registry and the super-admin list', () => {
      assertRejected(applyCommit(group, [registryInsert(0xc005, appEntry(2))], BOB), 'NOT_AUTHORIZED', 'PERM-026');
      assertRejected(applyCommit(group, [update(ID.SUPER_ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(BOB) }]))], BOB), 'NOT_AUTHORIZED');
    });
    it('PERM-012 rejects a write to a component without a registry entry', () => {
      assertRejected(applyCommit(group, [update(0xc0ff, utf8('x'))], ALICE), 'NO_REGISTRY_ENTRY', 'PERM-012');
    });
    it('external committers are denied unless external_committer_permissions allow the action', () => {
      assertRejected(applyCommit(group, [update(ID.GROUP_NAME, utf8('x'))], BOB, { external: true }), 'NOT_AUTHORIZED');
      const p = { kind: 'base', base: 1 } as const;
      const entry = { componentType: 4, permissions: { insert: p, update: p, delete: p }, externalCommitterPermissions: { insert: p } };
      const pre = after(group, [registryMutation({ type: 'update', key: componentKey(ID.GROUP_MEMBERSHIP), value: encodeComponentMetadata(entry) })]);
      const join = update(ID.GROUP_MEMBERSHIP, delta(SHAPES.mapInboxBytes, [{ type: 'insert', key: inbox(BOB), value: hex('0a00') }]));
      assertApplied(applyCommit(pre, [join], BOB, { external: true }));
      const leave = update(ID.GROUP_MEMBERSHIP, delta(SHAPES.mapInboxBytes, [{ type: 'delete', key: inbox(ALICE) }]));
      assertRejected(applyCommit(pre, [leave], BOB, { external: true }), 'NOT_AUTHORIZED');
      assertRejected(applyCommit(group, [registryInsert(0xc005, appEntry(2))], ALICE, { external: true }), 'NOT_AUTHORIZED', 'PERM-026');
    });
    it('in a DM either member may register application fields, but not change well-known entries', () => {
      const dm = dmBytes();
      assertApplied(applyCommit(dm, [registryInsert(0xc006, appEntry(2))], BOB));
      const wk = registryMutation({ type: 'update', key: componentKey(ID.GROUP_NAME), value: encodeComponentMetadata(appEntry(2, 'DENY')) });
      assertRejected(applyCommit(dm, [wk], BOB), 'NOT_AUTHORIZED', 'PERM-026');
      assertRejected(applyCommit(dm, [registryInsert(0xc006, appEntry(2))], CAROL), 'NOT_AUTHORIZED');
    });
    it('PERM-004 rejects a commit that leaves a group without a super admin', () => {
      assertRejected(applyCommit(group, [update(ID.SUPER_ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'remove', key: inbox(ALICE) }]))], ALICE), 'SUPER_ADMINS_EMPTY', 'PERM-004');
    });
  });

  describe('proposal lists and cross-component rules', () => {
    it('GMOD-030 rejects an Update and a Remove, or two Removes, for one component', () => {
      assertRejected(applyCommit(group, [update(ID.GROUP_NAME, utf8('x')), remove(ID.GROUP_NAME)], ALICE), 'PROPOSAL_LIST_INVALID', 'GMOD-030');
      assertRejected(applyCommit(group, [remove(ID.GROUP_NAME), remove(ID.GROUP_NAME)], ALICE), 'PROPOSAL_LIST_INVALID');
    });
    it('rejects a proposal that does not decode, naming where it failed', () => {
      const r = applyCommit(group, [update(ID.GROUP_NAME, utf8('x')), hex('8004')], ALICE);
      assertRejected(r, 'TRUNCATED');
      if (!r.ok) assert.equal(r.error.details?.proposal, 1);
    });
    it('rejects a Remove of an absent component', () => {
      assertRejected(applyCommit(group, [remove(ID.APP_DATA)], ALICE), 'COMPONENT_ABSENT');
    });
    it('META-030 rejects DM_MEMBERS in a conversation that is not a DM, or with other than two entries', () => {
      const pre = after(group, [registryInsert(ID.DM_MEMBERS, appEntry(6))]);
      const pair = delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(ALICE) }, { type: 'insert', key: inbox(BOB) }]);
      assertRejected(applyCommit(pre, [update(ID.DM_MEMBERS, pair)], ALICE), 'DM_PAIR_INVALID', 'META-030');
      const three = delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(ALICE) }, { type: 'insert', key: inbox(BOB) }, { type: 'insert', key: inbox(CAROL) }]);
      assertRejected(applyCommit(pre, [update(ID.DM_MEMBERS, three)], ALICE), 'DM_PAIR_INVALID', 'META-030');
    });
    it('GMOD-026 keeps the version floor monotonic and present', () => {
      assertApplied(applyCommit(group, [update(ID.MIN_SUPPORTED_PROTOCOL_VERSION, utf8('1.10.0'))], ALICE));
      const raised = after(group, [update(ID.MIN_SUPPORTED_PROTOCOL_VERSION, utf8('2.0.0'))]);
      assertRejected(applyCommit(raised, [update(ID.MIN_SUPPORTED_PROTOCOL_VERSION, utf8('1.99.99'))], ALICE), 'VERSION_FLOOR_LOWERED', 'GMOD-026');
      assertRejected(applyCommit(raised, [remove(ID.MIN_SUPPORTED_PROTOCOL_VERSION)], ALICE), 'VERSION_FLOOR_REMOVED');
    });
    it('returns a rejection, not a throw, for a pre-commit dictionary that does not decode', () => {
      assertRejected(applyCommit(hex('08 8005 0101 8004 0102'), [update(ID.GROUP_NAME, utf8('x'))], ALICE), 'DICTIONARY_NOT_CANONICAL');
    });
    it('throws an argument error for an actor that is not an inbox id', () => {
      assert.throws(() => applyCommit(group, [], 'nope'), { code: 'INVALID_INBOX_ID' });
    });
  });

  describe('change records', () => {
    it('META-040 records each changed table field by name, old value absent when the field was absent', () => {
      const r = applyCommit(
        group,
        [
          update(ID.GROUP_NAME, utf8('Kitchen')),
          update(ID.GROUP_DESCRIPTION, utf8('Where we cook')),
          update(ID.MESSAGE_DISAPPEAR_FROM_NS, hex('0000000000000005')),
          update(ID.MESSAGE_DISAPPEAR_IN_NS, hex('fffffffffffffffe')),
          update(ID.COMMIT_LOG_SIGNER, new Uint8Array(32).fill(0xab)),
          update(ID.MIN_SUPPORTED_PROTOCOL_VERSION, utf8('1.1.0')),
          update(ID.APP_DATA, utf8('{"v":1}')),
          update(ID.GROUP_IMAGE_URL, utf8('https://example.test/a.png')),
        ],
        ALICE,
      );
      assertApplied(r);
      assert.deepEqual(r.changes, [
        { fieldName: 'group_name', oldValue: 'Lobby', newValue: 'Kitchen' },
        { fieldName: 'description', newValue: 'Where we cook' },
        { fieldName: 'group_image_url_square', newValue: 'https://example.test/a.png' },
        { fieldName: 'message_disappear_from_ns', newValue: '5' },
        { fieldName: 'message_disappear_in_ns', newValue: '-2' },
        { fieldName: 'app_data', newValue: '{"v":1}' },
        { fieldName: 'minimum_supported_protocol_version', oldValue: '1.0.0', newValue: '1.1.0' },
        { fieldName: '_commit_log_signer', oldValue: '07'.repeat(32), newValue: 'ab'.repeat(32) },
      ]);
    });
    it('META-040 records a removal with the new value absent and nothing for a value left equal', () => {
      const withDesc = after(group, [update(ID.GROUP_DESCRIPTION, utf8('d'))]);
      const r = applyCommit(withDesc, [remove(ID.GROUP_DESCRIPTION), update(ID.GROUP_NAME, utf8('Lobby'))], ALICE);
      assertApplied(r);
      assert.deepEqual(r.changes, [{ fieldName: 'description', oldValue: 'd' }]);
      assert.deepEqual(r.touched, [ID.GROUP_NAME, ID.GROUP_DESCRIPTION]);
      const sameAgain = applyCommit(group, [update(ID.GROUP_NAME, utf8('Other')), update(ID.GROUP_NAME, utf8('Lobby'))], ALICE);
      assertApplied(sameAgain);
      assert.deepEqual(sameAgain.changes, []);
    });
  });

  describe('global bounds', () => {
    const pre = groupBytes({ definitions: [def(0xc010, 1), def(0xc011, 3)] });
    it('META-068 rejects a scalar, a key or a value longer than 8192 bytes for application components and GROUP_IMAGE', () => {
      assertApplied(applyCommit(pre, [update(0xc010, new Uint8Array(8192))], ALICE));
      assertRejected(applyCommit(pre, [update(0xc010, new Uint8Array(8193))], ALICE), 'GLOBAL_BOUND_EXCEEDED', 'META-068');
      assertRejected(applyCommit(pre, [update(ID.GROUP_IMAGE, new Uint8Array(8193))], ALICE), 'GLOBAL_BOUND_EXCEEDED');
      const bigKey = delta(SHAPES.mapBytesBytes, [{ type: 'insert', key: new Uint8Array(8193), value: utf8('v') }]);
      assertRejected(applyCommit(pre, [update(0xc011, bigKey)], ALICE), 'GLOBAL_BOUND_EXCEEDED');
      const bigName = delta(SHAPES.mapInboxBytes, [{ type: 'insert', key: inbox(ALICE), value: utf8('n'.repeat(8193)) }]);
      assertRejected(applyCommit(pre, [update(ID.USER_DISPLAY_NAME, bigName)], ALICE), 'GLOBAL_BOUND_EXCEEDED');
    });
    it('META-068 rejects a collection snapshot longer than 65536 bytes after serialization', () => {
      const m = Array.from({ length: 9 }, (_, i) => ({ type: 'insert' as const, key: utf8(`k${i}`), value: new Uint8Array(8000) }));
      assertRejected(applyCommit(pre, [update(0xc011, delta(SHAPES.mapBytesBytes, m))], ALICE), 'GLOBAL_BOUND_EXCEEDED', 'META-068');
      assertApplied(applyCommit(pre, [update(0xc011, delta(SHAPES.mapBytesBytes, m.slice(0, 8)))], ALICE));
    });
  });
});

