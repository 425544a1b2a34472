/**
 * The web UI's node book on the gateway's real bus: what it keeps per node is bounded (50 messages, texts cut),
 * protocol content is never kept as text, readings go into the history, and a relayed node is heard through its
 * relay with no RSSI of its own.
 */
import assert from 'node:assert/strict';
import { MessageId } from '../../../../lib/mesh/message-id';
import { createMessage, DEFAULT_TTL, type MeshMessage } from '../../../../lib/mesh/message';
import { EventBus } from '../../../../gateway/bus';
import { NodeBook } from '../../../../gateway/extensions/status/ui/node-book';
import { silentLogger } from '../../../../gateway/logger';
import { identityFromSeed } from '../../../../gateway/radios/mesh-identity';
import { testConfig } from '../../support/config';

const SELF = identityFromSeed('node-book:gateway').address;
const NODE = identityFromSeed('node-book:node').address;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function message(content: string, hopCount = 0): MeshMessage {
  return createMessage({
    id: MessageId.random(),
    sender: NODE,
    recipient: SELF,
    app_id: 'book-test',
    priority: 'medium',
    ttl: DEFAULT_TTL - hopCount,
    hop_count: hopCount,
    timestamp: BigInt(T0),
    content,
    requires_ack: false,
  });
}

describe('NodeBook', () => {
  let now: number;
  let bus: EventBus;
  let book: NodeBook;

  function hear(m: MeshMessage, peer = 'node', rssi?: number): void {
    bus.emit('meshMessage', {
      message: m,
      id: m.id.toString(),
      frame: new Uint8Array(0),
      codec: 'json',
      rx: { radioId: 'r0', peerId: peer, receivedAt: now, ...(rssi !== undefined ? { rssi } : {}) },
      toGateway: true,
      duplicate: false,
      senderVerified: peer === 'node',
    });
  }

  beforeEach(() => {
    now = T0;
    bus = new EventBus(silentLogger());
    const config = testConfig('/nonexistent', { devices: [{ match: { sender: NODE }, entities: [{ key: 't', from: { regex: 't=(\\d+)' } }] }] });
    book = new NodeBook(config, SELF, () => now);
    book.attach(bus, {}, { neighbours: () => [] });
  });

  it('keeps the newest 50 messages, newest first', () => {
    const sent: string[] = [];
    for (let i = 0; i < 60; i++) {
      const m = message(`m${i}`);
      sent.push(m.id.toString());
      hear(m, 'node', -50);
      now += 10;
    }
    const d = book.detail(NODE)!;
    assert.deepEqual(
      d.recent.map((r) => r.id),
      sent.slice(10).reverse(),
    );
    assert.equal(d.messages, 60);
    assert.equal(d.rssi, -50);
    assert.equal(book.text(NODE, sent[59]!), 'm59');
    assert.equal(book.text(NODE, sent[0]!), undefined, 'a message no longer kept has no text');
  });

  it('cuts a long text and keeps no text of protocol content', () => {
    const long = message('x'.repeat(5000));
    const sealed = message('__MLS_ENC__abcdef');
    hear(long);
    hear(sealed);
    assert.equal(book.text(NODE, long.id.toString())!.length <= 2000, true);
    assert.equal(book.text(NODE, sealed.id.toString()), undefined);
    const d = book.detail(NODE)!;
    assert.deepEqual(
      d.recent.map((r) => r.has_text),
      [false, true],
    );
  });

  it('takes readings into the row and the history', () => {
    hear(message('t=20'));
    now += 60_000;
    hear(message('t=22'));
    const d = book.detail(NODE)!;
    assert.deepEqual(d.readings, { t: 22 });
    assert.deepEqual(d.history, {
      t: [
        [T0, 20],
        [T0 + 60_000, 22],
      ],
    });
  });

  it('hears a relayed node through its relay, without an RSSI of its own, and counts its unverified share', () => {
    hear(message('relayed', 2), 'relay-peer', -70);
    const [row] = book.rows();
    assert.deepEqual(row!.heard_by, [{ radio: 'r0', peer: 'relay-peer', hop_count: 2, at: T0 }]);
    assert.equal(row!.rssi, undefined);
    assert.equal(row!.verified_share, 0);
    assert.deepEqual(row!.hops_seen, [2]);
  });
});
