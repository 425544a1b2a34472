import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  type AppDataUpdate,
  applyDelta,
  type CollectionShape,
  componentKey,
  decodeAppDataUpdate,
  decodeComponentMetadata,
  decodeDelta,
  decodeDictionary,
  decodeSnapshot,
  DictionaryError,
  encodeAppDataUpdate,
  encodeComponentMetadata,
  encodeDelta,
  encodeDictionary,
  encodeSnapshot,
  type Entry,
  hashKey,
  type MetadataPolicy,
  type Mutation,
  SHAPES,
} from '../../../lib/dictionary';
import { ByteReader } from '../../../lib/dictionary/byte-reader';
import { ByteWriter, mlsVarintSize, quicComponentIdSize } from '../../../lib/dictionary/byte-writer';

const RUNS = { numRuns: 300 };
const cmp = (a: Uint8Array, b: Uint8Array): number => Buffer.compare(a, b);

function keyArb(shape: CollectionShape): fc.Arbitrary<Uint8Array> {
  if (shape.keyKind === 'inbox') return fc.uint8Array({ minLength: 32, maxLength: 32 });
  if (shape.keyKind === 'component') return fc.integer({ min: 0, max: 0xffff }).map(componentKey);
  // Mostly short keys so that collisions and prefixes happen; a few cross the one-byte length prefix.
  return fc.oneof(fc.uint8Array({ maxLength: 3 }), fc.uint8Array({ minLength: 60, maxLength: 70 }));
}

function valueArb(shape: CollectionShape): fc.Arbitrary<Uint8Array> {
  return shape.valueKind === 'empty' ? fc.constant(new Uint8Array(0)) : fc.uint8Array({ maxLength: 80 });
}

function snapshotArb(shape: CollectionShape): fc.Arbitrary<Entry[]> {
  return fc
    .uniqueArray(fc.record({ key: keyArb(shape), value: valueArb(shape) }, { noNullPrototype: true }), { selector: (e) => Buffer.from(e.key).toString('hex'), maxLength: 12 })
    .map((entries) => entries.sort((a, b) => cmp(a.key, b.key)));
}

const SHAPE_LIST: [string, CollectionShape][] = Object.entries(SHAPES);

const same = (a: Entry[], b: Entry[]): boolean =>
  a.length === b.length && a.every((e, i) => cmp(e.key, b[i].key) === 0 && cmp(e.value, b[i].value) === 0);

/** Applies, returning the entries or the failure code. */
function attempt(snapshot: Entry[], mutations: Mutation[], shape: CollectionShape): Entry[] | string {
  try {
    return applyDelta(snapshot, mutations, shape, 't');
  } catch (err) {
    if (err instanceof DictionaryError) return err.code;
    throw err;
  }
}

function mutationArb(shape: CollectionShape, original: Entry[]): fc.Arbitrary<Mutation> {
  const keys = original.length > 0 ? fc.oneof(keyArb(shape), fc.constantFrom(...original.map((e) => e.key))) : keyArb(shape);
  if (shape.valueKind === 'empty') {
    const byHash =
      original.length > 0 ? [fc.constantFrom(...original.map((e) => e.key)).map((k): Mutation => ({ type: 'remove_by_hash', hash: hashKey(k, shape) }))] : [];
    return fc.oneof(
      keys.map((key): Mutation => ({ type: 'insert', key })),
      keys.map((key): Mutation => ({ type: 'remove', key })),
      ...byHash,
    );
  }
  return fc.oneof(
    fc.tuple(keys, valueArb(shape)).map(([key, value]): Mutation => ({ type: 'insert', key, value })),
    fc.tuple(keys, valueArb(shape)).map(([key, value]): Mutation => ({ type: 'update', key, value })),
    keys.map((key): Mutation => ({ type: 'delete', key })),
  );
}

const policyArb: fc.Arbitrary<MetadataPolicy> = fc.letrec<{ p: MetadataPolicy }>((tie) => ({
  p: fc.oneof(
    { depthSize: 'small' },
    fc.integer({ min: 0, max: 6 }).map((base): MetadataPolicy => ({ kind: 'base', base })),
    fc.array(tie('p'), { maxLength: 3 }).map((policies): MetadataPolicy => ({ kind: 'and', policies })),
    fc.array(tie('p'), { maxLength: 3 }).map((policies): MetadataPolicy => ({ kind: 'any', policies })),
  ),
})).p;

