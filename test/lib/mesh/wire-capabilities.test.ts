import assert from 'node:assert/strict';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { advertisedWireVersions, WireCapabilities } from '../../../lib/mesh/wire-capabilities';

function from(sender: string, content: string, extra: Partial<MeshMessage> = {}): MeshMessage {
  return createMessage({ id: MessageId.random(), sender, recipient: 'gw', app_id: 't', priority: 'low', ttl: 8, hop_count: 0, timestamp: 1n, content, ...extra });
}
const kp = (body: unknown): string => `__MLS_KEY_PKG__${typeof body === 'string' ? body : JSON.stringify(body)}`;

describe('mesh wire capabilities (key package wire_versions)', () => {
  it('reads the list of a key package, ignoring entries that are not byte values', () => {
    assert.deepEqual(advertisedWireVersions(from('a', kp({ user_id: 'a', key_package_data: [], wire_versions: [1] }))), [1]);
    assert.deepEqual(advertisedWireVersions(from('a', kp({ wire_versions: [2, 1, 1, 300, -1, 1.5, '1', null] }))), [1, 2]);
  });

  it('takes a key package without the field for an older peer: JSON only', () => {
    assert.deepEqual(advertisedWireVersions(from('a', kp({ user_id: 'a', key_package_data: [] }))), []);
    assert.deepEqual(advertisedWireVersions(from('a', kp({ wire_versions: null }))), []);
  });

  it('learns nothing from other content or a body that is not a JSON object', () => {
    for (const content of ['hello', '__MLS_WELCOME__{"wire_versions":[1]}', kp('{not json'), kp('[1]'), kp('null'), kp({ wire_versions: 'all' })]) {
      assert.equal(advertisedWireVersions(from('a', content)), undefined, content);
    }
  });

  it('remembers the last advertisement per sender and empties itself when full', () => {
    const caps = new WireCapabilities(2);
    assert.equal(caps.binary('a'), undefined);
    caps.learn(from('a', kp({ wire_versions: [1] })));
    caps.learn(from('b', kp({})));
    caps.learn(from('a', 'plain text changes nothing'));
    assert.deepEqual([caps.binary('a'), caps.binary('b')], [true, false]);
    caps.learn(from('b', kp({ wire_versions: [1] })));
    assert.equal(caps.size, 2, 'an update is no new entry');
    caps.learn(from('c', kp({ wire_versions: [] })));
    assert.deepEqual([caps.size, caps.binary('a'), caps.binary('c')], [1, undefined, false]);
  });
});
