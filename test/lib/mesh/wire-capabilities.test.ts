import assert from 'node:assert/strict';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { advertisedCapabilities, advertisedWireVersions, WireCapabilities } from '../../../lib/mesh/wire-capabilities';

function from(sender: string, content: string, extra: Partial<MeshMessage> = {}): MeshMessage {
  return createMessage({ id: MessageId.random(), sender, recipient: 'gw', app_id: 't', priority: 'low', ttl: 8, hop_count: 0, timestamp: 1n, content, ...extra });
}
/** A key package body with the two fields every version writes, plus `body`. */
const kp = (body: unknown): string =>
  `__MLS_KEY_PKG__${typeof body === 'string' ? body : JSON.stringify({ user_id: 'a', key_package_data: [], ...(body as object) })}`;

describe('mesh wire capabilities (key package capability lists)', () => {
  it('reads the list of a key package, ignoring entries that are not byte values', () => {
    assert.deepEqual(advertisedWireVersions(from('a', kp({ wire_versions: [1] }))), [1]);
    assert.deepEqual(advertisedWireVersions(from('a', kp({ wire_versions: [2, 1, 1, 300, -1, 1.5, '1', null] }))), [1, 2]);
  });

  it('takes a key package without the field for an older peer: JSON only', () => {
    assert.deepEqual(advertisedWireVersions(from('a', kp({}))), []);
    assert.deepEqual(advertisedWireVersions(from('a', kp({ wire_versions: null }))), []);
  });

  it('keeps every list, each on its own', () => {
    const caps = advertisedCapabilities(from('a', kp({ wire_versions: [1], env_versions: [1], ctrl_versions: [2], data_versions: [1, 2, 3] })));
    assert.deepEqual(caps, { wire_versions: [1], env_versions: [1], rich_versions: [], data_versions: [1, 2, 3], ctrl_versions: [2], svc_versions: [], ack_versions: [] });
  });

  it('learns nothing from other content or a body that is not a key package', () => {
    for (const content of ['hello', '__MLS_WELCOME__{"wire_versions":[1]}', kp('{not json'), kp('[1]'), kp('null'), kp({ wire_versions: 'all' }), kp('{"wire_versions":[1]}')]) {
      assert.equal(advertisedWireVersions(from('a', content)), undefined, content);
    }
  });

  it('remembers the last advertisement per sender and empties itself when full', () => {
    const caps = new WireCapabilities(2);
    assert.equal(caps.binary('a'), undefined);
    caps.learn(from('a', kp({ wire_versions: [1], env_versions: [1] })));
    caps.learn(from('b', kp({})));
    caps.learn(from('a', 'plain text changes nothing'));
    assert.deepEqual([caps.binary('a'), caps.binary('b')], [true, false]);
    assert.deepEqual(caps.of('a')?.env_versions, [1]);
    caps.learn(from('b', kp({ wire_versions: [1] })));
    assert.equal(caps.size, 2, 'an update is no new entry');
    caps.learn(from('c', kp({ wire_versions: [] })));
    assert.deepEqual([caps.size, caps.binary('a'), caps.binary('c')], [1, undefined, false]);
  });
});
