import assert from 'node:assert/strict';
import { backoffDelay, DEFAULT_BACKOFF, HubError, raisesFloor, resolveBackoffPolicy, type CloseCause } from '../../../lib/hub';

const policy = resolveBackoffPolicy();
const CAUSES: CloseCause[] = ['unreachable', 'no-hello', 'hello-fail', 'takeover', 'lost-session', 'client-closed'];

describe('backoffDelay', () => {
  it('grows exponentially from 1 s and never exceeds 30 s', () => {
    const delays = [0, 1, 2, 3, 4, 5, 6, 10, 100, 5000].map((n) => backoffDelay(n, 'unreachable', policy, 0));
    assert.deepEqual(delays.slice(0, 6), [1000, 2000, 4000, 8000, 16_000, 30_000]);
    for (const d of delays) assert.ok(d <= 30_000);
    assert.equal(backoffDelay(Number.MAX_SAFE_INTEGER, 'no-hello', policy, 0.3) <= 30_000, true);
  });

  it('jitters each delay down by up to half of itself', () => {
    assert.equal(backoffDelay(2, 'hello-fail', policy, 0), 4000);
    assert.equal(backoffDelay(2, 'hello-fail', policy, 0.999999), 2000);
    const spread = new Set(Array.from({ length: 50 }, (_, i) => backoffDelay(3, 'unreachable', policy, i / 50)));
    assert.ok(spread.size > 40, 'different draws give different delays');
  });

  it('raises the floor to 5 s (plus jitter) after a takeover or a lost good session', () => {
    for (const cause of ['takeover', 'lost-session'] as const) {
      assert.equal(raisesFloor(cause), true);
      for (const r of [0, 0.25, 0.5, 0.99]) {
        const d = backoffDelay(0, cause, policy, r);
        assert.ok(d >= 5000 && d <= 7500, `${cause} r=${r}: ${d}`);
      }
      assert.equal(backoffDelay(10, cause, policy, 0), 30_000, 'the cap still holds');
    }
    for (const cause of ['unreachable', 'no-hello', 'hello-fail', 'client-closed'] as const) {
      assert.equal(raisesFloor(cause), false);
      assert.ok(backoffDelay(0, cause, policy, 0.5) < 5000);
    }
  });

  it('is never zero or negative and survives nonsense input, whatever the cause', () => {
    const tiny = resolveBackoffPolicy({ initialMs: 1, maxMs: 1, takeoverFloorMs: 0, jitter: 1 });
    for (const cause of CAUSES) {
      for (const attempt of [-5, 0, Number.NaN, Infinity]) {
        for (const r of [0, 0.999, Number.NaN, -1, 7]) {
          const d = backoffDelay(attempt, cause, policy, r);
          assert.ok(Number.isInteger(d) && d >= 1 && d <= 30_000, `${cause} ${attempt} ${r}: ${d}`);
          assert.ok(backoffDelay(attempt, cause, tiny, r) >= 1);
        }
      }
    }
  });

  it('checks the policy', () => {
    assert.deepEqual(resolveBackoffPolicy({}), { ...DEFAULT_BACKOFF });
    for (const bad of [{ initialMs: 0 }, { maxMs: 10, initialMs: 20 }, { multiplier: 0.5 }, { jitter: 1.5 }, { takeoverFloorMs: 60_000 }]) {
      assert.throws(() => resolveBackoffPolicy(bad), (err: unknown) => err instanceof HubError && err.code === 'BAD_OPTIONS');
    }
  });
});
