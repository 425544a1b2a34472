import { strict as assert } from 'node:assert';
import {
  DATA_PLANE_PREFIXES,
  INTERNAL_PREFIXES,
  isGatedControlContent,
  isInternalContent,
  isRelayAnswerContent,
  RELAY_ANSWER_PREFIXES,
} from '../../../lib/mesh/control-prefixes';

describe('control-prefixes', () => {
  it('lists the 30 internal prefixes plus __SVC_ and its four service prefixes', () => {
    assert.equal(INTERNAL_PREFIXES.length, 36);
    assert.equal(new Set(INTERNAL_PREFIXES).size, 36);
    for (const p of ['__MLS_KEY_PKG__', '__RICH_V1__', '__DATA_V1__', '__GRP_RENAME__', '__READ_RECEIPT__', '__CUSTODY_RECEIPT__', '__SVC_', '__SVC_RESP__']) {
      assert.ok(INTERNAL_PREFIXES.includes(p as (typeof INTERNAL_PREFIXES)[number]), p);
    }
  });

  it('matches by startsWith, so the bare __SVC_ reserves every name under it', () => {
    assert.ok(isInternalContent('__SVC_ANYTHING_NEW__payload'));
    assert.ok(isInternalContent('__TYPING__'));
    assert.ok(!isInternalContent('hello __TYPING__'));
    assert.ok(!isInternalContent('__TYPING'));
  });

  it('gates every internal prefix except __MLS_ENC__ and __GROUP_MSG__', () => {
    assert.deepEqual([...DATA_PLANE_PREFIXES], ['__MLS_ENC__', '__GROUP_MSG__']);
    for (const p of INTERNAL_PREFIXES) {
      const dataPlane = p === '__MLS_ENC__' || p === '__GROUP_MSG__';
      assert.equal(isGatedControlContent(p + 'body'), !dataPlane, p);
    }
    assert.ok(isGatedControlContent('__MLS_ENC_CONFIRM__x'), '__MLS_ENC_CONFIRM__ is not under __MLS_ENC__');
    assert.ok(!isGatedControlContent('plain text'));
  });

  it('names six relay answers, all internal, none data-plane', () => {
    assert.deepEqual(
      [...RELAY_ANSWER_PREFIXES],
      ['__GROUP_CREATED__', '__GROUP_MEMBER_ADDED__', '__GROUP_MEMBER_REMOVED__', '__GROUP_INFO__', '__USER_GROUPS__', '__GROUP_ERROR__'],
    );
    for (const p of RELAY_ANSWER_PREFIXES) {
      assert.ok(isGatedControlContent(p), p);
      assert.ok(isRelayAnswerContent(p + '{}'), p);
    }
    assert.ok(!isRelayAnswerContent('__GROUP_MSG__{}'));
  });
});
