import assert from 'node:assert/strict';
import { backoffDelay, parseRetryAfter, resolveRetry, sleep } from '../../../lib/media/retry';

describe('retry policy', () => {
  it('defaults to two retries from 500 ms, capped at 10 s, and can be switched off', () => {
    assert.deepEqual(resolveRetry(undefined), { retries: 2, baseDelayMs: 500, maxDelayMs: 10_000 });
    assert.equal(resolveRetry(false).retries, 0);
    assert.deepEqual(resolveRetry({ retries: 5 }), { retries: 5, baseDelayMs: 500, maxDelayMs: 10_000 });
    assert.throws(() => resolveRetry({ retries: -1 }), { code: 'BAD_OPTIONS' });
    assert.throws(() => resolveRetry({ baseDelayMs: 1.5 }), { code: 'BAD_OPTIONS' });
  });

  it('doubles per retry within the upper half of each step, up to the cap', () => {
    const policy = resolveRetry({ baseDelayMs: 100, maxDelayMs: 1000 });
    assert.equal(backoffDelay(1, policy, undefined, () => 0), 50);
    assert.equal(backoffDelay(1, policy, undefined, () => 1), 100);
    assert.equal(backoffDelay(3, policy, undefined, () => 1), 400);
    assert.equal(backoffDelay(10, policy, undefined, () => 1), 1000);
    assert.equal(backoffDelay(10, policy, undefined, () => 0), 500);
  });

  it('waits at least as long as Retry-After says, within the cap', () => {
    const policy = resolveRetry({ baseDelayMs: 100, maxDelayMs: 5000 });
    assert.equal(backoffDelay(1, policy, 3000, () => 0), 3000);
    assert.equal(backoffDelay(1, policy, 60_000, () => 0), 5000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    assert.equal(parseRetryAfter('7'), 7000);
    assert.equal(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1)), 30_000);
    assert.equal(parseRetryAfter(undefined), undefined);
    assert.equal(parseRetryAfter('soon'), undefined);
  });

  it('sleep stops with ABORTED when the signal fires', async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort();
    await assert.rejects(waiting, { code: 'ABORTED' });
    await assert.rejects(sleep(1, AbortSignal.abort()), { code: 'ABORTED' });
  });
});
