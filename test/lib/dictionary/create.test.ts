import assert from 'node:assert/strict';
import {
  applyCommit,
  componentIdOfKey,
  createConversation,
  decodeComponentMetadata,
  decodeDictionary,
  decodeMembershipEntry,
  decodeSnapshot,
  encodeSnapshot,
  encodeDictionary,
  type FieldDefinition,
  ID,
  inboxIdToText,
  missingFieldRegistrations,
  requiredCapabilities,
  SHAPES,
  validateWelcome,
  componentKey,
} from '../../../lib/dictionary';
import { ALICE, assertApplied, BOB, CAROL, dmBytes, groupBytes, hex, SIGNER } from './fixtures';

const p = (base: number) => ({ kind: 'base', base }) as const;
const field = (id: number, extra: Partial<FieldDefinition> = {}): FieldDefinition => ({
  id,
  name: `field_${id.toString(16)}`,
  componentType: 2,
  permissions: { insert: p(1), update: p(1), delete: p(3) },
  inGroups: true,
  inDms: false,
  ...extra,
});

function registryIds(bytes: Uint8Array): number[] {
  return decodeSnapshot(decodeDictionary(bytes).get(ID.COMPONENT_REGISTRY) as Uint8Array, SHAPES.registry, 'r').map((e) => componentIdOfKey(e.key));
}

