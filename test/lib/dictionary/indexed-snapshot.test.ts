import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import {
  applyDelta,
  type CollectionShape,
  decodeSnapshot,
  DictionaryError,
  encodeSnapshot,
  type Entry,
  hashKey,
  type Mutation,
  SHAPES,
} from '../../../lib/dictionary';
import { applyDeltaIndexed, indexSnapshot } from '../../../lib/dictionary/indexed-snapshot';
import { isUtf8Range } from '../../../lib/dictionary/utf8-range';

const SHAPES_INDEXED: [string, CollectionShape][] = [
  ['mapBytesBytes', SHAPES.mapBytesBytes],
  ['mapInboxBytes', SHAPES.mapInboxBytes],
  ['setBytes', SHAPES.setBytes],
  ['setInbox', SHAPES.setInbox],
];

function outcome(fn: () => Uint8Array): Uint8Array | string {
  try {
    return fn();
  } catch (err) {
    if (err instanceof DictionaryError) return err.code;
    throw err;
  }
}

function keyArb(shape: CollectionShape): fc.Arbitrary<Uint8Array> {
  return shape.keyKind === 'inbox' ? fc.constantFrom(...[0, 1, 2, 3, 4, 5].map((i) => new Uint8Array(32).fill(i))) : fc.uint8Array({ maxLength: 2 });
}

function mutationArb(shape: CollectionShape, snapshot: Entry[]): fc.Arbitrary<Mutation> {
  const keys = snapshot.length ? fc.oneof(keyArb(shape), fc.constantFrom(...snapshot.map((e) => e.key))) : keyArb(shape);
  const value = fc.uint8Array({ maxLength: 4 });
  if (shape.valueKind === 'empty') {
    const byHash = snapshot.length ? [fc.constantFrom(...snapshot.map((e) => e.key)).map((k): Mutation => ({ type: 'remove_by_hash', hash: hashKey(k, shape) }))] : [];
    return fc.oneof(
      keys.map((key): Mutation => ({ type: 'insert', key })),
      keys.map((key): Mutation => ({ type: 'remove', key })),
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((hash): Mutation => ({ type: 'remove_by_hash', hash })),
      ...byHash,
    );
  }
  return fc.oneof(
    fc.tuple(keys, value).map(([key, v]): Mutation => ({ type: 'insert', key, value: v })),
    fc.tuple(keys, value).map(([key, v]): Mutation => ({ type: 'update', key, value: v })),
    keys.map((key): Mutation => ({ type: 'delete', key })),
  );
}

describe('lib/dictionary indexed snapshots (the applyCommit hot path)', () => {
  for (const [name, shape] of SHAPES_INDEXED) {
    it(`META-013 gives the same bytes and the same error codes as the entry path for ${name}`, () => {
      const snapshotArb = fc
        .uniqueArray(fc.record({ key: keyArb(shape), value: shape.valueKind === 'empty' ? fc.constant(new Uint8Array(0)) : fc.uint8Array({ maxLength: 4 }) }, { noNullPrototype: true }), {
          selector: (e) => Buffer.from(e.key).toString('hex'),
          maxLength: 8,
        })
        .map((es) => es.sort((a, b) => Buffer.compare(a.key, b.key)));
      fc.assert(
        fc.property(
          snapshotArb.chain((s) => fc.tuple(fc.constant(s), fc.array(mutationArb(shape, s), { maxLength: 10 }))),
          ([snapshot, mutations]) => {
            const bytes = encodeSnapshot(snapshot, shape);
            const viaEntries = outcome(() => encodeSnapshot(applyDelta(decodeSnapshot(bytes, shape, 't'), mutations, shape, 't'), shape));
            const viaIndex = outcome(() => applyDeltaIndexed(indexSnapshot(bytes, shape, 't'), mutations, 't'));
            assert.deepEqual(viaIndex, viaEntries);
          },
        ),
        { numRuns: 400 },
      );
    });

    it(`META-012 rejects exactly the snapshots the entry decoder rejects, with the same code, for ${name}`, () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
          const a = outcome(() => encodeSnapshot(decodeSnapshot(bytes, shape, 't'), shape));
          const b = outcome(() => {
            indexSnapshot(bytes, shape, 't');
            return encodeSnapshot(decodeSnapshot(bytes, shape, 't'), shape);
          });
          assert.deepEqual(b, a);
        }),
        { numRuns: 1000 },
      );
    });
  }

  it('checks UTF-8 of a range exactly as node:buffer isUtf8 checks a view', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), fc.nat(4), fc.nat(4), (bytes, a, b) => {
        const start = Math.min(a, bytes.length);
        const end = Math.max(start, bytes.length - b);
        assert.equal(isUtf8Range(bytes, start, end), isUtf8(bytes.subarray(start, end)));
      }),
      { numRuns: 3000 },
    );
    for (const hex of ['eda080', 'c080', 'f4908080', 'e080af', 'f08f8080', 'efbbbf', 'f09f9880', 'c2']) {
      const b = Buffer.from(hex, 'hex');
      assert.equal(isUtf8Range(b, 0, b.length), isUtf8(b), hex);
    }
  });
});
