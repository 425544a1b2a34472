import assert from 'node:assert/strict';
import { enrichFragment } from '../../../lib/media/enrich';

describe('enrichFragment', () => {
  const facts = { width: 640, height: 480, duration: 1500 };

  it('adds only the fields §10.2 gives each kind', () => {
    assert.deepEqual(enrichFragment({ kind: 'image', url: 'u' }, facts), { kind: 'image', url: 'u', width: 640, height: 480 });
    assert.deepEqual(enrichFragment({ kind: 'video', url: 'u' }, facts), { kind: 'video', url: 'u', width: 640, height: 480, duration: 1500 });
    assert.deepEqual(enrichFragment({ kind: 'audio', url: 'u' }, facts), { kind: 'audio', url: 'u', duration: 1500 });
    assert.deepEqual(enrichFragment({ kind: 'file', url: 'u' }, facts), { kind: 'file', url: 'u' });
  });

  it('never overwrites what the hub sent, and leaves the input alone', () => {
    const input = { kind: 'video', url: 'u', width: 1 };
    assert.deepEqual(enrichFragment(input, facts), { kind: 'video', url: 'u', width: 1, height: 480, duration: 1500 });
    assert.deepEqual(input, { kind: 'video', url: 'u', width: 1 });
  });

  it('an unknown kind, even one named like an Object member, is returned unchanged', () => {
    for (const kind of ['sticker', 'constructor', '__proto__', 'toString']) {
      assert.deepEqual(enrichFragment({ kind, url: 'u' }, facts), { kind, url: 'u' });
    }
  });
});
