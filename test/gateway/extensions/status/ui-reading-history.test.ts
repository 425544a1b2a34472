/** The node page's reading history: one point per key per minute, 24 hours deep, a bounded number of keys. */
import assert from 'node:assert/strict';
import { HISTORY_STEP_MS, HISTORY_WINDOW_MS, ReadingHistory } from '../../../../gateway/extensions/status/ui/reading-history';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('ReadingHistory', () => {
  it('keeps the latest value of each minute, booleans as 0 and 1, strings not at all', () => {
    const h = new ReadingHistory();
    h.add({ t: 20, door: true, label: 'x' }, T0);
    h.add({ t: 21 }, T0 + 30_000);
    h.add({ t: 22, door: false }, T0 + HISTORY_STEP_MS);
    assert.deepEqual(h.read(T0 + HISTORY_STEP_MS), {
      t: [
        [T0 + 30_000, 21],
        [T0 + HISTORY_STEP_MS, 22],
      ],
      door: [
        [T0, 1],
        [T0 + HISTORY_STEP_MS, 0],
      ],
    });
  });

  it('forgets points older than 24 hours and keys with none left', () => {
    const h = new ReadingHistory();
    h.add({ old: 1, t: 1 }, T0);
    h.add({ t: 2 }, T0 + HISTORY_WINDOW_MS);
    assert.deepEqual(h.read(T0 + HISTORY_WINDOW_MS + 1), { t: [[T0 + HISTORY_WINDOW_MS, 2]] });
  });

  it('holds at most one day of minutes per key however often values come', () => {
    const h = new ReadingHistory();
    for (let i = 0; i < 2 * 24 * 60 * 4; i++) h.add({ t: i }, T0 + i * 15_000);
    const points = h.read(T0 + 2 * HISTORY_WINDOW_MS)['t']!;
    assert.ok(points.length <= HISTORY_WINDOW_MS / HISTORY_STEP_MS + 1, `${points.length} points`);
    assert.equal(points[points.length - 1]![1], 2 * 24 * 60 * 4 - 1);
  });

  it('takes no more than 64 keys, so a node cannot grow it without bound', () => {
    const h = new ReadingHistory();
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    h.add(many, T0);
    const keys = Object.keys(h.read(T0));
    assert.equal(keys.length, 64);
    assert.deepEqual(keys.slice(0, 2), ['k0', 'k1']);
  });
});
