import assert from 'node:assert/strict';
import { Backoff } from '../../../gateway/radios/backoff';

describe('gateway/radios Backoff', () => {
  it('doubles from the initial delay up to the cap and starts over after reset', () => {
    const b = new Backoff({ initialMs: 100, maxMs: 1000, random: () => 0 });
    assert.deepEqual([b.next(), b.next(), b.next(), b.next(), b.next(), b.next()], [100, 200, 400, 800, 1000, 1000]);
    assert.equal(b.attempt, 6);
    b.reset();
    assert.equal(b.next(), 100);
  });

  it('draws jitter below the nominal delay, never above', () => {
    const top = new Backoff({ initialMs: 1000, maxMs: 1000, jitter: 0.5, random: () => 0.999999 });
    assert.equal(top.next(), 500);
    const values = new Set<number>();
    const b = new Backoff({ initialMs: 1000, maxMs: 1000 });
    for (let i = 0; i < 50; i++) {
      const v = b.next();
      assert.ok(v >= 800 && v <= 1000, String(v));
      values.add(v);
    }
    assert.ok(values.size > 1, 'jittered');
  });

  it('does not overflow after very many attempts', () => {
    const b = new Backoff({ initialMs: 10, maxMs: 60_000, random: () => 0 });
    for (let i = 0; i < 10_000; i++) b.next();
    assert.equal(b.next(), 60_000);
  });
});
