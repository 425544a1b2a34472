import assert from 'node:assert/strict';
import { jitteredDelay } from '../../lib/backoff';

describe('lib jitteredDelay', () => {
  const curve = { initialMs: 100, maxMs: 5000, factor: 2, jitter: 0.5 };

  it('grows by the factor from the initial delay up to the cap', () => {
    assert.deepEqual([0, 1, 2, 5, 6, 7].map((n) => jitteredDelay(n, curve, 0)), [100, 200, 400, 3200, 5000, 5000]);
  });

  it('takes off at most the jitter fraction, in proportion to the draw', () => {
    assert.equal(jitteredDelay(2, curve, 1), 200);
    assert.equal(jitteredDelay(2, curve, 0.5), 300);
    assert.equal(jitteredDelay(2, { ...curve, jitter: 0 }, 1), 400);
  });

  it('stays finite and capped for absurd attempts and draws', () => {
    for (const attempt of [1e6, Number.MAX_SAFE_INTEGER, Infinity, NaN, -3]) {
      const d = jitteredDelay(attempt, curve, 0);
      assert.ok(Number.isFinite(d) && d >= 100 && d <= 5000, `attempt ${attempt}: ${d}`);
    }
    assert.equal(jitteredDelay(0, curve, NaN), 75, 'a draw that is not a number counts as 0.5');
    assert.equal(jitteredDelay(0, curve, 7), 50, 'a draw above 1 counts as 1');
  });
});
