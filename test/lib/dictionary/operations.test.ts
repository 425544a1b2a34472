import assert from 'node:assert/strict';
import { decodeDictionary, dictionaryToJson, ID, parseDictionaryInput, runOperation } from '../../../lib/dictionary';
import { ALICE, BOB, dmBytes, groupBytes } from './fixtures';

describe('lib/dictionary operations and JSON forms', () => {
  const group = groupBytes();

  it('round-trips the JSON form of a dictionary and accepts hex, base64, ids and names', () => {
    const json = dictionaryToJson(decodeDictionary(group));
    assert.equal(json.components.find((c) => c.id === '0x8004')?.name, 'GROUP_NAME');
    assert.equal((runOperation('describe', { dictionary: json }).payload.fields as unknown[]).length, 8);
    const parsed = parseDictionaryInput({ components: [{ id: 'GROUP_NAME', base64: 'aGk=' }, { id: 0x8005, hex: '6869' }] });
    assert.deepEqual([...parsed.keys()], [0x8004, 0x8005]);
    assert.deepEqual(parseDictionaryInput(Buffer.from(group).toString('hex')).get(ID.GROUP_NAME), parseDictionaryInput(group).get(ID.GROUP_NAME));
  });

  it('refuses non-canonical base64, odd hex and repeated ids with INVALID_ARGUMENT', () => {
    assert.throws(() => parseDictionaryInput({ components: [{ id: 'GROUP_NAME', base64: 'aGk' }] }), { code: 'INVALID_ARGUMENT' });
    assert.throws(() => parseDictionaryInput('abc'), { code: 'INVALID_ARGUMENT' });
    assert.throws(() => parseDictionaryInput({ components: [{ id: 1, hex: '' }, { id: '0x0001', hex: '' }] }), { code: 'INVALID_ARGUMENT' });
    assert.throws(() => parseDictionaryInput({ components: [{ id: 'NOT_A_NAME', hex: '' }] }), { code: 'INVALID_ARGUMENT' });
    assert.throws(() => parseDictionaryInput(Buffer.from('0580040268', 'hex')), { code: 'TRUNCATED' });
  });

  it('write on "disappearing" sets both settings, and expiry reads them from the dictionary', () => {
    const w = runOperation('write', { dictionary: group, actor: ALICE, field: 'disappearing', value: { from_ns: '1', in_ns: '1000' } });
    assert.equal(w.proposals?.length, 2);
    const applied = runOperation('apply', { dictionary: group, proposals: w.proposals, actor: ALICE });
    assert.match(applied.summary, /message_disappear_from_ns: \(absent\) → "1"; message_disappear_in_ns: \(absent\) → "1000"/);
    const e = runOperation('expiry', { dictionary: applied.dictionary, sent_at_ns: '5', now_ns: '1005' });
    assert.deepEqual(e.payload, { expiry_ns: '1005', settings: { from_ns: '1', in_ns: '1000', enabled: true }, expired: true });
    const none = runOperation('expiry', { dictionary: applied.dictionary, sent_at_ns: '5', kind: 'membership-change' });
    assert.equal(none.payload.expiry_ns, null);
    assert.throws(() => runOperation('expiry', { sent_at_ns: '9223372036854775808' }), { code: 'INT64_OUT_OF_RANGE' });
  });

  it('validate-welcome reports the DM pair and a hold, and read takes one map key', () => {
    const ok = runOperation('validate-welcome', { dictionary: dmBytes(), joiner: BOB, client_version: '0.9.0' });
    assert.deepEqual(ok.payload.dm_members, [ALICE, BOB]);
    assert.deepEqual(ok.payload.version_floor, { floor: '1.0.0', paused: true, malformed: false });
    assert.match(ok.summary, /held: floor 1\.0\.0/);
    const w = runOperation('write', { dictionary: group, actor: ALICE, field: 'USER_DISPLAY_NAME', key: ALICE, value: 'Alice' });
    const applied = runOperation('apply', { dictionary: group, proposals: w.proposals, actor: ALICE });
    assert.deepEqual(runOperation('read', { dictionary: applied.dictionary, field: 'USER_DISPLAY_NAME', key: ALICE }).payload, { value: 'Alice' });
  });

  it('registers catalogue definitions given as JSON at creation', () => {
    const created = runOperation('create', {
      kind: 'group',
      creator: ALICE,
      definitions: [{ id: '0xC001', name: 'room', component_type: 'COMPONENT_TYPE_STRING', permissions: { insert: 'ALLOW', update: { any: ['ALLOW_IF_ADMIN'] }, delete: 'DENY' }, in_groups: true }],
    });
    const fields = runOperation('describe', { dictionary: created.dictionary, catalogue: [{ id: '0xC001', name: 'room' }] }).payload.fields as Record<string, unknown>[];
    assert.deepEqual(fields.find((f) => f.name === 'room')?.policies, { insert: 'ALLOW', update: { any: ['ALLOW_IF_ADMIN'] }, delete: 'DENY' });
    assert.throws(() => runOperation('create', { kind: 'group', creator: ALICE, definitions: [{ id: 1, name: 'x', component_type: 2, permissions: { insert: 'MAYBE' } }] }), {
      code: 'INVALID_ARGUMENT',
    });
  });
});

describe('lib/dictionary operation summaries', () => {
  it('never prints the commit-log signer in a summary', () => {
    const group = groupBytes();
    const w = runOperation('apply', {
      dictionary: group,
      proposals: [{ component_id: '0x800B', op: 'update', hex: 'ab'.repeat(32) }],
      actor: ALICE,
    });
    assert.equal(w.summary, '_commit_log_signer: changed');
    assert.equal(w.changes?.[0].new_value, 'ab'.repeat(32));
  });
});
