import assert from 'node:assert/strict';
import { decodeDictionary, encodeDictionary, ID, validateWelcome, type WelcomeResult } from '../../../lib/dictionary';
import { ALICE, BOB, CAROL, dmBytes, groupBytes, hex } from './fixtures';

function without(bytes: Uint8Array, id: number): Uint8Array {
  const m = decodeDictionary(bytes);
  m.delete(id);
  return encodeDictionary(m);
}

function replaced(bytes: Uint8Array, id: number, value: Uint8Array): Uint8Array {
  const m = decodeDictionary(bytes);
  m.set(id, value);
  return encodeDictionary(m);
}

function reason(r: WelcomeResult): string {
  if (r.ok) assert.fail('expected the Welcome to be rejected');
  assert.equal(r.error.code, 'WELCOME_REJECTED');
  return r.error.reason;
}

describe('lib/dictionary Welcome checks', () => {
  it('accepts a created group and reports its identity', () => {
    const r = validateWelcome(groupBytes());
    assert.ok(r.ok);
    assert.equal(r.conversationType, 1);
    assert.equal(r.creator, ALICE);
  });
  it('META-019 rejects a Welcome without a dictionary', () => {
    assert.equal(reason(validateWelcome(undefined)), 'NO_DICTIONARY');
  });
  it('META-019 rejects a dictionary that lacks COMPONENT_REGISTRY, CONVERSATION_TYPE or CREATOR_INBOX_ID', () => {
    for (const id of [ID.COMPONENT_REGISTRY, ID.CONVERSATION_TYPE, ID.CREATOR_INBOX_ID]) {
      const r = validateWelcome(without(groupBytes(), id));
      assert.equal(reason(r), 'MISSING_IDENTITY');
      if (!r.ok) assert.equal(r.error.rule, 'META-019');
    }
  });
  it('META-019 rejects identity components that do not decode under the table', () => {
    assert.equal(reason(validateWelcome(replaced(groupBytes(), ID.CONVERSATION_TYPE, hex('00000000')))), 'CONVERSATION_TYPE_INVALID');
    assert.equal(reason(validateWelcome(replaced(groupBytes(), ID.CONVERSATION_TYPE, hex('000005')))), 'VALUE_WRONG_LENGTH');
    assert.equal(reason(validateWelcome(replaced(groupBytes(), ID.CREATOR_INBOX_ID, hex(`01${ALICE}`)))), 'INBOX_ID_VERSION');
    assert.equal(reason(validateWelcome(replaced(groupBytes(), ID.COMPONENT_REGISTRY, hex('0a 80008004 00 80008002 00')))), 'SNAPSHOT_NOT_CANONICAL');
    assert.equal(reason(validateWelcome(hex('0102'))), 'TRUNCATED');
  });
  it('META-019 accepts a registry whose entries it cannot decode (only the map must decode)', () => {
    assert.equal(validateWelcome(replaced(groupBytes(), ID.COMPONENT_REGISTRY, hex('07 8000c001 02 ffff'))).ok, true);
  });
  it('META-030 accepts a DM whose pair is exactly two inbox ids and reports it', () => {
    const r = validateWelcome(dmBytes(), { joiner: BOB });
    assert.ok(r.ok);
    assert.deepEqual(r.dmMembers, [ALICE, BOB]);
  });
  it('META-030 rejects DM_MEMBERS of one or three entries', () => {
    assert.equal(reason(validateWelcome(replaced(dmBytes(), ID.DM_MEMBERS, hex(`21 00${ALICE}`)))), 'DM_PAIR_INVALID');
    const three = hex(`4063 00${ALICE} 00${BOB} 00${CAROL}`);
    assert.equal(reason(validateWelcome(replaced(dmBytes(), ID.DM_MEMBERS, three))), 'DM_PAIR_INVALID');
  });
  it('META-030 rejects DM_MEMBERS in a conversation that is not a DM', () => {
    const pair = decodeDictionary(dmBytes()).get(ID.DM_MEMBERS) as Uint8Array;
    const r = validateWelcome(replaced(groupBytes(), ID.DM_MEMBERS, pair));
    assert.equal(reason(r), 'DM_PAIR_INVALID');
    if (!r.ok) assert.equal(r.error.rule, 'META-030');
  });
  it('rejects a DM without its pair and a joiner outside the pair', () => {
    assert.equal(reason(validateWelcome(without(dmBytes(), ID.DM_MEMBERS))), 'DM_PAIR_MISSING');
    assert.equal(reason(validateWelcome(dmBytes(), { joiner: CAROL })), 'JOINER_NOT_IN_PAIR');
  });
  it('reports a version-floor hold instead of rejecting (JOIN-057)', () => {
    const r = validateWelcome(groupBytes({ minSupportedProtocolVersion: '2.0.0' }), { clientVersion: '1.9.9' });
    assert.ok(r.ok);
    assert.deepEqual(r.versionFloor, { floor: '2.0.0', paused: true, malformed: false });
  });
});
