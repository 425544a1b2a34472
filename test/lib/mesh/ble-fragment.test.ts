import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { fromHex, toHex } from '../../../lib/bytes';
import {
  BLE_DEFAULT_FRAGMENT_SIZE,
  BLE_MAX_FRAGMENT_SIZE,
  FRAGMENT_IDLE_TIMEOUT_MS,
  MAX_FRAGMENT_ASSEMBLIES,
  MAX_FRAGMENTS_PER_MESSAGE,
  MAX_REASSEMBLED_BYTES,
  FragmentReassembler,
  FragmentDropEvent,
  decodeFragment,
  encodeFragments,
  fragmentPayloadSize,
  fragmentSizeForAttMtu,
  fragmentSizeForMtu,
} from '../../../lib/mesh/ble-fragment';
import { MeshDecodeError, MeshEncodeError, MeshError } from '../../../lib/mesh/errors';

const UUID = '00000000-0000-0000-0000-000000000000';
const ID_A = '11111111-2222-4333-8444-555555555555';

// Golden vector 1 of the facts (wire_v1_golden_layout_is_frozen), 37 bytes.
const GOLDEN_1 = fromHex(
  'f5' + '00'.repeat(16) + '0161' + '0162' + '0163' + '01' + '08' + '00' + '00' + '00' + '00' + '00' + '00' + '00' + '00' + '01' + '00' + '00' + '00',
) as Uint8Array;

function bytesOf(length: number, seed = 1): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

function expectCode(fn: () => unknown, type: typeof MeshError, code: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof type, `expected ${type.name}, got ${String(err)}`);
    assert.equal((err as MeshError).code, code);
    return true;
  });
}

class Clock {
  t = 0;
  now = (): number => this.t;
}

/** A fragment built by hand, for shapes encodeFragments refuses to produce. */
function rawFragment(id: string, index: number, total: number, data: Uint8Array): Uint8Array {
  const idBytes = Buffer.from(id, 'utf8');
  const head = Buffer.alloc(10 + idBytes.length);
  head.write('OP', 0, 'ascii');
  head[2] = 1;
  head[3] = idBytes.length;
  idBytes.copy(head, 4);
  head.writeUInt16LE(index, 4 + idBytes.length);
  head.writeUInt16LE(total, 6 + idBytes.length);
  head.writeUInt16LE(data.length, 8 + idBytes.length);
  return new Uint8Array(Buffer.concat([head, data]));
}

function fragmentsOf(frame: Uint8Array, id: string, size = 185): Uint8Array[] {
  return encodeFragments(frame, id, size);
}

