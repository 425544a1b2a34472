import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { applyDelta, decodeDelta, DictionaryError, encodeDelta, type Entry, hashKey, parseInboxId, SHAPES } from '../../../lib/dictionary';
import { hex, utf8 } from './fixtures';

const k = (s: string): Uint8Array => utf8(s);
const set = (...keys: string[]): Entry[] => keys.map((key) => ({ key: k(key), value: new Uint8Array(0) }));
const keys = (entries: Entry[]): string[] => entries.map((e) => Buffer.from(e.key).toString());

function failCode(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof DictionaryError);
    return err.code;
  }
  assert.fail('expected a DictionaryError');
}

describe('lib/dictionary deltas', () => {
  it('encodes map and set mutations under the collection wire block and decodes them back', () => {
    const map = encodeDelta(
      [
        { type: 'insert', key: k('a'), value: k('1') },
        { type: 'update', key: k('a'), value: k('2') },
        { type: 'delete', key: k('a') },
      ],
      SHAPES.mapBytesBytes,
    );
    assert.deepEqual(map, hex('0d 00 0161 0131 01 0161 0132 02 0161'));
    assert.equal(decodeDelta(map, SHAPES.mapBytesBytes, 't').length, 3);
    const hash = new Uint8Array(32).fill(9);
    const s = encodeDelta([{ type: 'insert', key: k('a') }, { type: 'remove', key: k('a') }, { type: 'remove_by_hash', hash }], SHAPES.setBytes);
    assert.deepEqual(s, hex(`27 00 0161 01 0161 02 ${'09'.repeat(32)}`));
    assert.deepEqual(decodeDelta(s, SHAPES.setBytes, 't')[2], { type: 'remove_by_hash', hash });
  });

  it('rejects an unknown mutation type', () => {
    assert.equal(failCode(() => decodeDelta(hex('03 03 0161'), SHAPES.setBytes, 't')), 'UNKNOWN_MUTATION_TYPE');
    assert.equal(failCode(() => decodeDelta(hex('03 03 0161'), SHAPES.mapBytesBytes, 't')), 'UNKNOWN_MUTATION_TYPE');
  });

  it('META-013 applies mutations in listed order, each on the previous result, accepting repeated and unsorted keys', () => {
    const out = applyDelta(
      set('m'),
      [
        { type: 'insert', key: k('z') },
        { type: 'insert', key: k('a') },
        { type: 'remove', key: k('z') },
        { type: 'insert', key: k('z') },
      ],
      SHAPES.setBytes,
      't',
    );
    assert.deepEqual(keys(out), ['a', 'm', 'z']);
  });

  it('META-013 rejects an insert of a present key, an update or delete of an absent key', () => {
    assert.equal(failCode(() => applyDelta(set('a'), [{ type: 'insert', key: k('a') }], SHAPES.setBytes, 't')), 'DELTA_INSERT_PRESENT');
    assert.equal(failCode(() => applyDelta(set('a'), [{ type: 'remove', key: k('b') }], SHAPES.setBytes, 't')), 'DELTA_KEY_ABSENT');
    const map: Entry[] = [{ key: k('a'), value: k('1') }];
    assert.equal(failCode(() => applyDelta(map, [{ type: 'update', key: k('b'), value: k('2') }], SHAPES.mapBytesBytes, 't')), 'DELTA_KEY_ABSENT');
    assert.equal(failCode(() => applyDelta(map, [{ type: 'delete', key: k('b') }], SHAPES.mapBytesBytes, 't')), 'DELTA_KEY_ABSENT');
  });

  it('META-013 leaves the snapshot untouched when a later mutation fails (atomic delta)', () => {
    const snapshot = set('a', 'b');
    const before = keys(snapshot);
    assert.equal(
      failCode(() => applyDelta(snapshot, [{ type: 'remove', key: k('a') }, { type: 'insert', key: k('c') }, { type: 'remove', key: k('x') }], SHAPES.setBytes, 't')),
      'DELTA_KEY_ABSENT',
    );
    assert.deepEqual(keys(snapshot), before);
  });

  it('META-013 resolves remove_by_hash by SHA-256 of the key TLS encoding', () => {
    const alice = parseInboxId('a1'.repeat(32));
    const bob = parseInboxId('b2'.repeat(32));
    const snapshot: Entry[] = [alice, bob].map((key) => ({ key, value: new Uint8Array(0) }));
    const h = hashKey(bob, SHAPES.setInbox);
    // The TLS encoding of an InboxId key is 00 || 32 bytes.
    const expected = crypto.createHash('sha256').update(Buffer.concat([Buffer.of(0), bob])).digest();
    assert.deepEqual(Buffer.from(h), expected);
    const out = applyDelta(snapshot, [{ type: 'remove_by_hash', hash: h }], SHAPES.setInbox, 't');
    assert.deepEqual(out.map((e) => e.key), [alice]);
    // A byte-string key hashes with its length prefix.
    const bs = hashKey(k('ab'), SHAPES.setBytes);
    assert.deepEqual(Buffer.from(bs), crypto.createHash('sha256').update(Buffer.from('026162', 'hex')).digest());
  });

  it('META-013 rejects a remove_by_hash that matches no key', () => {
    const h = hashKey(k('nope'), SHAPES.setBytes);
    assert.equal(failCode(() => applyDelta(set('a'), [{ type: 'remove_by_hash', hash: h }], SHAPES.setBytes, 't')), 'DELTA_HASH_UNRESOLVED');
  });

  it('META-013 rejects a remove_by_hash that matches two keys', () => {
    // SHA-256 has no known collisions, so the resolver is given a hasher under which "a" and "b" share the probe's hash.
    const probe = new Uint8Array(32);
    const lookupKey = Buffer.from(probe).toString('base64');
    const real = (data: Uint8Array): string => Buffer.from(data).toString('base64');
    const hasherTwo = (data: Uint8Array): string => (data[1] === 0x61 || data[1] === 0x62 ? lookupKey : real(data));
    assert.equal(
      failCode(() => applyDelta(set('a', 'b', 'c'), [{ type: 'remove_by_hash', hash: probe }], SHAPES.setBytes, 't', { hasher: hasherTwo })),
      'DELTA_HASH_UNRESOLVED',
    );
    // The same resolver finds exactly one key when only one collides.
    const hasherOne = (data: Uint8Array): string => (data[1] === 0x61 ? lookupKey : real(data));
    assert.deepEqual(keys(applyDelta(set('a', 'b'), [{ type: 'remove_by_hash', hash: probe }], SHAPES.setBytes, 't', { hasher: hasherOne })), ['b']);
  });

  it('META-013 resolves remove_by_hash against the snapshot before the delta, not the running result', () => {
    const h = hashKey(k('n'), SHAPES.setBytes);
    // "n" is inserted by the delta itself: the hash is looked up in the snapshot before the delta, where "n" is absent.
    assert.equal(
      failCode(() => applyDelta(set('a'), [{ type: 'insert', key: k('n') }, { type: 'remove_by_hash', hash: h }], SHAPES.setBytes, 't')),
      'DELTA_HASH_UNRESOLVED',
    );
    // "a" was in the snapshot before the delta; removing it first makes the by-hash removal name an absent key.
    const ha = hashKey(k('a'), SHAPES.setBytes);
    assert.equal(
      failCode(() => applyDelta(set('a'), [{ type: 'remove', key: k('a') }, { type: 'remove_by_hash', hash: ha }], SHAPES.setBytes, 't')),
      'DELTA_KEY_ABSENT',
    );
  });
});
