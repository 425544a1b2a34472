import { strict as assert } from 'node:assert';
import { forwardDecision, relayTargets } from '../../../lib/mesh/forwarding';
import { createMessage, MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';

function frame(overrides: Partial<Parameters<typeof createMessage>[0]> = {}): MeshMessage {
  return createMessage({
    id: MessageId.random(),
    sender: 'alice',
    recipient: 'carol',
    app_id: 'app',
    priority: 'medium',
    ttl: 8,
    hop_count: 0,
    timestamp: 0n,
    content: 'hi',
    metadata: { k: 'v' },
    ...overrides,
  });
}

const ME = { localId: 'bob', neighbourCount: 2 };

describe('forwarding', () => {
  describe('forwardDecision', () => {
    it('does not forward a frame addressed to us', () => {
      assert.deepEqual(forwardDecision(frame({ recipient: 'bob' }), ME), { forward: false, reason: 'FOR_US' });
    });

    it('drops a frame for someone else that claims our own id as sender', () => {
      assert.deepEqual(forwardDecision(frame({ sender: 'bob' }), ME), { forward: false, reason: 'OWN_SENDER' });
    });

    it('forwards nothing once hop_count reaches 16', () => {
      assert.deepEqual(forwardDecision(frame({ hop_count: 16 }), ME), { forward: false, reason: 'HOP_LIMIT' });
      assert.deepEqual(forwardDecision(frame({ hop_count: 255 }), ME), { forward: false, reason: 'HOP_LIMIT' });
      assert.equal(forwardDecision(frame({ hop_count: 15 }), ME).forward, true);
    });

    it('clamps the claimed ttl to 8, then decrements and counts the hop', () => {
      const d = forwardDecision(frame({ ttl: 200, hop_count: 4 }), ME);
      assert.ok(d.forward);
      assert.equal(d.effectiveTtl, 8);
      assert.equal(d.clamped, true);
      assert.equal(d.next.ttl, 7);
      assert.equal(d.next.hop_count, 5);
    });

    it('keeps a claim below the ceiling', () => {
      const d = forwardDecision(frame({ ttl: 3 }), ME);
      assert.ok(d.forward);
      assert.equal(d.clamped, false);
      assert.equal(d.next.ttl, 2);
    });

    it('uses a ceiling of 5 with 6 or more neighbours', () => {
      const dense = forwardDecision(frame({ ttl: 8 }), { localId: 'bob', neighbourCount: 6 });
      assert.ok(dense.forward);
      assert.equal(dense.effectiveTtl, 5);
      assert.equal(dense.next.ttl, 4);
      const sparse = forwardDecision(frame({ ttl: 8 }), { localId: 'bob', neighbourCount: 5 });
      assert.ok(sparse.forward);
      assert.equal(sparse.next.ttl, 7);
    });

    it('does not forward an effective ttl of 1 or less', () => {
      for (const ttl of [0, 1]) assert.deepEqual(forwardDecision(frame({ ttl }), ME), { forward: false, reason: 'TTL_EXHAUSTED' });
      assert.equal(forwardDecision(frame({ ttl: 2 }), ME).forward, true);
    });

    it('changes nothing else and never aliases the original', () => {
      const original = frame({ ttl: 6, hop_count: 1 });
      const d = forwardDecision(original, ME);
      assert.ok(d.forward);
      assert.equal(d.next.id, original.id);
      assert.equal(d.next.content, original.content);
      assert.equal(d.next.lamport_clock, original.lamport_clock);
      assert.deepEqual(d.next.metadata, original.metadata);
      d.next.metadata.set('added', 'x');
      assert.equal(original.metadata.has('added'), false);
      assert.equal(original.ttl, 6);
      assert.equal(original.hop_count, 1);
    });
  });

  describe('relayTargets', () => {
    const neighbours = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'];

    it('sends to the recipient alone when it is a neighbour', () => {
      assert.deepEqual(relayTargets(frame({ recipient: 'n4' }), { localId: 'bob', neighbours }), ['n4']);
    });

    it('otherwise picks up to 3 neighbours, stably for one message', () => {
      const f = frame();
      const first = relayTargets(f, { localId: 'bob', neighbours });
      assert.equal(first.length, 3);
      assert.equal(new Set(first).size, 3);
      assert.deepEqual(relayTargets(f, { localId: 'bob', neighbours: [...neighbours].reverse() }), first);
    });

    it('spreads different messages over different neighbours', () => {
      const chosen = new Set<string>();
      for (let i = 0; i < 40; i++) for (const n of relayTargets(frame(), { localId: 'bob', neighbours })) chosen.add(n);
      assert.equal(chosen.size, neighbours.length);
    });

    it('never returns the arrival peer, excluded peers or ourselves, and prefers quality', () => {
      const f = frame();
      const picks = relayTargets(f, {
        localId: 'bob',
        neighbours: ['bob', 'n1', { id: 'n2', quality: 10 }, 'n3', 'n4', 'n5'],
        arrivalPeer: 'n1',
        exclude: ['n3'],
      });
      assert.equal(picks[0], 'n2');
      assert.ok(!picks.includes('n1') && !picks.includes('n3') && !picks.includes('bob'));
      assert.equal(picks.length, 3);
    });

    it('honours a fanout and returns nothing with no candidates', () => {
      assert.equal(relayTargets(frame(), { localId: 'bob', neighbours, fanout: 1 }).length, 1);
      assert.deepEqual(relayTargets(frame(), { localId: 'bob', neighbours: ['n1'], arrivalPeer: 'n1' }), []);
      assert.deepEqual(relayTargets(frame({ recipient: 'n1' }), { localId: 'bob', neighbours, arrivalPeer: 'n1' }), []);
    });
  });
});
