import { strict as assert } from 'node:assert';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { KEY_PACKAGE_VERSION_LISTS, keyPackageOf, parseKeyPackage } from '../../../lib/mesh/key-package';
import { createMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { loadReferenceVectors } from '../../support/reference-vectors';

interface VectorFile {
  parse: Array<{ name: string; json: string; expect: Record<string, unknown> }>;
  emission_is_not_pinned: { example: string };
}

// The stamps are u64/i64 on the wire; the parser returns bigints, the file writes numbers (read as text here).
const vectors = loadReferenceVectors<VectorFile>('key-package-v1.vectors.json', (text) =>
  text.replace(/"(remaining_lifetime_ms|timestamp_ms)":\s*(-?\d+)/g, '"$1": "$2"'),
);

describe('reference vectors: key-package-v1.vectors.json', () => {
  if (!vectors) return;
  it('has the 4 parse cases it was read with', () => assert.equal(vectors.parse.length, 4));
  for (const c of vectors.parse) {
    it(`parse: ${c.name}`, () => {
      const got = parseKeyPackage(c.json);
      const plain = { ...got, key_package_data: [...got.key_package_data], remaining_lifetime_ms: String(got.remaining_lifetime_ms), timestamp_ms: String(got.timestamp_ms) };
      assert.deepEqual(plain, c.expect);
    });
  }
  it('parses the illustrative emission example (not pinned as bytes, but a peer must read it)', () => {
    const got = parseKeyPackage(vectors.emission_is_not_pinned.example);
    for (const list of KEY_PACKAGE_VERSION_LISTS) assert.deepEqual(got[list], [], list);
  });
});

describe('parseKeyPackage', () => {
  it('reads the lists as sets of byte values, ascending, and keeps every list apart', () => {
    const got = parseKeyPackage('{"user_id":"u","key_package_data":[],"wire_versions":[2,1,1,300,-1,1.5,"1",null],"data_versions":[3,1],"ctrl_versions":null}');
    assert.deepEqual([got.wire_versions, got.data_versions, got.ctrl_versions], [[1, 2], [1, 3], []]);
  });
  it('keeps a 64-bit lifetime exactly', () => {
    assert.equal(parseKeyPackage('{"user_id":"u","key_package_data":[],"remaining_lifetime_ms":18446744073709551615}').remaining_lifetime_ms, 18446744073709551615n);
  });
  for (const [body, field] of [
    ['[1]', 'body'],
    ['{"key_package_data":[]}', 'user_id'],
    ['{"user_id":"u"}', 'key_package_data'],
    ['{"user_id":7,"key_package_data":[]}', 'user_id'],
    ['{"user_id":"u","key_package_data":[256]}', 'key_package_data'],
    ['{"user_id":"u","key_package_data":[],"wire_versions":"all"}', 'wire_versions'],
    ['{"user_id":"u","key_package_data":[],"remaining_lifetime_ms":-1}', 'remaining_lifetime_ms'],
    ['{"user_id":"u","key_package_data":[],"timestamp_ms":1.5}', 'timestamp_ms'],
    ['{"user_id":"u","key_package_data":[],"session_reset":1}', 'session_reset'],
    ['{"user_id":"u","user_id":"v","key_package_data":[]}', 'user_id'],
  ]) {
    it(`refuses ${body} (${field}) with BAD_KEY_PACKAGE`, () => {
      assert.throws(() => parseKeyPackage(body), (err: unknown) => err instanceof MeshDecodeError && err.code === 'BAD_KEY_PACKAGE' && err.details?.field === field);
    });
  }
  it('refuses text that is not JSON with the JSON reader\'s own decode error', () => {
    assert.throws(() => parseKeyPackage('{not json'), MeshDecodeError);
  });
  it('keyPackageOf: undefined for other content, the parse for a key package', () => {
    const m = (content: string) => createMessage({ id: MessageId.random(), sender: 'a', recipient: 'b', app_id: 't', priority: 'low', ttl: 8, hop_count: 0, timestamp: 1n, content });
    assert.equal(keyPackageOf(m('hello')), undefined);
    assert.equal(keyPackageOf(m('__MLS_WELCOME__{}')), undefined);
    assert.deepEqual(keyPackageOf(m('__MLS_KEY_PKG__{"user_id":"a","key_package_data":[9],"env_versions":[1]}'))?.env_versions, [1]);
  });
});
