import assert from 'node:assert/strict';
import { applyCommit, type FieldDefinition, ID, prepareUserDataWrite, readUserData } from '../../../lib/dictionary';
import { ALICE, assertApplied, BOB, CAROL, DAVE, delta, dmBytes, groupBytes, hex, inbox, update, utf8 } from './fixtures';
import { SHAPES } from '../../../lib/dictionary';

const allow = { kind: 'base', base: 1 } as const;
const AVATAR: FieldDefinition = {
  id: 0xc020,
  name: 'avatar',
  componentType: 4,
  permissions: { insert: allow, update: allow, delete: allow },
  inGroups: true,
  inDms: true,
};
const ROOM: FieldDefinition = { ...AVATAR, id: 0xc021, name: 'room', componentType: 2 };
const CATALOGUE = [AVATAR, ROOM];

function commit(pre: Uint8Array, proposals: Uint8Array[], actor = ALICE): Uint8Array {
  const r = applyCommit(pre, proposals, actor);
  assertApplied(r);
  return r.bytes;
}

describe('lib/dictionary user data', () => {
  const base = groupBytes({ definitions: CATALOGUE });
  // BOB joins; ALICE and BOB set display names; BOB sets an avatar.
  const join = update(ID.GROUP_MEMBERSHIP, delta(SHAPES.mapInboxBytes, [{ type: 'insert', key: inbox(BOB), value: hex('0a00') }]));
  const group = commit(base, [join]);
  const named = commit(group, prepareUserDataWrite(group, ALICE, [{ field: 'USER_DISPLAY_NAME', value: 'Alice' }]).map((w) => w.bytes));
  const full = commit(
    named,
    prepareUserDataWrite(named, BOB, [
      { field: 'USER_DISPLAY_NAME', value: 'Bob' },
      { field: 'avatar', value: hex('ff00') },
    ], { catalogue: CATALOGUE }).map((w) => w.bytes),
    BOB,
  );

  it('META-072 selects every user field and the current members when no filters are given', () => {
    const users = readUserData(full, { catalogue: CATALOGUE });
    assert.deepEqual(
      users.map((u) => [u.inboxId, u.values.map((v) => [v.ref.name, v.value])]),
      [
        [ALICE, [['USER_DISPLAY_NAME', { kind: 'string', value: 'Alice' }]]],
        [
          BOB,
          [
            ['USER_DISPLAY_NAME', { kind: 'string', value: 'Bob' }],
            ['avatar', { kind: 'bytes', value: hex('ff00') }],
          ],
        ],
      ],
    );
  });

  it('META-072 returns exactly the supplied fields and inboxes, including former members and inboxes without values', () => {
    const users = readUserData(full, { fields: ['avatar'], inboxIds: [BOB, CAROL, ALICE], catalogue: CATALOGUE });
    assert.deepEqual(users.map((u) => u.inboxId), [BOB, CAROL, ALICE]);
    assert.equal(users[0].values.length, 1);
    assert.deepEqual(users[1].values, []);
    assert.deepEqual(users[2].values, []);
  });

  it('META-072 reads the two DM_MEMBERS inboxes of a DM', () => {
    const dm = dmBytes();
    assert.deepEqual(readUserData(dm).map((u) => u.inboxId), [ALICE, BOB]);
  });

  it('META-072 rejects a field ref that is absent or not a user field', () => {
    assert.throws(() => readUserData(full, { fields: ['room'], catalogue: CATALOGUE }), { code: 'NOT_A_USER_FIELD' });
    assert.throws(() => readUserData(full, { fields: [0xc0ee] }), { code: 'FIELD_NOT_FOUND' });
  });

  it('META-073 writes only the actor own key as an Insert, an Update or a Delete, in one commit', () => {
    const writes = prepareUserDataWrite(full, BOB, [
      { field: 'USER_DISPLAY_NAME', value: 'Robert' },
      { field: 'avatar', value: null },
    ], { catalogue: CATALOGUE });
    assert.equal(writes.length, 2);
    const after = commit(full, writes.map((w) => w.bytes), BOB);
    const users = readUserData(after, { catalogue: CATALOGUE });
    assert.deepEqual(users[1].values, [{ ref: { id: ID.USER_DISPLAY_NAME, name: 'USER_DISPLAY_NAME' }, value: { kind: 'string', value: 'Robert' } }]);
    assert.deepEqual(users[0].values[0].value, { kind: 'string', value: 'Alice' }, "ALICE's value untouched");
  });

  it('META-073 makes no commit for an empty list or for clears of absent keys', () => {
    assert.deepEqual(prepareUserDataWrite(full, CAROL, []), []);
    assert.deepEqual(prepareUserDataWrite(full, CAROL, [{ field: 'USER_DISPLAY_NAME', value: null }]), []);
  });

  it('META-073 rejects an absent field, a non-user field, a repeated field and a value of the wrong type', () => {
    assert.throws(() => prepareUserDataWrite(full, BOB, [{ field: 0xc0ee, value: 'x' }]), { code: 'FIELD_NOT_FOUND' });
    assert.throws(() => prepareUserDataWrite(full, BOB, [{ field: 'room', value: 'x' }], { catalogue: CATALOGUE }), { code: 'NOT_A_USER_FIELD' });
    assert.throws(
      () =>
        prepareUserDataWrite(full, BOB, [
          { field: 'USER_DISPLAY_NAME', value: 'a' },
          { field: 'USER_DISPLAY_NAME', value: 'b' },
        ]),
      { code: 'DUPLICATE_FIELD' },
    );
    assert.throws(() => prepareUserDataWrite(full, BOB, [{ field: 'USER_DISPLAY_NAME', value: utf8('bytes') }]), { code: 'TYPE_MISMATCH' });
    assert.throws(() => prepareUserDataWrite(full, BOB, [{ field: 'avatar', value: 'text' }], { catalogue: CATALOGUE }), { code: 'TYPE_MISMATCH' });
  });

  it('META-073 submits subject to the committed registry policy', () => {
    assert.throws(() => prepareUserDataWrite(full, DAVE, [{ field: 'USER_DISPLAY_NAME', value: 'x' }], { external: true }), { code: 'POLICY_DENIED' });
  });
});
