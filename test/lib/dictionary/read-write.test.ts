import assert from 'node:assert/strict';
import {
  applyCommit,
  componentKey,
  describeFields,
  encodeComponentMetadata,
  type FieldDefinition,
  findField,
  ID,
  prepareFieldWrite,
  readField,
  readFields,
  readGroupMetadata,
} from '../../../lib/dictionary';
import { readMapKey } from '../../../lib/dictionary/read';
import { ALICE, appEntry, assertApplied, BOB, groupBytes, hex, registryInsert, registryMutation, update, utf8 } from './fixtures';

const allow = { kind: 'base', base: 1 } as const;
const def = (id: number, componentType: number, name: string): FieldDefinition => ({
  id,
  name,
  componentType,
  permissions: { insert: allow, update: allow, delete: allow },
  inGroups: true,
  inDms: true,
});
const CATALOGUE = [def(0xc001, 2, 'room'), def(0xc002, 7, 'pronouns'), def(0xc003, 5, 'tags'), def(0xc004, 1, 'GROUP_NAME')];

function commit(pre: Uint8Array, proposals: Uint8Array[], actor = ALICE): Uint8Array {
  const r = applyCommit(pre, proposals, actor);
  assertApplied(r);
  return r.bytes;
}

describe('lib/dictionary fields, reads and writes', () => {
  const group = groupBytes({ definitions: CATALOGUE });

  it('META-041 presents an absent name, description, image URL or app data as the empty string', () => {
    const bare = groupBytes({ name: undefined });
    assert.deepEqual(readGroupMetadata(bare), { groupName: '', description: '', imageUrl: '', appData: '' });
    assert.deepEqual(readField(bare, 'APP_DATA').value, { kind: 'string', value: '' });
    assert.deepEqual(readGroupMetadata(group).groupName, 'Lobby');
    // A leading U+FEFF is part of the value: two different stored names must not read as one.
    assert.equal(readGroupMetadata(groupBytes({ name: '\uFEFFLobby' })).groupName, '\uFEFFLobby');
  });

  it('META-069 lists application fields with all three policies and the present well-known fields, with shapes', () => {
    const fields = describeFields(group, CATALOGUE);
    const byId = new Map(fields.map((f) => [f.ref.id, f]));
    for (const id of [ID.GROUP_NAME, ID.GROUP_DESCRIPTION, ID.GROUP_IMAGE_URL, ID.GROUP_IMAGE, ID.APP_DATA, ID.USER_DISPLAY_NAME, ID.MESSAGE_DISAPPEAR_FROM_NS, ID.MESSAGE_DISAPPEAR_IN_NS]) {
      assert.ok(byId.has(id), `0x${id.toString(16)} listed`);
    }
    for (const id of [ID.ADMIN_LIST, ID.GROUP_MEMBERSHIP, ID.MIN_SUPPORTED_PROTOCOL_VERSION, ID.COMMIT_LOG_SIGNER]) assert.ok(!byId.has(id));
    assert.deepEqual(byId.get(0xc001)?.ref, { id: 0xc001, name: 'room' });
    assert.deepEqual(byId.get(0xc001)?.shape, { kind: 'string' });
    assert.deepEqual(byId.get(0xc002)?.shape, { kind: 'map', key: 'inbox_id', value: 'string' });
    assert.deepEqual(byId.get(0xc003)?.shape, { kind: 'set', key: 'bytes' });
    assert.deepEqual(byId.get(ID.GROUP_IMAGE)?.shape, { kind: 'bytes' });
    assert.deepEqual(byId.get(ID.MESSAGE_DISAPPEAR_IN_NS)?.policies.update, { kind: 'base', base: 3 });
    assert.equal(byId.get(0xc002)?.isUserField, true);
    assert.equal(byId.get(ID.USER_DISPLAY_NAME)?.isUserField, true);
    assert.equal(byId.get(0xc001)?.isUserField, false);
    assert.equal(byId.get(0xc003)?.isUserField, false);
  });

  it('META-069 lists an application field of an unknown type as Unknown with its raw tag, and skips entries without all policies', () => {
    const pre = commit(group, [registryInsert(0xc0aa, appEntry(42))]);
    const f = describeFields(pre).find((x) => x.ref.id === 0xc0aa);
    assert.deepEqual(f?.shape, { kind: 'unknown', typeTag: 42 });
    assert.equal(f?.ref.name, undefined, 'no catalogue name given');
    const broken = commit(group, [registryMutation({ type: 'update', key: componentKey(ID.GROUP_NAME), value: encodeComponentMetadata(appEntry(2)) })]);
    assert.ok(describeFields(broken).some((x) => x.ref.id === ID.GROUP_NAME));
  });

  it('META-069 finds a field by name, preferring the well-known field over an application one', () => {
    const fields = describeFields(group, CATALOGUE);
    assert.equal(findField(fields, 'GROUP_NAME')?.ref.id, ID.GROUP_NAME);
    assert.equal(findField(fields, 'room')?.ref.id, 0xc001);
    assert.equal(findField(fields, 'nothing'), undefined);
  });

  it('META-070 reads one field, a batch in request order and one key of a map, typed', () => {
    const withData = commit(group, [
      prepareFieldWrite(group, 'room', { op: 'set', value: 'kitchen' }, ALICE, { catalogue: CATALOGUE }).bytes,
      prepareFieldWrite(group, 'pronouns', { op: 'put', key: BOB, value: 'they' }, ALICE, { catalogue: CATALOGUE }).bytes,
      update(ID.GROUP_IMAGE, hex('89504e47')),
    ]);
    const batch = readFields(withData, ['GROUP_IMAGE', 'room', 0xc002, '0x8004'], { catalogue: CATALOGUE });
    assert.deepEqual(
      batch.map((b) => b.ref.id),
      [ID.GROUP_IMAGE, 0xc001, 0xc002, ID.GROUP_NAME],
    );
    assert.deepEqual(batch[0].value, { kind: 'bytes', value: hex('89504e47') });
    assert.deepEqual(batch[1].value, { kind: 'string', value: 'kitchen' });
    assert.deepEqual(batch[2].value, { kind: 'map', entries: [{ key: BOB, value: { kind: 'string', value: 'they' } }] });
    assert.deepEqual(readMapKey(withData, 'pronouns', BOB, { catalogue: CATALOGUE }), { kind: 'string', value: 'they' });
    assert.equal(readMapKey(withData, 'pronouns', ALICE, { catalogue: CATALOGUE }), undefined);
    assert.throws(() => readField(withData, 'MIN_SUPPORTED_PROTOCOL_VERSION'), { code: 'FIELD_NOT_FOUND' });
    assert.throws(() => readMapKey(withData, 'room', BOB, { catalogue: CATALOGUE }), { code: 'NOT_A_MAP' });
  });

  it('META-071 writes a listed field under its type, accepting strings for STRING values and bytes for byte types', () => {
    const w = prepareFieldWrite(group, 'GROUP_NAME', { op: 'set', value: 'Kitchen' }, BOB);
    assert.deepEqual(Buffer.from(w.bytes), Buffer.concat([hex('8004 01 07'), Buffer.from('Kitchen')]));
    const r = applyCommit(group, [w.bytes], BOB);
    assertApplied(r);
    assert.deepEqual(r.changes, [{ fieldName: 'group_name', oldValue: 'Lobby', newValue: 'Kitchen' }]);
    assert.throws(() => prepareFieldWrite(group, 'GROUP_NAME', { op: 'set', value: utf8('bytes') }, BOB), { code: 'TYPE_MISMATCH' });
    assert.throws(() => prepareFieldWrite(group, 'GROUP_IMAGE', { op: 'set', value: 'text' }, BOB), { code: 'TYPE_MISMATCH' });
    assert.throws(() => prepareFieldWrite(group, 'pronouns', { op: 'put', key: BOB, value: utf8('x') }, BOB, { catalogue: CATALOGUE }), { code: 'TYPE_MISMATCH' });
    assert.throws(() => prepareFieldWrite(group, 'GROUP_NAME', { op: 'put', key: BOB, value: 'x' }, BOB), { code: 'TYPE_MISMATCH' });
  });

  it('META-071 reports a missing entry, an unsupported type and a denied policy without using a backend snapshot', () => {
    assert.throws(() => prepareFieldWrite(group, 'not_registered', { op: 'set', value: 'x' }, ALICE, { catalogue: [def(0xc0ff, 2, 'not_registered')] }), {
      code: 'FIELD_NOT_FOUND',
    });
    const unknown = commit(group, [registryInsert(0xc0aa, appEntry(42))]);
    assert.throws(() => prepareFieldWrite(unknown, 0xc0aa, { op: 'set', value: 'x' }, ALICE), { code: 'UNSUPPORTED_TYPE' });
    assert.throws(() => prepareFieldWrite(group, 'MESSAGE_DISAPPEAR_IN_NS', { op: 'set', value: hex('0000000000000001') }, BOB), { code: 'POLICY_DENIED' });
    // The committed policy wins over the catalogue's: DENY in the group, ALLOW in the backend copy.
    const denied = commit(group, [registryMutation({ type: 'update', key: componentKey(0xc001), value: encodeComponentMetadata(appEntry(2, 'DENY')) })]);
    assert.throws(() => prepareFieldWrite(denied, 'room', { op: 'set', value: 'x' }, ALICE, { catalogue: CATALOGUE }), { code: 'POLICY_DENIED' });
    assert.throws(() => prepareFieldWrite(group, 'GROUP_NAME', { op: 'set', value: 'x'.repeat(101) }, ALICE), { code: 'COMMIT_REJECTED' });
  });

  it('META-071 writes set and map keys and removes scalars', () => {
    const tags = prepareFieldWrite(group, 'tags', { op: 'add', key: utf8('blue') }, ALICE, { catalogue: CATALOGUE });
    const withTag = commit(group, [tags.bytes]);
    assert.throws(() => prepareFieldWrite(withTag, 'tags', { op: 'add', key: utf8('blue') }, ALICE, { catalogue: CATALOGUE }), { code: 'KEY_PRESENT' });
    const del = prepareFieldWrite(withTag, 'tags', { op: 'delete', key: utf8('blue') }, ALICE, { catalogue: CATALOGUE });
    assert.deepEqual(readField(commit(withTag, [del.bytes]), 'tags', { catalogue: CATALOGUE }).value, { kind: 'set', keys: [] });
    const rm = prepareFieldWrite(group, 'GROUP_NAME', { op: 'remove' }, ALICE);
    assert.deepEqual(readField(commit(group, [rm.bytes]), 'GROUP_NAME').value, { kind: 'string', value: '' });
    assert.throws(() => prepareFieldWrite(group, 'GROUP_DESCRIPTION', { op: 'remove' }, ALICE), { code: 'COMPONENT_ABSENT' });
  });

  it('META-065 prepares an APP_DATA write only when the guard equals the committed value', () => {
    const withData = commit(group, [update(ID.APP_DATA, utf8('{"n":1}'))]);
    assert.ok(prepareFieldWrite(withData, 'APP_DATA', { op: 'set', value: '{"n":2}' }, ALICE, { expectedAppData: '{"n":1}' }));
    assert.throws(() => prepareFieldWrite(withData, 'APP_DATA', { op: 'set', value: '{"n":2}' }, ALICE, { expectedAppData: '{"n":0}' }), {
      code: 'APP_DATA_GUARD_MISMATCH',
    });
  });

  it('META-065 treats an absent APP_DATA as equal to no expected value, not even the empty string', () => {
    assert.throws(() => prepareFieldWrite(group, 'APP_DATA', { op: 'set', value: 'x' }, ALICE, { expectedAppData: '' }), { code: 'APP_DATA_GUARD_MISMATCH' });
    const empty = commit(group, [update(ID.APP_DATA, utf8(''))]);
    assert.ok(prepareFieldWrite(empty, 'APP_DATA', { op: 'set', value: 'x' }, ALICE, { expectedAppData: '' }));
  });
});
