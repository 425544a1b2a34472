/**
 * Mutation fuzzing of every decoder and of applyCommit: 102 000 mutated payloads, proposal lists and
 * dictionaries from a fixed seed. Only the library's own error type may escape a decoder, applyCommit never
 * throws for hostile bytes, an accepted commit still yields a dictionary a joiner accepts, and the heap stays
 * bounded across the run.
 */
import assert from 'node:assert/strict';
import {
  applyCommit,
  type CollectionShape,
  componentKey,
  CommitRejectedError,
  decodeAppDataUpdate,
  decodeComponentMetadata,
  decodeDelta,
  decodeDictionary,
  decodeMembershipEntry,
  decodeOneshotMessage,
  decodeSnapshot,
  describeFields,
  DictionaryError,
  encodeAppDataUpdate,
  encodeComponentMetadata,
  hashKey,
  ID,
  readUserData,
  runOperation,
  SHAPES,
  validateWelcome,
} from '../../../lib/dictionary';
import { ALICE, appEntry, BOB, delta, dmBytes, groupBytes, hex, inbox, update, utf8 } from './fixtures';

/** mulberry32: a small deterministic generator, so a failure replays from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const INTERESTING = [0x00, 0x01, 0x3f, 0x40, 0x7f, 0x80, 0xbf, 0xc0, 0xff];

function mutate(input: Uint8Array, next: () => number): Uint8Array {
  const pick = (n: number): number => Math.floor(next() * n);
  let b = Buffer.from(input);
  const rounds = 1 + pick(3);
  for (let r = 0; r < rounds; r++) {
    const at = b.length === 0 ? 0 : pick(b.length);
    switch (pick(7)) {
      case 0:
        if (b.length) b[at] ^= 1 << pick(8);
        break;
      case 1:
        if (b.length) b[at] = INTERESTING[pick(INTERESTING.length)];
        break;
      case 2:
        b = Buffer.concat([b.subarray(0, at), Buffer.of(pick(256)), b.subarray(at)]);
        break;
      case 3:
        b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1 + pick(4))]);
        break;
      case 4:
        b = b.subarray(0, at);
        break;
      case 5: {
        const len = pick(16);
        b = Buffer.concat([b.subarray(0, at), b.subarray(at, at + len), b.subarray(at)]);
        break;
      }
      default:
        if (b.length) b[at] = pick(256);
    }
  }
  return new Uint8Array(b);
}

function onlyOurs(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof DictionaryError)) throw new Error(`a foreign error escaped: ${String(err)}`, { cause: err });
  }
}

describe('lib/dictionary fuzz', function () {
  this.timeout(120_000);

  const appDefs = [0xc001, 0xc002].map((id, i) => ({
    id,
    name: `f${i}`,
    componentType: i === 0 ? 3 : 7,
    permissions: appEntry(1).permissions as { insert: never; update: never; delete: never },
    inGroups: true,
    inDms: true,
  }));
  const dictionaries = [groupBytes({ definitions: appDefs, description: 'd', appData: '{}' }), dmBytes()];
  const proposalSeeds: Uint8Array[] = [
    update(ID.GROUP_NAME, utf8('Kitchen')),
    update(ID.ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(BOB) }])),
    update(ID.SUPER_ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'remove_by_hash', hash: hashKey(inbox(ALICE), SHAPES.setInbox) }, { type: 'insert', key: inbox(BOB) }])),
    update(ID.GROUP_MEMBERSHIP, delta(SHAPES.mapInboxBytes, [{ type: 'insert', key: inbox(BOB), value: hex('0a020801') }])),
    update(ID.USER_DISPLAY_NAME, delta(SHAPES.mapInboxBytes, [{ type: 'insert', key: inbox(ALICE), value: utf8('Alice') }])),
    update(0xc001, delta(SHAPES.mapBytesBytes, [{ type: 'insert', key: utf8('k'), value: utf8('v') }, { type: 'update', key: utf8('k'), value: utf8('w') }])),
    update(ID.COMPONENT_REGISTRY, delta(SHAPES.registry, [{ type: 'insert', key: componentKey(0xc0aa), value: encodeComponentMetadata(appEntry(2)) }])),
    update(ID.MESSAGE_DISAPPEAR_IN_NS, hex('0000000000000010')),
    update(ID.MIN_SUPPORTED_PROTOCOL_VERSION, utf8('1.2.3')),
    encodeAppDataUpdate({ componentId: ID.GROUP_DESCRIPTION, op: 'remove' }),
  ];
  const payloadSeeds = proposalSeeds.map((p) => decodeAppDataUpdate(p));

  it('survives 102 000 mutated inputs with only DictionaryError and bounded memory', () => {
    const next = rng(0xd1c7);
    const pick = (n: number): number => Math.floor(next() * n);
    const heapStart = process.memoryUsage().heapUsed;
    let heapMax = heapStart;
    let accepted = 0;
    let rejected = 0;
    const reasons = new Set<string>();
    const record = (r: ReturnType<typeof applyCommit>, preValid = true): void => {
      if (r.ok) {
        accepted++;
        // An accepted commit keeps the identity a joiner needs (immutables and the registry cannot go).
        if (preValid) assert.equal(validateWelcome(r.bytes).ok, true);
        decodeDictionary(r.bytes);
      } else {
        rejected++;
        assert.ok(r.error instanceof CommitRejectedError);
        assert.equal(r.error.code, 'COMMIT_REJECTED');
        reasons.add(r.error.reason);
      }
    };
    const shapes: CollectionShape[] = Object.values(SHAPES);
    const ITERATIONS = 102_000;
    for (let i = 0; i < ITERATIONS; i++) {
      const base = dictionaries[pick(dictionaries.length)];
      const actor = next() < 0.7 ? ALICE : BOB;
      switch (i % 6) {
        case 0:
        case 1: {
          // A proposal list with one or two mutated proposals (mutated bytes, before decoding).
          const list = Array.from({ length: 1 + pick(3) }, () => proposalSeeds[pick(proposalSeeds.length)]);
          list[pick(list.length)] = mutate(list[pick(list.length)], next);
          record(applyCommit(base, list, actor, { external: next() < 0.1 }));
          break;
        }
        case 2: {
          // A well-formed proposal whose payload is mutated: reaches the delta and value decoders.
          const seed = payloadSeeds[pick(payloadSeeds.length)];
          const p = seed.op === 'update' ? encodeAppDataUpdate({ ...seed, update: mutate(seed.update, next) }) : proposalSeeds[0];
          record(applyCommit(base, [p, proposalSeeds[pick(proposalSeeds.length)]], actor));
          break;
        }
        case 3: {
          // A mutated dictionary under valid proposals, and the readers over it.
          const d = mutate(base, next);
          record(applyCommit(d, [proposalSeeds[pick(proposalSeeds.length)]], actor), validateWelcome(d).ok);
          if (i % 4 === 3) {
            onlyOurs(() => describeFields(d));
            onlyOurs(() => readUserData(d));
          }
          break;
        }
        case 4: {
          const shape = shapes[pick(shapes.length)];
          const seed = payloadSeeds[pick(payloadSeeds.length)];
          const bytes = mutate(seed.op === 'update' ? seed.update : base, next);
          onlyOurs(() => decodeDelta(bytes, shape, 'f'));
          onlyOurs(() => decodeSnapshot(bytes, shape, 'f'));
          break;
        }
        default: {
          const entry = mutate(encodeComponentMetadata({ ...appEntry(2), externalCommitterPermissions: appEntry(1).permissions }), next);
          onlyOurs(() => decodeComponentMetadata(entry));
          onlyOurs(() => decodeMembershipEntry(entry));
          onlyOurs(() => decodeOneshotMessage(entry));
          if (i % 4 === 1) onlyOurs(() => runOperation('apply', { dictionary: base, proposals: [entry], actor }));
        }
      }
      if (i % 5000 === 0) heapMax = Math.max(heapMax, process.memoryUsage().heapUsed);
    }
    heapMax = Math.max(heapMax, process.memoryUsage().heapUsed);
    // Each input is a few hundred bytes; a decoder that allocated from a hostile length would blow far past this.
    assert.ok(heapMax - heapStart < 256 * 1024 * 1024, `heap grew by ${Math.round((heapMax - heapStart) / 1048576)} MiB`);
    assert.ok(accepted > 1000, `some mutated commits still apply (${accepted})`);
    assert.ok(rejected > 10_000, `most are rejected (${rejected})`);
    assert.ok(reasons.size >= 10, `many distinct reasons are reached: ${[...reasons].join(', ')}`);
  });

  it('rejects a hostile length prefix without allocating it', () => {
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 1000; i++) {
      onlyOurs(() => decodeDictionary(hex('bfffffff 8004')));
      onlyOurs(() => decodeSnapshot(hex('bfffffff 00'), SHAPES.mapBytesBytes, 'h'));
      onlyOurs(() => decodeComponentMetadata(hex('12ffffffff0f')));
    }
    assert.ok(process.memoryUsage().arrayBuffers - before < 16 * 1024 * 1024);
  });
});
