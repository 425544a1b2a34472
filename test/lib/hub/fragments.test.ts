import assert from 'node:assert/strict';
import { HubError, joinText, parseFragments } from '../../../lib/hub';
import { checkOutgoingFragments } from '../../../lib/hub/fragments';

describe('fragments', () => {
  it('keeps unknown kinds, marked unsupported, and skips non-objects', () => {
    const { fragments, skipped } = parseFragments([
      { kind: 'text', text: 'hi ' },
      { kind: 'approval_request', text: 'Approve?', options: ['a'] },
      'junk',
      null,
      { kind: 'image', url: 'https://x/y.png', width: 3, height: 'tall' },
      {},
    ]);
    assert.equal(skipped, 2);
    assert.deepEqual(
      fragments.map((f) => [f.kind, f.supported]),
      [
        ['text', true],
        ['approval_request', false],
        ['image', true],
        ['', false],
      ],
    );
    assert.equal(fragments[2].height, undefined);
    assert.equal(fragments[2].width, 3);
    assert.equal((fragments[1] as unknown as Record<string, unknown>).options, undefined);
  });

  it('joins text, mentions and the text of unknown kinds, never media', () => {
    const { fragments } = parseFragments([
      { kind: 'text', text: 'hello ' },
      { kind: 'mention', user_id: 'usr_b', display: 'Bob' },
      { kind: 'image', url: 'u', text: 'ignored' },
      { kind: 'card', text: '!' },
    ]);
    assert.equal(joinText(fragments), 'hello @Bob!');
    assert.deepEqual(parseFragments('x'), { fragments: [], skipped: 1 });
    assert.deepEqual(parseFragments(null), { fragments: [], skipped: 0 });
  });

  it('checks outgoing fragments', () => {
    assert.deepEqual(checkOutgoingFragments([{ kind: 'text', text: 'a', extra: 1 }]), [{ kind: 'text', text: 'a' }]);
    for (const bad of [[], 'x', [1], [{ text: 'a' }], [{ kind: 'text' }], [{ kind: 'image' }], [{ kind: 'text', text: 'a', delta: 'a' }]]) {
      assert.throws(() => checkOutgoingFragments(bad), (err: unknown) => err instanceof HubError && err.code === 'BAD_ARGUMENT');
    }
  });
});