describe('lib/dictionary properties', () => {
  for (const [name, shape] of SHAPE_LIST) {
    it(`META-012 decode(encode(snapshot)) is the identity for ${name}, and encode(decode(bytes)) gives the same bytes`, () => {
      fc.assert(
        fc.property(snapshotArb(shape), (entries) => {
          const bytes = encodeSnapshot(entries, shape);
          const back = decodeSnapshot(bytes, shape, 't');
          assert.ok(same(back, entries));
          assert.deepEqual(encodeSnapshot(back, shape), bytes);
        }),
        RUNS,
      );
    });

    it(`META-013 decode(encode(delta)) is the identity for ${name}`, () => {
      fc.assert(
        fc.property(
          snapshotArb(shape).chain((s) => fc.array(mutationArb(shape, s), { maxLength: 10 })),
          (mutations) => {
            const bytes = encodeDelta(mutations, shape);
            assert.deepEqual(decodeDelta(bytes, shape, 't'), mutations);
          },
        ),
        RUNS,
      );
    });

    it(`META-013 applying a delta equals applying its mutations one by one for ${name}`, () => {
      fc.assert(
        fc.property(
          snapshotArb(shape).chain((s) => fc.tuple(fc.constant(s), fc.array(mutationArb(shape, s), { maxLength: 12 }))),
          ([snapshot, mutations]) => {
            const whole = attempt(snapshot, mutations, shape);
            let step: Entry[] | string = snapshot;
            for (const m of mutations) {
              if (typeof step === 'string') break;
              step = attempt(step, [m], shape);
            }
            if (typeof whole === 'string') assert.equal(typeof step, 'string', `whole failed with ${whole}, steps did not`);
            else {
              assert.ok(typeof step !== 'string', 'the steps failed where the whole delta did not');
              assert.ok(same(whole, step));
              // The result is itself a canonical snapshot.
              assert.ok(same(decodeSnapshot(encodeSnapshot(whole, shape), shape, 't'), whole));
            }
          },
        ),
        RUNS,
      );
    });
  }

  it('META-013 delta application matches a plain map model', () => {
    const shape = SHAPES.mapBytesBytes;
    fc.assert(
      fc.property(
        snapshotArb(shape).chain((s) => fc.tuple(fc.constant(s), fc.array(mutationArb(shape, s), { maxLength: 12 }))),
        ([snapshot, mutations]) => {
          const model = new Map(snapshot.map((e) => [Buffer.from(e.key).toString('hex'), Buffer.from(e.value).toString('hex')]));
          let ok = true;
          for (const m of mutations) {
            if (m.type === 'remove_by_hash') continue;
            const k = Buffer.from(m.key).toString('hex');
            if (m.type === 'insert' ? model.has(k) : !model.has(k)) {
              ok = false;
              break;
            }
            if (m.type === 'delete' || m.type === 'remove') model.delete(k);
            else model.set(k, Buffer.from((m as { value: Uint8Array }).value).toString('hex'));
          }
          const result = attempt(snapshot, mutations, shape);
          assert.equal(typeof result !== 'string', ok);
          if (typeof result !== 'string') {
            const expected = [...model.entries()].sort(([a], [b]) => cmp(Buffer.from(a, 'hex'), Buffer.from(b, 'hex')));
            assert.deepEqual(result.map((e) => [Buffer.from(e.key).toString('hex'), Buffer.from(e.value).toString('hex')]), expected);
          }
        },
      ),
      RUNS,
    );
  });

  it('decode(encode(dictionary)) is the identity and encodings are canonical', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 0xffff }), fc.uint8Array({ maxLength: 100 })), { selector: (t) => t[0], maxLength: 20 }), (pairs) => {
        const m = new Map(pairs);
        const bytes = encodeDictionary(m);
        const back = decodeDictionary(bytes);
        assert.deepEqual([...back.keys()], [...m.keys()].sort((a, b) => a - b));
        for (const [k, v] of m) assert.equal(cmp(back.get(k) as Uint8Array, v), 0);
        assert.deepEqual(encodeDictionary(back), bytes);
      }),
      RUNS,
    );
  });

  it('decode(encode(AppDataUpdate)) is the identity', () => {
    const arb: fc.Arbitrary<AppDataUpdate> = fc.oneof(
      fc.record({ componentId: fc.integer({ min: 0, max: 0xffff }), op: fc.constant('update' as const), update: fc.uint8Array({ maxLength: 100 }) }, { noNullPrototype: true }),
      fc.record({ componentId: fc.integer({ min: 0, max: 0xffff }), op: fc.constant('remove' as const) }, { noNullPrototype: true }),
    );
    fc.assert(fc.property(arb, (p) => assert.deepEqual(decodeAppDataUpdate(encodeAppDataUpdate(p)), p)), RUNS);
  });

  it('the MLS <V> varint and the QUIC component id round-trip in their shortest form', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x3fffffff }), (n) => {
        const bytes = new ByteWriter(mlsVarintSize(n)).mlsVarint(n).finish();
        assert.equal(new ByteReader(bytes, 't').mlsVarint(), n);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff }), (id) => {
        const bytes = new ByteWriter(quicComponentIdSize(id)).quicComponentId(id).finish();
        assert.equal(new ByteReader(bytes, 't').quicComponentId(), id);
      }),
      RUNS,
    );
  });

  it('decode(encode(ComponentMetadata)) is the identity for any policy tree', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9 }), policyArb, policyArb, policyArb, (componentType, insert, upd, del) => {
        const meta = { componentType, permissions: { insert, update: upd, delete: del } };
        assert.deepEqual(decodeComponentMetadata(encodeComponentMetadata(meta)), meta);
      }),
      RUNS,
    );
  });
});
