/**
 * A signed control frame replayed (issue 14 §2): the signature does not cover the hop count, which relays rewrite, so a
 * neighbour that heard a control frame can send it again with a higher hop count and the signature still verifies.
 * It must be dropped as the duplicate it is — not delivered or consumed a second time, not ACKed as new — and a copy
 * that fails the gate must not clear the id the genuine frame left in the deduplicator.
 */
import assert from 'node:assert/strict';
import { generateControlIdentity, signControlMessage } from '../../../lib/mesh/control-signature';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import type { EventBus, MeshMessageEvent } from '../../../gateway/bus';
import type { RadioPeer } from '../../../gateway/radios/radio';
import { newAddress, routerOn } from './support';

const alice = generateControlIdentity();
const alicePeer: RadioPeer = { id: 'alice', address: alice.address, wireVersions: [1], connected: true };
const mallory: RadioPeer = { id: 'mallory', address: newAddress(), wireVersions: [1], connected: true };

function control(recipient: string, hop = 0): MeshMessage {
  const m = createMessage({ id: MessageId.random(), sender: alice.address, recipient, app_id: 'test', priority: 'medium', ttl: 8, hop_count: 0, timestamp: 1n, content: '__CONN_REQ__{"hello":1}', requires_ack: true });
  const signed = signControlMessage(m, alice.privateKey);
  return hop === 0 ? signed : { ...signed, hop_count: hop };
}

function watch(bus: EventBus): MeshMessageEvent[] {
  const seen: MeshMessageEvent[] = [];
  bus.on('meshMessage', seen, (e) => {
    seen.push(e);
  });
  return seen;
}

describe('MeshRouter: a replayed signed control frame', () => {
  it('is a duplicate when it comes back at a higher hop count from another neighbour', async () => {
    const { router, radio, address, bus, metrics } = routerOn([alicePeer, mallory]);
    const seen = watch(bus);
    const genuine = control(address);
    radio.deliver(alicePeer, genuine);
    radio.deliver(mallory, { ...genuine, hop_count: 1 });
    radio.deliver(mallory, { ...genuine, hop_count: 5 });
    router.stop();
    assert.deepEqual(seen.map((e) => [e.duplicate, e.senderVerified]), [[false, true], [true, false], [true, false]]);
    assert.equal(metrics.snapshot()['clawling_gateway_duplicates_total'], 2);
  });

  it('keeps the genuine id marked when a tampered copy fails the gate', async () => {
    const { router, radio, address, bus } = routerOn([alicePeer, mallory]);
    const seen = watch(bus);
    const genuine = control(address);
    radio.deliver(alicePeer, genuine);
    // Mallory's copy is refused by the gate (hop 0, sender is not the delivering peer) …
    radio.deliver(mallory, genuine);
    // … and must not have unmarked the id: the next replay is still a duplicate, not a new control message.
    radio.deliver(mallory, { ...genuine, hop_count: 2 });
    router.stop();
    assert.deepEqual(seen.map((e) => e.duplicate), [false, true, true]);
  });

  it('stays a duplicate after ordinary traffic has pushed its id out of the message deduplicator', async () => {
    const { router, radio, address, bus, config, message } = routerOn([alicePeer, mallory]);
    const seen = watch(bus);
    const genuine = control(address);
    radio.deliver(alicePeer, genuine);
    // More unsigned frames than the deduplicator holds: cheap for an attacker to send.
    for (let i = 0; i <= config.mesh.dedup_max_entries; i++) radio.deliver(mallory, { ...message(address), sender: mallory.address! });
    radio.deliver(mallory, { ...genuine, hop_count: 1 });
    router.stop();
    const ours = seen.filter((e) => e.id === genuine.id.toString());
    assert.deepEqual(ours.map((e) => e.duplicate), [false, true]);
  });

  it('is relayed once when it is for another node', async () => {
    const other = newAddress();
    const { router, radio, metrics } = routerOn([alicePeer, mallory]);
    const genuine = control(other);
    radio.deliver(alicePeer, genuine);
    radio.deliver(mallory, { ...genuine, hop_count: 3 });
    router.stop();
    assert.equal(metrics.snapshot()['clawling_gateway_duplicates_total'], 1);
  });
});
