/**
 * Which ACK settles a send (issue 14 §2): only one whose sender is the recipient, and, when it arrives at hop 0 from
 * a peer whose address the transport verified, only when that peer is the recipient. The mesh does not sign ACKs,
 * so a neighbour could otherwise report delivery of a message it never passed on.
 */
import assert from 'node:assert/strict';
import { buildAck } from '../../../lib/mesh/ack';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import type { RadioPeer } from '../../../gateway/radios/radio';
import { newAddress, routerOn } from './support';

const RECIPIENT = newAddress();
const liar: RadioPeer = { id: 'liar', address: newAddress(), wireVersions: [1], connected: true };
const recipientPeer: RadioPeer = { id: 'v', address: RECIPIENT, wireVersions: [1], connected: true };
const unverified: RadioPeer = { id: 'anon', wireVersions: [1], connected: true };

function ackFrom(sender: string, original: MeshMessage, hop = 0): MeshMessage {
  const ack = buildAck({ id: original.id, sender: original.sender, hop_count: 0 }, { localId: sender, appId: 'test', transport: 'ble', now: () => 1 });
  return hop === 0 ? ack : createMessage({ ...ack, hop_count: hop });
}

async function outcome(via: RadioPeer, ack: (m: MeshMessage) => MeshMessage): Promise<boolean> {
  const { clock, radio, router, message, config } = routerOn([liar, recipientPeer, unverified]);
  const original = message(RECIPIENT, true);
  const sent = await router.send(original);
  radio.deliver(via, ack(original));
  await clock.tick(config.mesh.ack_timeout_ms + 1);
  router.stop();
  return (await sent.ack) !== undefined;
}

describe('MeshRouter: which ACK settles a send', () => {
  it('settles on the recipient\'s own ACK at hop 0', async () => {
    assert.equal(await outcome(recipientPeer, (m) => ackFrom(RECIPIENT, m)), true);
  });

  it('does not settle on a verified neighbour\'s hop-0 ACK claiming to be the recipient', async () => {
    assert.equal(await outcome(liar, (m) => ackFrom(RECIPIENT, m)), false);
  });

  it('settles on a relayed ACK from the recipient (hop > 0), whoever relayed it', async () => {
    assert.equal(await outcome(liar, (m) => ackFrom(RECIPIENT, m, 2)), true);
  });

  it('does not settle on an ACK whose sender is not the recipient', async () => {
    assert.equal(await outcome(liar, (m) => ackFrom(liar.address!, m)), false);
  });

  it('settles on a hop-0 ACK from a peer without a verified address (nothing to compare against)', async () => {
    assert.equal(await outcome(unverified, (m) => ackFrom(RECIPIENT, m)), true);
  });
});
