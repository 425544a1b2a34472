/**
 * `decodeSerialFrame` on mutated serial frames (random type and payload, then bit flips, truncation, appended
 * bytes and length tweaks). Only `MeshDecodeError` may escape.
 */
import { decodeSerialFrame, encodeSerialFrame } from '../../../../lib/mesh/serial-framing';
import { concatBytes, type FuzzRng, mutateBytes } from '../engine';
import type { FuzzSession, FuzzTarget, Verdict } from '../runner';
import { meshOwn } from './mesh-frames';

export const serialFramesTarget: FuzzTarget<Uint8Array> = {
  name: 'serial-frames',
  about: 'decodeSerialFrame on mutated serial frames',
  own: meshOwn,
  start(rng: FuzzRng): FuzzSession<Uint8Array> {
    return {
      next: () => {
        const frame = encodeSerialFrame(rng.below(256), rng.bytes(rng.below(40)));
        switch (rng.below(4)) {
          case 0: {
            // the simple damage a serial line does: a flipped bit, a cut, a stray byte
            const out = Uint8Array.from(frame);
            out[rng.below(out.length)] ^= 1 << rng.below(8);
            return rng.chance(0.3) ? out.subarray(0, rng.below(out.length)) : rng.chance(0.3) ? concatBytes(out, rng.bytes(1)) : out;
          }
          default:
            return mutateBytes(rng, frame);
        }
      },
      feed: (input): Verdict => {
        decodeSerialFrame(input);
        return { accepted: true };
      },
      show: (input) => input,
    };
  },
};
