/**
 * Whole mesh frames through `decodeFrame`, one target per codec: binary wire v1 (byte mutations) and the JSON floor
 * (structural JSON mutations and byte mutations). Only `MeshDecodeError` may escape, and whatever is accepted must be
 * a message this side can send on, so an accepted mutant is re-encoded in both codecs.
 */
import fc from 'fast-check';
import { MeshDecodeError } from '../../../../lib/mesh/errors';
import { decodeFrame, encodeFrame, type FrameFormat } from '../../../../lib/mesh/frame';
import { meshMessage } from '../../../lib/mesh/arbitraries';
import { baseMessage, fullMessage } from '../../../lib/mesh/fixtures';
import { type FuzzRng, mutateBytes, mutateJson } from '../engine';
import { FuzzInvariantError, type FuzzSession, type FuzzTarget, type Verdict } from '../runner';

/** A `MeshDecodeError` with a code, or undefined: the mesh decoders' contract. */
export function meshOwn(err: unknown): string | undefined {
  return err instanceof MeshDecodeError && typeof err.code === 'string' && err.code.length > 0 ? err.code : undefined;
}

/** The golden fixtures, a sealed payload with a reply context, and 40 generated messages, in one codec. */
export function frameCorpus(format: FrameFormat, seed: number): Uint8Array[] {
  const messages = [baseMessage(), fullMessage(), baseMessage({ content: '__MLS_ENC__' + 'QUJD'.repeat(30), reply_context: { sender: 'c', text: 't' } })];
  messages.push(...fc.sample(meshMessage, { numRuns: 40, seed }));
  return messages.map((m) => encodeFrame(m, format));
}

function frameTarget(format: FrameFormat): FuzzTarget<Uint8Array> {
  return {
    name: format === 'binary' ? 'frame-binary' : 'frame-json',
    about: `decodeFrame on mutated ${format === 'binary' ? 'binary wire v1' : 'JSON floor'} frames; accepted ones must re-encode in both codecs`,
    own: meshOwn,
    start(rng: FuzzRng): FuzzSession<Uint8Array> {
      const corpus = frameCorpus(format, rng.u32() & 0x7fffffff);
      let i = 0;
      return {
        next: () => {
          const original = corpus[i++ % corpus.length];
          if (format === 'json' && rng.chance(0.6)) return mutateJson(rng, original, corpus);
          return mutateBytes(rng, original, corpus);
        },
        feed: (input): Verdict => {
          const message = decodeFrame(input);
          try {
            encodeFrame(message, 'json');
            encodeFrame(message, 'binary');
          } catch (err) {
            throw new FuzzInvariantError(`an accepted frame does not re-encode: ${String(err)}`);
          }
          return { accepted: true };
        },
        show: (input) => input,
      };
    },
  };
}

export const frameBinaryTarget = frameTarget('binary');
export const frameJsonTarget = frameTarget('json');
