/**
 * Sealed content crosses the gateway untouched: a relay carries `__MLS_ENC__` as the opaque string it is, whichever
 * of the three envelope forms it holds and whichever codec each hop speaks (binary v1 splits a base64 tail into its
 * ext field; the far side must still get the sender's exact string).
 */
import assert from 'node:assert/strict';
import { decodeFrame } from '../../../lib/mesh/frame';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { encodeCompactMlsEnvelope, parseMlsEnvelope, MLS_ENC_PREFIX } from '../../../lib/mesh/mls-envelope';
import type { RadioPeer } from '../../../gateway/radios/radio';
import { newAddress, routerOn } from './support';

const alice: RadioPeer = { id: 'alice', address: newAddress(), wireVersions: [1], connected: true };
const bob: RadioPeer = { id: 'bob', address: newAddress(), wireVersions: [], connected: true };

const json = JSON.stringify({ group_id: 'g', message_type: 'Application', epoch: 1, ciphertext: [1, 2, 3], sender_id: 's', timestamp_ms: 2 });
const compact = Buffer.from(
  encodeCompactMlsEnvelope({ group_id: 'g', sender_id: 's', message_type: 'application', epoch: 1n, timestamp_ms: 2n, ciphertext: new Uint8Array(200).fill(7) }),
).toString('base64');
const BODIES = { json, compact, 'base64-json': Buffer.from(json).toString('base64') } as const;

function sealed(from: RadioPeer, to: RadioPeer, body: string): MeshMessage {
  return createMessage({ id: MessageId.random(), sender: from.address!, recipient: to.address!, app_id: 'test', priority: 'medium', ttl: 8, hop_count: 0, timestamp: 1n, content: MLS_ENC_PREFIX + body });
}

describe('MeshRouter: a sealed __MLS_ENC__ message in transit', () => {
  for (const [form, body] of Object.entries(BODIES)) {
    it(`relays the ${form} form unchanged to a JSON peer and to a binary peer`, () => {
      const { router, radio } = routerOn([alice, bob], 0, 'radios: []\nmesh:\n  forward_jitter_min_ms: 0\n  forward_jitter_max_ms: 0\n');
      radio.deliver(alice, sealed(alice, bob, body));
      radio.deliver(bob, sealed(bob, alice, body));
      router.stop();
      assert.equal(radio.written.length, 2, 'one relay each way');
      const [toBob, toAlice] = radio.written.map((f) => ({ first: f[0], message: decodeFrame(f) }));
      assert.equal(toBob!.first, 0x7b, 'JSON to bob');
      assert.equal(toAlice!.first, 0xf5, 'binary to alice');
      for (const got of [toBob!, toAlice!]) {
        assert.equal(got.message.content, MLS_ENC_PREFIX + body);
        assert.equal(got.message.hop_count, 1);
        assert.equal(parseMlsEnvelope(got.message.content.slice(MLS_ENC_PREFIX.length)).form, form);
      }
    });
  }
});
