/**
 * BLE fragments: each input goes to `decodeFragment` and then into one long-lived `FragmentReassembler`, whose
 * completed frames go on to `decodeFrame`. Inputs are mutated corpus fragments, a few untouched ones (so messages do
 * complete), and well-formed headers carrying hostile numbers (colliding ids, totals at and past 512, indexes past
 * the total, 60 000-byte data). Besides "only MeshDecodeError", the reassembler must stay inside its bounds after
 * every input.
 */
import { encodeFragments, decodeFragment, FragmentReassembler, MAX_FRAGMENT_ASSEMBLIES, MAX_REASSEMBLED_BYTES } from '../../../../lib/mesh/ble-fragment';
import { decodeFrame } from '../../../../lib/mesh/frame';
import { type FuzzRng, mutateBytes } from '../engine';
import { FuzzInvariantError, type FuzzSession, type FuzzTarget, type Verdict } from '../runner';
import { frameCorpus, meshOwn } from './mesh-frames';

export interface BleFragmentsOptions {
  /** The reassembler's assembly cap (default the library's 64). */
  maxAssemblies?: number;
}

export function bleFragmentsTarget(options: BleFragmentsOptions = {}): FuzzTarget<Uint8Array> {
  const maxAssemblies = options.maxAssemblies ?? MAX_FRAGMENT_ASSEMBLIES;
  return {
    name: 'ble-fragments',
    about: 'decodeFragment and a long-lived FragmentReassembler (completed frames through decodeFrame); bounds checked after every input',
    own: meshOwn,
    start(rng: FuzzRng): FuzzSession<Uint8Array> & { readonly figures: () => Record<string, number> } {
      const frames = [...frameCorpus('binary', rng.u32() & 0x7fffffff).slice(0, 12), ...frameCorpus('json', rng.u32() & 0x7fffffff).slice(0, 12)];
      // Random bytes under a non-ASCII id: a long multi-fragment message that is not a frame.
      frames.push(rng.bytes(3000));
      const corpus: Uint8Array[] = [];
      frames.forEach((frame, n) => {
        const id = n === frames.length - 1 ? 'ïd-ütf8' : `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
        for (const size of [100, 185, 244, 512]) corpus.push(...encodeFragments(frame, id, size));
      });
      const ids = ['a', 'b', 'c', '00000000-0000-4000-8000-000000000001', ''];
      const noise = rng.bytes(120_000);
      let clock = 0;
      let completed = 0;
      let completedFrameRejected = 0;
      const reassembler = new FragmentReassembler({ now: () => clock, maxAssemblies });

      /** A well-formed header around hostile numbers. */
      const structured = (): Uint8Array => {
        const id = Buffer.from(rng.pick(ids));
        const total = rng.pick([1, 2, 3, 512, 513, 0, 0xffff, rng.below(600)]);
        const index = rng.below(Math.max(total, 1) + 1);
        const length = rng.below(50) === 0 ? 60_000 : rng.below(300);
        const from = rng.below(noise.length - length);
        const f = Buffer.alloc(10 + id.length + length);
        f.write('OP', 0, 'latin1');
        f[2] = 1;
        f[3] = id.length;
        id.copy(f, 4);
        f.writeUInt16LE(index & 0xffff, 4 + id.length);
        f.writeUInt16LE(total & 0xffff, 6 + id.length);
        f.writeUInt16LE(length, 8 + id.length);
        Buffer.from(noise.subarray(from, from + length)).copy(f, 10 + id.length);
        return new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
      };

      return {
        next: () => {
          const roll = rng.below(20);
          if (roll < 4) {
            clock += rng.below(2000);
            return structured();
          }
          clock += rng.below(50);
          const original = rng.pick(corpus);
          return roll < 6 ? original : mutateBytes(rng, original, corpus);
        },
        feed: (input): Verdict => {
          try {
            decodeFragment(input);
          } catch (err) {
            if (meshOwn(err) === undefined) throw err;
          }
          const result = reassembler.push(input);
          if (reassembler.size > maxAssemblies) throw new FuzzInvariantError(`${reassembler.size} assemblies open, cap ${maxAssemblies}`);
          if (reassembler.bufferedBytes > maxAssemblies * MAX_REASSEMBLED_BYTES) throw new FuzzInvariantError(`${reassembler.bufferedBytes} bytes buffered`);
          if (result.status === 'complete') {
            completed++;
            try {
              decodeFrame(result.frame);
            } catch (err) {
              if (meshOwn(err) === undefined) throw err;
              completedFrameRejected++;
            }
          }
          return { accepted: true };
        },
        show: (input) => input,
        figures: () => {
          const c = reassembler.counters;
          return {
            completed,
            completedFrameRejected,
            refused: c.rejected,
            evicted: c.evicted,
            expired: c.expired,
            oversize: c.oversize,
            openAtEnd: reassembler.size,
          };
        },
      };
    },
  };
}
