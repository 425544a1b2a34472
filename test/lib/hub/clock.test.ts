import assert from 'node:assert/strict';
import { ManualClock } from '../../../lib/hub';

describe('ManualClock', () => {
  it('fires due timers in time order, including ones armed while advancing', () => {
    const clock = new ManualClock(1000);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b@300'), 300);
    clock.setTimeout(() => {
      fired.push('a@100');
      clock.setTimeout(() => fired.push('c@150'), 50);
    }, 100);
    const late = clock.setTimeout(() => fired.push('never'), 301);
    clock.advance(300);
    assert.deepEqual(fired, ['a@100', 'c@150', 'b@300']);
    assert.equal(clock.now(), 1300);
    assert.equal(clock.pending(), 1);
    assert.equal(clock.nextAt(), 1301);
    clock.clearTimeout(late);
    clock.advance(10_000);
    assert.deepEqual(fired, ['a@100', 'c@150', 'b@300']);
  });

  it('keeps the order of timers due at the same instant', () => {
    const clock = new ManualClock();
    const fired: number[] = [];
    for (let i = 0; i < 5; i++) clock.setTimeout(() => fired.push(i), 10);
    clock.advance(10);
    assert.deepEqual(fired, [0, 1, 2, 3, 4]);
  });
});
