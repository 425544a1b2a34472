import assert from 'node:assert/strict';
import { KeyFilter } from '../../../lib/store/key-filter';

const key = (i: number): string => `msg-${i.toString(36).padStart(8, '0')}`;

describe('KeyFilter', () => {
  describe('mayHave', () => {
    it('answers true for every one of the last `capacity` keys taken, across many turnovers', () => {
      const capacity = 500;
      const f = new KeyFilter(capacity);
      for (let i = 0; i < 20 * capacity; i++) {
        f.add(key(i));
        f.taken(1);
        // The window a seen-set of this capacity keeps: the keys from i - capacity + 1 to i.
        if (i % 97 === 0) for (let j = Math.max(0, i - capacity + 1); j <= i; j++) assert.ok(f.mayHave(key(j)), `key ${j} at ${i}`);
      }
    });

    it('answers false for most keys never added, with the filters full', () => {
      const capacity = 10_000;
      const f = new KeyFilter(capacity);
      for (let i = 0; i < 2 * capacity - 1; i++) {
        f.add(key(i));
        f.taken(1);
      }
      let maybe = 0;
      const asked = 20_000;
      for (let i = 0; i < asked; i++) if (f.mayHave(`other-${i}`)) maybe += 1;
      // Two full filters at about 1 % each.
      assert.ok(maybe < asked * 0.05, `${maybe} of ${asked} absent keys answered maybe`);
    });

    it('keeps keys whose writes the owner did not count as taken (rows ignored or rolled back age nothing)', () => {
      const f = new KeyFilter(10);
      f.add('kept');
      f.taken(1);
      for (let i = 0; i < 100; i++) f.add(`ignored-${i}`);
      f.taken(8);
      assert.ok(f.mayHave('kept'));
      f.taken(1); // the tenth: the newer filter becomes the older one, and still holds it
      assert.ok(f.mayHave('kept'));
    });

    it('lets keys go once twice its capacity were taken after them', () => {
      const f = new KeyFilter(100);
      f.add('gone');
      f.taken(1);
      for (let i = 0; i < 200; i++) {
        f.add(key(i));
        f.taken(1);
      }
      assert.equal(f.mayHave('gone'), false);
    });
  });
});
