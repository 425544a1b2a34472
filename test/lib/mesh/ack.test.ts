import { strict as assert } from 'node:assert';
import { ackSettles, ackTarget, buildAck, isAck, receiveActions, ReceiveOutcome } from '../../../lib/mesh/ack';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { createMessage, MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';

function received(overrides: Partial<Parameters<typeof createMessage>[0]> = {}): MeshMessage {
  return createMessage({
    id: '67e55044-10b1-426f-9247-bb680e5fe0c8',
    sender: 'alice',
    recipient: 'gateway',
    app_id: 'their-app',
    priority: 'high',
    ttl: 5,
    hop_count: 3,
    timestamp: 1n,
    lamport_clock: 77n,
    content: 'hello',
    ...overrides,
  });
}

describe('ack', () => {
  describe('buildAck', () => {
    it('builds the reference shape: local id to original sender, our app id, empty text, low, ttl 8, no ack, lamport 0', () => {
      const ack = buildAck(received(), { localId: 'gateway', appId: 'our-app', transport: 'ble', now: () => 1700000000123 });
      assert.equal(ack.sender, 'gateway');
      assert.equal(ack.recipient, 'alice');
      assert.equal(ack.app_id, 'our-app');
      assert.equal(ack.content, '');
      assert.equal(ack.content_type, 'text');
      assert.equal(ack.priority, 'low');
      assert.equal(ack.ttl, 8);
      assert.equal(ack.hop_count, 0);
      assert.equal(ack.requires_ack, false);
      assert.equal(ack.lamport_clock, 0n);
      assert.equal(ack.timestamp, 1700000000123n);
      assert.equal(ack.binary_content, undefined);
      assert.ok(ack.id instanceof MessageId);
      assert.notEqual(ack.id.toString(), received().id.toString());
    });

    it('writes ack_for (lowercase id), ack_hop_count (decimal, as received) and ack_transport', () => {
      const original = received({ id: '67E55044-10B1-426F-9247-BB680E5FE0C8', hop_count: 3 });
      const ack = buildAck(original, { localId: 'gateway', appId: 'our-app', transport: 'wifiDirect' });
      assert.deepEqual(Object.fromEntries(ack.metadata), {
        ack_for: '67e55044-10b1-426f-9247-bb680e5fe0c8',
        ack_hop_count: '3',
        ack_transport: 'wifiDirect',
      });
    });

    it('reports hop count 0 for a group-drain ACK when asked', () => {
      const ack = buildAck(received(), { localId: 'gateway', appId: 'a', transport: 'internet', hopCount: 0 });
      assert.equal(ack.metadata.get('ack_hop_count'), '0');
    });

    it('validates the local identifiers through the one constructor', () => {
      assert.throws(() => buildAck(received(), { localId: 'bad/id', appId: 'a', transport: 'ble' }), MeshDecodeError);
    });
  });

  describe('recognising an ACK', () => {
    it('treats any frame with ack_for as an ACK, whatever its content', () => {
      const odd = received({ content: 'looks like a chat message', metadata: { ack_for: 'not even a uuid' } });
      assert.ok(isAck(odd));
      assert.equal(ackTarget(odd), 'not even a uuid');
      assert.ok(!isAck(received()));
      assert.equal(ackTarget(received()), undefined);
    });

    it('settles a pending send only when the ACK comes from that send’s recipient', () => {
      const sent = received({ sender: 'gateway', recipient: 'alice' });
      const fromAlice = buildAck(sent, { localId: 'alice', appId: 'a', transport: 'ble' });
      const fromMallory = buildAck(sent, { localId: 'mallory', appId: 'a', transport: 'ble' });
      const pending = { id: sent.id, recipient: 'alice' };
      assert.ok(ackSettles(fromAlice, pending));
      assert.ok(!ackSettles(fromMallory, pending));
      assert.ok(ackSettles(fromAlice, { id: sent.id.toString().toUpperCase(), recipient: 'alice' }));
      assert.ok(!ackSettles(fromAlice, { id: MessageId.random(), recipient: 'alice' }));
      assert.ok(!ackSettles(received({ sender: 'alice', metadata: { ack_for: 'garbage' } }), pending));
      assert.ok(!ackSettles(received({ sender: 'alice' }), pending));
    });
  });

  describe('receiveActions', () => {
    const acked: ReceiveOutcome[] = ['delivered', 'control-consumed', 'chunk-handled', 'duplicate', 'deferred-drained'];
    const never: ReceiveOutcome[] = ['security-rejected', 'deferred', 'plaintext-refused', 'blocked', 'not-for-us', 'ack'];

    it('acks delivered, consumed control, handled chunks, duplicates and drained deferrals', () => {
      for (const outcome of acked) assert.equal(receiveActions(received(), outcome).ack, true, outcome);
    });

    it('never acks rejections, deferrals, refused plaintext, blocked senders or frames for someone else', () => {
      for (const outcome of never) assert.equal(receiveActions(received(), outcome).ack, false, outcome);
    });

    it('acks nothing that did not ask for it, and never an ACK', () => {
      for (const outcome of acked) {
        assert.equal(receiveActions(received({ requires_ack: false }), outcome).ack, false, outcome);
        assert.equal(receiveActions(received({ metadata: { ack_for: '67e55044-10b1-426f-9247-bb680e5fe0c8' } }), outcome).ack, false, outcome);
      }
    });

    it('does not re-ack a duplicate from a blocked sender', () => {
      assert.equal(receiveActions(received(), 'duplicate', { senderBlocked: true }).ack, false);
      assert.equal(receiveActions(received(), 'delivered', { senderBlocked: false }).ack, true);
    });

    it('unmarks the dedup id after a security rejection, a deferral or refused plaintext, and only then', () => {
      for (const outcome of [...acked, ...never]) {
        const expected = outcome === 'security-rejected' || outcome === 'deferred' || outcome === 'plaintext-refused';
        assert.equal(receiveActions(received(), outcome).unmarkDedup, expected, outcome);
        assert.equal(receiveActions(received({ requires_ack: false }), outcome).unmarkDedup, expected, outcome);
      }
    });
  });
});
