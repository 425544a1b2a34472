import assert from 'node:assert/strict';
import { HubError, mentionsUser, parseMentions } from '../../../lib/hub';
import { outgoingMentions } from '../../../lib/hub/mentions';

describe('mentions', () => {
  it('accepts mention objects, bare user ids and null, and skips the rest without throwing', () => {
    const { mentions, skipped } = parseMentions([
      { kind: 'mention', user_id: 'usr_anne', display: 'Anne' },
      'usr_bob',
      { user_id: 'usr_carl' },
      { kind: 'hashtag', user_id: 'usr_x' },
      42,
      null,
      [],
      { kind: 'mention' },
      '',
    ]);
    assert.deepEqual(mentions, [
      { userId: 'usr_anne', display: 'Anne' },
      { userId: 'usr_bob', display: undefined },
      { userId: 'usr_carl', display: undefined },
    ]);
    assert.equal(skipped, 6);
    assert.deepEqual(parseMentions(null), { mentions: [], skipped: 0 });
    assert.deepEqual(parseMentions({ a: 1 }), { mentions: [], skipped: 1 });
  });

  it('treats "all" as addressing everyone', () => {
    assert.equal(mentionsUser([{ userId: 'all', display: undefined }], 'usr_me'), true);
    assert.equal(mentionsUser([{ userId: 'usr_me', display: undefined }], 'usr_me'), true);
    assert.equal(mentionsUser([{ userId: 'usr_x', display: undefined }], 'usr_me'), false);
  });

  it('emits canonical mention objects on uplink', () => {
    assert.deepEqual(outgoingMentions(['usr_a', { userId: 'usr_b', display: 'B' }]), [
      { kind: 'mention', user_id: 'usr_a' },
      { kind: 'mention', user_id: 'usr_b', display: 'B' },
    ]);
    assert.deepEqual(outgoingMentions(undefined), []);
    assert.throws(() => outgoingMentions([{}]), HubError);
    assert.throws(() => outgoingMentions('usr_a'), HubError);
  });
});