describe('lib/dictionary creation', () => {
  it('META-002 lists app_data_dictionary (0x0006) and app_data_update (0x0008) in RequiredCapabilities', () => {
    const created = createConversation({ kind: 'group', creator: ALICE, commitLogSigner: SIGNER });
    assert.deepEqual(created.requiredCapabilities.extensionTypes, [0x0006]);
    assert.deepEqual(created.requiredCapabilities.proposalTypes, [0x0008]);
    // extension_types<V> = 02 0006, proposal_types<V> = 02 0008, credential_types<V> = 00
    assert.deepEqual(created.requiredCapabilities.bytes, hex('02 0006 02 0008 00'));
    const merged = requiredCapabilities({ extensionTypes: [0xff01, 0x0006], credentialTypes: [1] });
    assert.deepEqual(merged.bytes, hex('04 0006 ff01 02 0008 02 0001'));
  });

  it('META-018 populates the epoch-0 group with the required components and the creator as its own inbox', () => {
    const created = createConversation({ kind: 'group', creator: ALICE, commitLogSigner: SIGNER });
    const d = created.dictionary;
    for (const id of [
      ID.COMPONENT_REGISTRY,
      ID.SUPER_ADMIN_LIST,
      ID.ADMIN_LIST,
      ID.GROUP_MEMBERSHIP,
      ID.MIN_SUPPORTED_PROTOCOL_VERSION,
      ID.CONVERSATION_TYPE,
      ID.CREATOR_INBOX_ID,
    ]) {
      assert.ok(d.has(id), `0x${id.toString(16)} present`);
    }
    assert.deepEqual(d.get(ID.CREATOR_INBOX_ID), hex(`00${ALICE}`));
    assert.deepEqual(d.get(ID.CONVERSATION_TYPE), hex('00000001'));
    assert.deepEqual(decodeSnapshot(d.get(ID.SUPER_ADMIN_LIST) as Uint8Array, SHAPES.setInbox, 's').map((e) => inboxIdToText(e.key)), [ALICE]);
    assert.deepEqual(d.get(ID.ADMIN_LIST), hex('00'));
    const members = decodeSnapshot(d.get(ID.GROUP_MEMBERSHIP) as Uint8Array, SHAPES.mapInboxBytes, 'm');
    assert.deepEqual(members.map((e) => inboxIdToText(e.key)), [ALICE]);
    assert.deepEqual(decodeMembershipEntry(members[0].value).v1?.sequenceId, 0n);
    assert.deepEqual(d.get(ID.COMMIT_LOG_SIGNER), SIGNER);
    assert.equal(Buffer.from(d.get(ID.MIN_SUPPORTED_PROTOCOL_VERSION) as Uint8Array).toString(), '1.0.0');
  });

  it('META-018 includes each supplied optional value and omits each unsupplied one', () => {
    const bare = createConversation({ kind: 'group', creator: ALICE, commitLogSigner: SIGNER }).dictionary;
    for (const id of [ID.GROUP_NAME, ID.GROUP_DESCRIPTION, ID.GROUP_IMAGE_URL, ID.APP_DATA, ID.MESSAGE_DISAPPEAR_FROM_NS, ID.MESSAGE_DISAPPEAR_IN_NS]) {
      assert.equal(bare.has(id), false);
    }
    const full = createConversation({
      kind: 'group',
      creator: ALICE,
      name: 'Kitchen',
      description: 'd',
      imageUrl: 'https://example.test/i.png',
      appData: '{}',
      disappearing: { fromNs: 1n, inNs: 3_600_000_000_000n },
      minSupportedProtocolVersion: '1.4.0',
      commitLogSigner: SIGNER,
    }).dictionary;
    assert.equal(Buffer.from(full.get(ID.GROUP_NAME) as Uint8Array).toString(), 'Kitchen');
    assert.equal(Buffer.from(full.get(ID.APP_DATA) as Uint8Array).toString(), '{}');
    assert.deepEqual(full.get(ID.MESSAGE_DISAPPEAR_IN_NS), hex('0000034630b8a000'));
    assert.equal(Buffer.from(full.get(ID.MIN_SUPPORTED_PROTOCOL_VERSION) as Uint8Array).toString(), '1.4.0');
  });

  it('META-018 generates a fresh 32-byte commit-log signer when none is given, and omits it for null', () => {
    const a = createConversation({ kind: 'group', creator: ALICE }).dictionary.get(ID.COMMIT_LOG_SIGNER);
    const b = createConversation({ kind: 'group', creator: ALICE }).dictionary.get(ID.COMMIT_LOG_SIGNER);
    assert.equal(a?.length, 32);
    assert.notDeepEqual(a, b);
    assert.equal(createConversation({ kind: 'group', creator: ALICE, commitLogSigner: null }).dictionary.has(ID.COMMIT_LOG_SIGNER), false);
  });

  it('META-018 rejects supplied values the table forbids instead of writing them', () => {
    assert.throws(() => createConversation({ kind: 'group', creator: ALICE, name: 'n'.repeat(101) }), { code: 'VALUE_TOO_LONG' });
    assert.throws(() => createConversation({ kind: 'group', creator: ALICE, minSupportedProtocolVersion: 'v2' }), { code: 'SEMVER_INVALID' });
    assert.throws(() => createConversation({ kind: 'group', creator: ALICE, disappearing: { fromNs: 2n ** 63n, inNs: 1n } }), { code: 'INT64_OUT_OF_RANGE' });
  });

  it('META-018 creates a DM with its pair, no roles, and both members', () => {
    const d = decodeDictionary(dmBytes());
    assert.deepEqual(d.get(ID.CONVERSATION_TYPE), hex('00000002'));
    assert.deepEqual(decodeSnapshot(d.get(ID.DM_MEMBERS) as Uint8Array, SHAPES.setInbox, 'p').map((e) => inboxIdToText(e.key)), [ALICE, BOB]);
    assert.deepEqual(d.get(ID.SUPER_ADMIN_LIST), hex('00'));
    assert.equal(decodeSnapshot(d.get(ID.GROUP_MEMBERSHIP) as Uint8Array, SHAPES.mapInboxBytes, 'm').length, 2);
    assert.throws(() => createConversation({ kind: 'dm', creator: ALICE }), { code: 'INVALID_ARGUMENT' });
    assert.throws(() => createConversation({ kind: 'dm', creator: ALICE, dmPeer: ALICE }), { code: 'INVALID_ARGUMENT' });
    assert.throws(() => createConversation({ kind: 'group', creator: ALICE, dmPeer: BOB }), { code: 'INVALID_ARGUMENT' });
  });

  it('META-066 registers eligible catalogue fields, USER_DISPLAY_NAME and GROUP_IMAGE for a group, all values absent', () => {
    const defs = [
      field(0xc001),
      field(0xc002, { inGroups: false, inDms: true }),
      field(0xc003, { componentType: 99 }),
      field(0xc004, { permissions: { insert: p(1), update: p(1), delete: p(0) } }),
      field(0x8100),
    ];
    const bytes = groupBytes({ definitions: defs });
    const ids = registryIds(bytes);
    assert.ok(ids.includes(0xc001));
    assert.ok(!ids.includes(0xc002), 'not for groups');
    assert.ok(!ids.includes(0xc003), 'unsupported type');
    assert.ok(!ids.includes(0xc004), 'unsupported policy tag');
    assert.ok(!ids.includes(0x8100), 'not an application id');
    assert.ok(ids.includes(ID.USER_DISPLAY_NAME) && ids.includes(ID.GROUP_IMAGE));
    const d = decodeDictionary(bytes);
    for (const id of [0xc001, ID.USER_DISPLAY_NAME, ID.GROUP_IMAGE]) assert.equal(d.has(id), false);
    const entry = decodeSnapshot(d.get(ID.COMPONENT_REGISTRY) as Uint8Array, SHAPES.registry, 'r').find((e) => componentIdOfKey(e.key) === 0xc001);
    assert.deepEqual(decodeComponentMetadata(entry?.value as Uint8Array), { componentType: 2, permissions: defs[0].permissions });
  });

  it('META-066 registers USER_DISPLAY_NAME but not GROUP_IMAGE for a DM, and DM-eligible fields only', () => {
    const ids = registryIds(dmBytes({ definitions: [field(0xc001), field(0xc002, { inDms: true })] }));
    assert.ok(ids.includes(ID.USER_DISPLAY_NAME));
    assert.ok(!ids.includes(ID.GROUP_IMAGE));
    assert.ok(ids.includes(0xc002) && !ids.includes(0xc001));
  });

  it('META-066 gives a sync group none of the user-field or catalogue entries', () => {
    const bytes = createConversation({ kind: 'sync', creator: ALICE, commitLogSigner: SIGNER, definitions: [field(0xc001, { inDms: true })] }).bytes;
    const ids = registryIds(bytes);
    assert.ok(!ids.includes(ID.USER_DISPLAY_NAME) && !ids.includes(ID.GROUP_IMAGE) && !ids.includes(0xc001));
    assert.deepEqual(decodeDictionary(bytes).get(ID.CONVERSATION_TYPE), hex('00000003'));
  });

  it('creates dictionaries a joiner accepts', () => {
    for (const bytes of [groupBytes(), dmBytes(), createConversation({ kind: 'sync', creator: ALICE }).bytes]) assert.equal(validateWelcome(bytes).ok, true);
  });

  describe('META-067 registration of missing fields', () => {
    const defs = [field(0xc001), field(0xc002)];
    it('META-067 inserts each eligible definition whose id has no raw key, in one registry Update the commit can carry', () => {
      const pre = groupBytes({ definitions: [defs[0]] });
      const reg = missingFieldRegistrations(pre, defs, ALICE);
      assert.ok(reg);
      const r = applyCommit(pre, [reg], ALICE);
      assertApplied(r);
      assert.ok(registryIds(r.bytes).includes(0xc002));
      assert.equal(missingFieldRegistrations(r.bytes, defs, ALICE), undefined, 'nothing left to register');
    });
    it('META-067 never overwrites a present raw entry, even an unreadable one, with the backend copy', () => {
      const base = decodeDictionary(groupBytes());
      const reg = decodeSnapshot(base.get(ID.COMPONENT_REGISTRY) as Uint8Array, SHAPES.registry, 'r');
      reg.push({ key: componentKey(0xc001), value: hex('ffff') });
      reg.sort((a, b) => Buffer.compare(a.key, b.key));
      base.set(ID.COMPONENT_REGISTRY, encodeSnapshot(reg, SHAPES.registry));
      const pre = encodeDictionary(base);
      const update = missingFieldRegistrations(pre, defs, ALICE);
      assert.ok(update && update.op === 'update');
      const r = applyCommit(pre, [update], ALICE);
      assertApplied(r);
      const out = decodeSnapshot(r.dictionary.get(ID.COMPONENT_REGISTRY) as Uint8Array, SHAPES.registry, 'r');
      assert.deepEqual(out.find((e) => componentIdOfKey(e.key) === 0xc001)?.value, hex('ffff'));
      assert.ok(out.some((e) => componentIdOfKey(e.key) === 0xc002));
    });
    it('META-067 registers nothing without registry authority (PERM-026)', () => {
      assert.equal(missingFieldRegistrations(groupBytes(), defs, BOB), undefined);
      assert.equal(missingFieldRegistrations(groupBytes(), defs, CAROL, { external: true }), undefined);
    });
  });
});
