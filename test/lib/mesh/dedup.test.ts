import { strict as assert } from 'node:assert';
import { createRelaySeenCache, Deduplicator } from '../../../lib/mesh/dedup';
import { MeshError } from '../../../lib/mesh/errors';
import { MessageId } from '../../../lib/mesh/message-id';

class Clock {
  t = 0;
  now = (): number => this.t;
}

describe('dedup', () => {
  describe('Deduplicator', () => {
    it('reports a repeat as a duplicate and a first sighting as new', () => {
      const d = new Deduplicator();
      assert.equal(d.check('m1'), false);
      assert.equal(d.check('m1'), true);
      assert.equal(d.check('m2'), false);
      assert.equal(d.counters.duplicates, 1);
      assert.equal(d.size, 2);
    });

    it('keys MessageId values by their canonical string', () => {
      const d = new Deduplicator();
      const id = MessageId.random();
      d.mark(id);
      assert.ok(d.has(MessageId.parse(id.toString().toUpperCase())));
      assert.ok(d.has(id.toString()));
    });

    it('holds 1000 ids by default and drops the least recently consulted when full', () => {
      const d = new Deduplicator();
      for (let i = 0; i < 1000; i++) d.mark(`m${i}`);
      assert.ok(d.has('m0')); // m0 is now the most recently consulted
      d.mark('m1000');
      assert.equal(d.size, 1000);
      assert.ok(d.has('m0'));
      assert.ok(!d.has('m1'));
      assert.equal(d.counters.capacityEvictions, 1);
    });

    it('forgets ids 1 h after first sight, consulted or not', () => {
      const clock = new Clock();
      const d = new Deduplicator({ now: clock.now });
      d.mark('m1');
      clock.t = 3_599_999;
      assert.ok(d.has('m1'));
      clock.t = 3_600_000;
      assert.ok(!d.has('m1'));
      assert.equal(d.check('m1'), false);
    });

    it('drops expired ids before evicting live ones', () => {
      const clock = new Clock();
      const d = new Deduplicator({ capacity: 3, retentionMs: 100, now: clock.now });
      d.mark('old');
      clock.t = 50;
      d.mark('a');
      d.mark('b');
      clock.t = 120;
      d.has('a');
      d.mark('c');
      assert.deepEqual(['old', 'a', 'b', 'c'].map((k) => d.has(k)), [false, true, true, true]);
      assert.equal(d.counters.capacityEvictions, 0);
      assert.equal(d.counters.expired, 1);
    });

    it('unmarks an id so its next arrival is processed again', () => {
      const d = new Deduplicator();
      d.mark('m1');
      assert.equal(d.unmark('m1'), true);
      assert.equal(d.check('m1'), false);
      assert.equal(d.unmark('never'), false);
    });

    it('sweeps expired ids on demand', () => {
      const clock = new Clock();
      const d = new Deduplicator({ retentionMs: 10, now: clock.now });
      for (let i = 0; i < 5; i++) d.mark(`m${i}`);
      clock.t = 10;
      assert.equal(d.sweep(), 5);
      assert.equal(d.size, 0);
    });

    it('stays bounded under a flood of fresh ids', () => {
      const d = new Deduplicator({ capacity: 64 });
      for (let i = 0; i < 100_000; i++) d.check(`flood-${i}`);
      assert.equal(d.size, 64);
    });

    it('refuses a bad option', () => {
      assert.throws(() => new Deduplicator({ capacity: 0 }), (e: unknown) => e instanceof MeshError && e.code === 'BAD_OPTION');
    });
  });

  describe('createRelaySeenCache', () => {
    it('holds 8192 ids and drops the oldest first, consulted or not', () => {
      const r = createRelaySeenCache();
      for (let i = 0; i < 8192; i++) r.mark(`m${i}`);
      assert.ok(r.has('m0'));
      r.mark('m8192');
      assert.equal(r.size, 8192);
      assert.ok(!r.has('m0'));
      assert.ok(r.has('m1'));
    });

    it('suppresses for 600 s', () => {
      const clock = new Clock();
      const r = createRelaySeenCache({ now: clock.now });
      assert.equal(r.check('m'), false);
      clock.t = 599_999;
      assert.equal(r.check('m'), true);
      clock.t = 600_000;
      assert.equal(r.check('m'), false);
    });
  });
});
