/**
 * `parseAddress` on mutated `off1…` addresses: byte mutations of the text, and swaps of single characters for
 * others of the bech32 alphabet (which keep the string well-formed and reach the checksum, version and canonical
 * checks). Only `MeshDecodeError` may escape; an accepted address is canonical: it is its own parse, `isAddress`
 * agrees, and it re-derives from its hash.
 */
import { addressFromHash, deriveAddress, isAddress, parseAddress } from '../../../../lib/mesh/address';
import { type FuzzRng, mutateBytes } from '../engine';
import { FuzzInvariantError, type FuzzSession, type FuzzTarget, type Verdict } from '../runner';
import { meshOwn } from './mesh-frames';

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

export const addressesTarget: FuzzTarget<Uint8Array> = {
  name: 'addresses',
  about: 'parseAddress on mutated off1… addresses; an accepted one must be canonical',
  own: meshOwn,
  start(rng: FuzzRng): FuzzSession<Uint8Array> {
    const texts = ['off1qysluvwl5922yctzd0u9gpr06gn3k7ldfvgtwgvn', 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf'];
    for (let i = 0; i < 6; i++) texts.push(deriveAddress(rng.bytes(32)));
    const corpus = texts.map((t) => new Uint8Array(Buffer.from(t, 'latin1')));
    const swapChars = (input: Uint8Array): Uint8Array => {
      const out = Uint8Array.from(input);
      for (let k = 1 + rng.below(2); k > 0; k--) out[rng.below(out.length)] = BECH32_CHARSET.charCodeAt(rng.below(32));
      return out;
    };
    let swapped = 0;
    return {
      next: () => {
        const original = rng.pick(corpus);
        if (rng.chance(0.4)) {
          swapped++;
          return swapChars(original);
        }
        return mutateBytes(rng, original, corpus);
      },
      feed: (input): Verdict => {
        // latin1 keeps every byte a character; a few inputs go through UTF-8 for multi-byte characters too.
        const text = Buffer.from(input).toString(input.length % 7 === 0 ? 'utf8' : 'latin1');
        const parsed = parseAddress(text);
        if (parsed.address !== text || !isAddress(text) || addressFromHash(parsed.hash) !== text) {
          throw new FuzzInvariantError(`accepted a non-canonical address ${JSON.stringify(text)}`);
        }
        return { accepted: true };
      },
      show: (input) => input,
      figures: () => ({ charsetSwaps: swapped }),
    };
  },
};
