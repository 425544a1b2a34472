/**
 * Packet ids shared by mqtt.js and the gateway's own publishes: never one in use twice, whatever the order of the
 * acknowledgements, and all 65 535 before none.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PacketIds } from '../../../gateway/mqtt/packet-ids';

describe('gateway MQTT packet ids', () => {
  it('never hands out an id that is still in use, acknowledged in any order (property test)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant('take' as const), fc.nat()), { maxLength: 400 }), fc.integer({ min: 1, max: 65535 }), (steps, start) => {
        const ids = new PacketIds();
        // Start anywhere, as after a long run: walk the cursor to `start` first.
        for (let i = 1; i < start; i++) ids.deallocate(ids.allocate()!);
        const held: number[] = [];
        for (const step of steps) {
          if (step === 'take') {
            const id = ids.allocate()!;
            assert.ok(id >= 1 && id <= 65535);
            assert.ok(!held.includes(id), `id ${id} handed out twice`);
            held.push(id);
          } else if (held.length) {
            ids.deallocate(held.splice(step % held.length, 1)[0]!);
          }
          assert.equal(ids.inUse, held.length);
        }
      }),
    );
  });

  it('gives all 65 535 ids, then null until one is free again, then exactly that one', () => {
    const ids = new PacketIds();
    const seen = new Set<number>();
    for (let i = 0; i < 65535; i++) seen.add(ids.allocate()!);
    assert.equal(seen.size, 65535);
    assert.equal(ids.allocate(), null);
    ids.deallocate(4242);
    assert.equal(ids.allocate(), 4242);
    assert.equal(ids.getLastAllocated(), 4242);
  });

  it('registers a stored id once, ignores releases of ids not held, and forgets everything on clear', () => {
    const ids = new PacketIds();
    assert.equal(ids.register(7), true);
    assert.equal(ids.register(7), false);
    assert.equal(ids.register(0), false);
    ids.deallocate(8);
    ids.deallocate(70000);
    assert.equal(ids.inUse, 1);
    for (let i = 1; i < 7; i++) assert.equal(ids.allocate(), i);
    assert.equal(ids.allocate(), 8, 'skips 7, which is registered');
    ids.clear();
    assert.equal(ids.inUse, 0);
    assert.equal(ids.register(7), true);
  });
});