describe('ble-fragment', () => {
  it('defaults to the reference limits', () => {
    assert.deepEqual(
      [BLE_DEFAULT_FRAGMENT_SIZE, BLE_MAX_FRAGMENT_SIZE, MAX_FRAGMENTS_PER_MESSAGE, MAX_REASSEMBLED_BYTES, MAX_FRAGMENT_ASSEMBLIES, FRAGMENT_IDLE_TIMEOUT_MS],
      [185, 512, 512, 1_048_576, 64, 30_000],
    );
  });

  describe('fragmentSizeForMtu', () => {
    it('uses 185 when the peer reported nothing', () => {
      assert.equal(fragmentSizeForMtu(), 185);
      assert.equal(fragmentSizeForMtu(Number.NaN), 185);
    });
    it('falls back to 185 for a report below 185 instead of trusting it', () => {
      assert.equal(fragmentSizeForMtu(20), 185);
      assert.equal(fragmentSizeForMtu(184), 185);
    });
    it('keeps a report between 185 and 512', () => {
      assert.equal(fragmentSizeForMtu(185), 185);
      assert.equal(fragmentSizeForMtu(244), 244);
      assert.equal(fragmentSizeForMtu(512), 512);
    });
    it('clamps a report above 512 to 512', () => {
      assert.equal(fragmentSizeForMtu(513), 512);
      assert.equal(fragmentSizeForMtu(65535), 512);
    });
    it('subtracts the ATT header from a raw ATT MTU', () => {
      assert.equal(fragmentSizeForAttMtu(247), 244);
      assert.equal(fragmentSizeForAttMtu(517), 512);
      assert.equal(fragmentSizeForAttMtu(23), 185);
      assert.equal(fragmentSizeForAttMtu(), BLE_DEFAULT_FRAGMENT_SIZE);
    });
  });

  describe('encodeFragments', () => {
    it('frames golden vector 1 as the 83-byte carrier the facts derive', () => {
      const fragments = encodeFragments(GOLDEN_1, UUID, 185);
      assert.equal(fragments.length, 1);
      const expected = '4f500124' + Buffer.from(UUID, 'ascii').toString('hex') + '000001002500' + toHex(GOLDEN_1);
      assert.equal(toHex(fragments[0]), expected);
      assert.equal(fragments[0].length, 83);
    });

    it('gives fragments that share nothing with the frame or with each other', () => {
      const frame = bytesOf(139 * 3);
      const fragments = encodeFragments(frame, UUID, 185);
      const before = fragments.map((f) => toHex(f));
      frame.fill(0xee);
      assert.deepEqual(fragments.map((f) => toHex(f)), before, 'the frame changed after encoding');
      fragments[1]!.fill(0);
      assert.equal(toHex(fragments[0]!), before[0]);
      assert.equal(toHex(fragments[2]!), before[2]);
      assert.ok(fragments.every((f) => Object.getPrototypeOf(f) === Uint8Array.prototype));
    });

    it('writes index, total and data_len little-endian', () => {
      const frame = bytesOf(139 * 300);
      const fragments = encodeFragments(frame, UUID, 185);
      assert.equal(fragments.length, 300);
      const f = fragments[258];
      const at = 4 + 36;
      assert.deepEqual([...f.subarray(at, at + 6)], [0x02, 0x01, 0x2c, 0x01, 139, 0]);
    });

    it('carries fragmentSize − 46 payload bytes with a UUID id, so every write is at most the fragment size', () => {
      assert.equal(fragmentPayloadSize(UUID, 185), 139);
      const fragments = encodeFragments(bytesOf(1000), UUID, 185);
      assert.equal(fragments.length, Math.ceil(1000 / 139));
      for (const f of fragments) assert.ok(f.length <= 185);
      assert.equal(fragments[fragments.length - 1].length, 46 + (1000 % 139));
    });

    it('allows 512 fragments and refuses the 513th: 71 168 bytes at 185', () => {
      assert.equal(encodeFragments(bytesOf(71_168), UUID, 185).length, 512);
      expectCode(() => encodeFragments(bytesOf(71_169), UUID, 185), MeshEncodeError, 'FRAGMENT_LIMIT');
    });

    it('allows 238 592 bytes at 512 and refuses one more', () => {
      assert.equal(encodeFragments(bytesOf(238_592), UUID, 512).length, 512);
      expectCode(() => encodeFragments(bytesOf(238_593), UUID, 512), MeshEncodeError, 'FRAGMENT_LIMIT');
    });

    it('refuses an empty frame, an id over 255 bytes and a size with no room for data', () => {
      expectCode(() => encodeFragments(new Uint8Array(0), UUID, 185), MeshEncodeError, 'EMPTY_FRAME');
      expectCode(() => encodeFragments(bytesOf(10), 'x'.repeat(256), 512), MeshEncodeError, 'FRAGMENT_ID_TOO_LONG');
      expectCode(() => encodeFragments(bytesOf(10), UUID, 46), MeshEncodeError, 'FRAGMENT_SIZE_TOO_SMALL');
      expectCode(() => encodeFragments(bytesOf(10), UUID, 100.5), MeshEncodeError, 'FRAGMENT_SIZE_TOO_SMALL');
    });

    it('returns independent buffers, not views of the frame', () => {
      const frame = bytesOf(400);
      const fragments = encodeFragments(frame, UUID, 185);
      frame.fill(0);
      assert.notEqual(decodeFragment(fragments[0]).data[0], 0);
    });
  });

  describe('decodeFragment', () => {
    const good = (): Uint8Array => encodeFragments(bytesOf(300), ID_A, 185)[1];

    it('reads back what encodeFragments wrote', () => {
      const d = decodeFragment(good());
      assert.equal(d.messageId, ID_A);
      assert.equal(d.index, 1);
      assert.equal(d.total, 3);
      assert.deepEqual(d.data, bytesOf(300).subarray(139, 278));
    });

    it('ignores bytes after data_len', () => {
      const f = good();
      const padded = new Uint8Array(f.length + 7);
      padded.set(f);
      padded.fill(0xee, f.length);
      assert.deepEqual(decodeFragment(padded).data, decodeFragment(f).data);
    });

    it('rejects a write shorter than the fixed header', () => {
      expectCode(() => decodeFragment(good().subarray(0, 9)), MeshDecodeError, 'FRAGMENT_TOO_SHORT');
    });
    it('rejects a foreign magic', () => {
      const f = good();
      f[1] = 0x51;
      expectCode(() => decodeFragment(f), MeshDecodeError, 'BAD_FRAGMENT_MAGIC');
    });
    it('rejects a version other than 1', () => {
      const f = good();
      f[2] = 2;
      expectCode(() => decodeFragment(f), MeshDecodeError, 'BAD_FRAGMENT_VERSION');
    });
    it('rejects a write that ends inside the id', () => {
      expectCode(() => decodeFragment(good().subarray(0, 20)), MeshDecodeError, 'FRAGMENT_TRUNCATED');
    });
    it('rejects an id that is not UTF-8', () => {
      const f = good();
      f[4] = 0xff;
      expectCode(() => decodeFragment(f), MeshDecodeError, 'BAD_FRAGMENT_ID');
    });
    it('rejects a data_len beyond the write', () => {
      const f = good();
      expectCode(() => decodeFragment(f.subarray(0, f.length - 1)), MeshDecodeError, 'FRAGMENT_TRUNCATED');
    });
    it('rejects total 0', () => {
      const f = good();
      f[4 + 36 + 2] = 0;
      f[4 + 36 + 3] = 0;
      expectCode(() => decodeFragment(f), MeshDecodeError, 'BAD_FRAGMENT_TOTAL');
    });
    it('rejects index ≥ total', () => {
      const f = good();
      f[4 + 36] = 3;
      expectCode(() => decodeFragment(f), MeshDecodeError, 'BAD_FRAGMENT_INDEX');
    });
    it('rejects a total above 512 on receive', () => {
      const f = good();
      f[4 + 36 + 2] = 513 & 0xff;
      f[4 + 36 + 3] = 513 >> 8;
      expectCode(() => decodeFragment(f), MeshDecodeError, 'FRAGMENT_LIMIT');
    });
    it('rejects something that is not bytes with its own error type', () => {
      expectCode(() => decodeFragment('OP' as unknown as Uint8Array), MeshDecodeError, 'FRAGMENT_NOT_BYTES');
    });
  });

  describe('FragmentReassembler', () => {
    it('reassembles fragments arriving in any order into a fresh copy of the frame', () => {
      const frame = bytesOf(2000, 7);
      const fragments = fragmentsOf(frame, ID_A);
      const order = fragments.map((_, i) => i).sort((a, b) => ((a * 7) % 13) - ((b * 7) % 13));
      const r = new FragmentReassembler();
      let result;
      for (const [n, i] of order.entries()) {
        result = r.push(fragments[i]);
        if (n < order.length - 1) assert.deepEqual(result, { status: 'incomplete', messageId: ID_A, received: n + 1, total: fragments.length });
      }
      assert.ok(result && result.status === 'complete');
      assert.deepEqual(result.frame, frame);
      assert.equal(r.size, 0);
      fragments.forEach((f) => f.fill(0));
      assert.deepEqual(result.frame, frame);
    });

    it('decodes total == 1 at once and leaves an open assembly of the same id alone', () => {
      const r = new FragmentReassembler();
      r.push(fragmentsOf(bytesOf(300), ID_A)[0]);
      const single = r.push(fragmentsOf(GOLDEN_1, ID_A)[0]);
      assert.ok(single.status === 'complete');
      assert.deepEqual(single.frame, GOLDEN_1);
      assert.deepEqual(r.progress(ID_A), { received: 1, total: 3, bytes: 139 });
    });

    it('lets a duplicate index overwrite the earlier copy without inflating the size', () => {
      const r = new FragmentReassembler({ maxMessageBytes: 300 });
      const first = fragmentsOf(bytesOf(300, 1), ID_A);
      const second = fragmentsOf(bytesOf(300, 2), ID_A);
      for (let i = 0; i < 10; i++) r.push(first[0]);
      assert.deepEqual(r.progress(ID_A), { received: 1, total: 3, bytes: 139 });
      r.push(second[0]);
      r.push(first[1]);
      const done = r.push(first[2]);
      assert.ok(done.status === 'complete');
      const expected = bytesOf(300, 1);
      expected.set(bytesOf(300, 2).subarray(0, 139), 0);
      assert.deepEqual(done.frame, expected);
      assert.equal(r.counters.duplicates, 10);
    });

    it('rejects a fragment whose total disagrees with its assembly, and keeps the assembly', () => {
      const r = new FragmentReassembler();
      r.push(fragmentsOf(bytesOf(300), ID_A)[0]);
      expectCode(() => r.push(fragmentsOf(bytesOf(600), ID_A)[1]), MeshDecodeError, 'FRAGMENT_TOTAL_MISMATCH');
      assert.deepEqual(r.progress(ID_A), { received: 1, total: 3, bytes: 139 });
      assert.equal(r.counters.rejected, 1);
    });

    it('checks the size cap as bytes arrive and drops the whole assembly on overflow', () => {
      const drops: FragmentDropEvent[] = [];
      const r = new FragmentReassembler({ maxMessageBytes: 300, onDrop: (e) => drops.push(e) });
      const fragments = fragmentsOf(bytesOf(139 * 4), ID_A);
      r.push(fragments[0]);
      r.push(fragments[1]);
      expectCode(() => r.push(fragments[2]), MeshDecodeError, 'FRAGMENTED_MESSAGE_TOO_LARGE');
      assert.equal(r.progress(ID_A), undefined);
      assert.deepEqual(drops, [{ messageId: ID_A, reason: 'oversize', received: 2, total: 4 }]);
      // The next fragment of that id starts over rather than completing a partial message.
      assert.deepEqual(r.push(fragments[3]), { status: 'incomplete', messageId: ID_A, received: 1, total: 4 });
    });

    it('caps a reassembled message at 1 MiB by default', () => {
      const r = new FragmentReassembler();
      // 17 fragments of 65 000 data bytes: 1 105 000 bytes would exceed 1 048 576 at the 17th.
      const data = bytesOf(65_000);
      for (let i = 0; i < 16; i++) r.push(rawFragment(ID_A, i, 20, data));
      assert.equal(r.progress(ID_A)?.bytes, 1_040_000);
      expectCode(() => r.push(rawFragment(ID_A, 16, 20, data)), MeshDecodeError, 'FRAGMENTED_MESSAGE_TOO_LARGE');
      assert.equal(r.size, 0);
    });

    it('holds at most 64 assemblies and evicts the least complete when a 65th opens', () => {
      const drops: FragmentDropEvent[] = [];
      const clock = new Clock();
      const r = new FragmentReassembler({ now: clock.now, onDrop: (e) => drops.push(e) });
      const ids = Array.from({ length: 65 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
      for (const [n, id] of ids.slice(0, 64).entries()) {
        const fragments = fragmentsOf(bytesOf(139 * 4, n + 1), id);
        r.push(fragments[0]);
        if (n !== 17) r.push(fragments[1]);
      }
      assert.equal(r.size, 64);
      r.push(fragmentsOf(bytesOf(139 * 4), ids[64])[0]);
      assert.equal(r.size, 64);
      assert.deepEqual(drops, [{ messageId: ids[17], reason: 'evicted', received: 1, total: 4 }]);
      assert.equal(r.counters.evicted, 1);
    });

    it('weighs age into eviction: up to 0.2 over the first minute since an assembly opened', () => {
      const drops: FragmentDropEvent[] = [];
      const clock = new Clock();
      const r = new FragmentReassembler({ maxAssemblies: 2, now: clock.now, onDrop: (e) => drops.push(e) });
      const old = encodeFragments(bytesOf(1000, 1), 'old', 113);
      const young = encodeFragments(bytesOf(1000, 2), 'young', 115);
      assert.equal(old.length, 10);
      assert.equal(young.length, 10);
      // "old" opens at t=0 and keeps receiving (never idle 30 s): 3 of 10 by t=60 s.
      r.push(old[0]);
      clock.t = 25_000;
      r.push(old[1]);
      clock.t = 50_000;
      r.push(old[2]);
      clock.t = 60_000;
      // "young" opens at t=60 s with 2 of 10: score 0.2 against old's 0.3 − 0.2 = 0.1.
      r.push(young[0]);
      r.push(young[1]);
      r.push(encodeFragments(bytesOf(1000, 3), 'third', 115)[0]);
      assert.deepEqual(drops.map((d) => d.messageId), ['old']);
      assert.equal(r.progress('young')?.received, 2);
      assert.equal(r.progress('old'), undefined);
    });

    it('expires an assembly 30 s after its last fragment, not its first', () => {
      const clock = new Clock();
      const drops: FragmentDropEvent[] = [];
      const r = new FragmentReassembler({ now: clock.now, onDrop: (e) => drops.push(e) });
      const frame = bytesOf(139 * 3);
      const fragments = fragmentsOf(frame, ID_A);
      r.push(fragments[0]);
      clock.t = 29_000;
      r.push(fragments[1]);
      clock.t = 59_000; // 59 s after the first fragment, 30 s after the last: still alive
      const done = r.push(fragments[2]);
      assert.ok(done.status === 'complete');
      assert.deepEqual(done.frame, frame);

      r.push(fragments[0]);
      clock.t += 30_001;
      assert.deepEqual(r.push(fragments[1]), { status: 'incomplete', messageId: ID_A, received: 1, total: 3 });
      assert.deepEqual(drops, [{ messageId: ID_A, reason: 'expired', received: 1, total: 3 }]);
    });

    it('sweep() drops idle assemblies on a quiet link and names them', () => {
      const clock = new Clock();
      const r = new FragmentReassembler({ now: clock.now, idleTimeoutMs: 1000 });
      r.push(fragmentsOf(bytesOf(300), 'a')[0]);
      clock.t = 500;
      r.push(fragmentsOf(bytesOf(300), 'b')[0]);
      clock.t = 1001;
      assert.deepEqual(r.sweep(), ['a']);
      assert.equal(r.size, 1);
      assert.equal(r.counters.expired, 1);
    });

    it('keys reassembly by the header id alone and never compares it with the frame inside', () => {
      const r = new FragmentReassembler();
      const frame = new TextEncoder().encode('not a mesh frame, and no id of its own '.repeat(20));
      const fragments = fragmentsOf(frame, 'any-id-string');
      let last;
      for (const f of fragments) last = r.push(f);
      assert.ok(last && last.status === 'complete');
      assert.deepEqual(last.frame, frame);
    });

    it('joins fragments of any lengths, in any order, with repeats, into the frame their last copies make', () => {
      // The assembly copies fragments into one buffer sized from the first to arrive; fragments longer than it,
      // or arriving out of order, or repeated, take the other road (a copy each, joined at the end).
      const scenario = fc
        .array(fc.uint8Array({ minLength: 1, maxLength: 200 }), { minLength: 2, maxLength: 6 })
        .chain((parts) =>
          fc.record({
            parts: fc.constant(parts),
            order: fc.shuffledSubarray(
              parts.map((_, i) => i),
              { minLength: parts.length, maxLength: parts.length },
            ),
            repeats: fc.array(fc.record({ index: fc.nat({ max: parts.length - 1 }), data: fc.uint8Array({ minLength: 1, maxLength: 200 }), before: fc.nat() }), { maxLength: 3 }),
          }),
        );
      fc.assert(
        fc.property(scenario, ({ parts, order, repeats }) => {
          const r = new FragmentReassembler();
          const final: Uint8Array[] = [...parts];
          // A repeat goes in before the assembly completes: somewhere before the last first copy.
          const pushes: Array<[number, Uint8Array]> = order.map((i) => [i, parts[i]!]);
          for (const rep of repeats) {
            pushes.splice(rep.before % pushes.length, 0, [rep.index, rep.data]);
          }
          const seen = new Set<number>();
          let result;
          for (const [i, data] of pushes) {
            result = r.push(rawFragment(ID_A, i, parts.length, data));
            seen.add(i);
            final[i] = data;
            if (seen.size === parts.length) break;
          }
          assert.ok(result && result.status === 'complete');
          assert.deepEqual(result.frame, new Uint8Array(Buffer.concat(final)));
          assert.equal(r.size, 0);
        }),
        { numRuns: 500 },
      );
    });

    it('gives in-order fragments back as one buffer holding nothing but the frame and the room it was sized for', () => {
      const frame = bytesOf(700, 3);
      const fragments = fragmentsOf(frame, ID_A);
      const r = new FragmentReassembler();
      let result;
      for (const f of fragments) result = r.push(f);
      assert.ok(result && result.status === 'complete');
      assert.deepEqual(result.frame, frame);
      // Sized total × the first fragment's data: never more than one fragment's worth beyond the frame.
      assert.ok(result.frame.buffer.byteLength < frame.length + 139, `${result.frame.buffer.byteLength} bytes held for ${frame.length}`);
      fragments.forEach((f) => f.fill(0));
      assert.deepEqual(result.frame, frame);
    });

    it('sets aside nothing a hostile first fragment claims: 64 assemblies claiming 512 fragments each hold only their bytes', () => {
      const r = new FragmentReassembler();
      const data = bytesOf(2000);
      const before = process.memoryUsage().arrayBuffers;
      const held: Uint8Array[] = [];
      for (let k = 0; k < MAX_FRAGMENT_ASSEMBLIES; k++) {
        const id = `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`;
        held.push(rawFragment(id, 0, 512, data));
        r.push(held[k]!);
      }
      assert.equal(r.size, MAX_FRAGMENT_ASSEMBLIES);
      // 64 × 512 × 2 000 bytes claimed (65 MB); what arrived is 64 × 2 000, plus the fragments themselves.
      const grown = process.memoryUsage().arrayBuffers - before;
      assert.ok(grown < 4 * 1048576, `${grown} bytes of array buffers after 64 first fragments`);
    });

    it('throws only MeshDecodeError for garbage and counts it', () => {
      const r = new FragmentReassembler();
      for (const junk of [new Uint8Array(0), new Uint8Array([0x4f, 0x50, 1, 0, 0, 0, 0, 0, 0, 0]), undefined as unknown as Uint8Array]) {
        assert.throws(() => r.push(junk), MeshDecodeError);
      }
      assert.equal(r.counters.rejected, 3);
    });

    it('refuses a bad option with BAD_OPTION', () => {
      expectCode(() => new FragmentReassembler({ maxAssemblies: 0 }), MeshError, 'BAD_OPTION');
      expectCode(() => new FragmentReassembler({ idleTimeoutMs: -1 }), MeshError, 'BAD_OPTION');
    });
  });
});
