/**
 * Mutation fuzzing of every receive path for whole frames and their BLE fragments. The property is the decoder
 * contract: whatever the bytes, the only exception is `MeshDecodeError` with a string `code`, and the call returns
 * (mocha's timeout is the hang detector). Whatever a decoder accepts must also be a message this side can encode,
 * so an accepted mutant is re-encoded in both codecs. A seeded generator makes any failure reproducible: the
 * assertion message carries the seed and the mutant's hex.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { encodeFragments, FragmentReassembler, decodeFragment } from '../../../lib/mesh/ble-fragment';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { decodeFrame, encodeFrame } from '../../../lib/mesh/frame';
import { meshMessage } from './arbitraries';
import { baseMessage, fullMessage } from './fixtures';

const SEED = 0x5eed2;

/** xorshift32: small, fast, reproducible. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

const INTERESTING = [0x00, 0x01, 0x02, 0x7f, 0x80, 0xff, 0xf5, 0x22, 0x5c, 0x7b, 0x7d, 0x2c, 0x3a, 0x30, 0x2d];

function join(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function mutate(input: Uint8Array, next: () => number, corpus: readonly Uint8Array[]): Uint8Array {
  let bytes: Uint8Array = Uint8Array.from(input);
  const rounds = 1 + (next() % 4);
  for (let r = 0; r < rounds; r++) {
    const at = bytes.length === 0 ? 0 : next() % bytes.length;
    switch (next() % 8) {
      case 0: // flip one bit
        if (bytes.length) bytes[at] ^= 1 << (next() % 8);
        break;
      case 1: // an interesting byte value
        if (bytes.length) bytes[at] = INTERESTING[next() % INTERESTING.length];
        break;
      case 2: // insert
        bytes = join(bytes.subarray(0, at), Uint8Array.of(next() & 0xff), bytes.subarray(at));
        break;
      case 3: // delete a run
        bytes = join(bytes.subarray(0, at), bytes.subarray(at + 1 + (next() % 8)));
        break;
      case 4: // truncate
        bytes = bytes.subarray(0, at);
        break;
      case 5: // duplicate a slice in place
        bytes = join(bytes.subarray(0, at), bytes.subarray(at, at + 1 + (next() % 16)), bytes.subarray(at));
        break;
      case 6: {
        // splice with another frame
        const other = corpus[next() % corpus.length];
        const from = other.length === 0 ? 0 : next() % other.length;
        bytes = join(bytes.subarray(0, at), other.subarray(from));
        break;
      }
      default: // a large varint where a length could be
        if (bytes.length) bytes.set([0xff, 0xff, 0xff, 0xff, 0x0f].slice(0, bytes.length - at), at);
        break;
    }
  }
  return bytes;
}

function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex').slice(0, 400);
}

function expectOnlyDecodeErrors(fn: () => void, context: () => string): boolean {
  try {
    fn();
    return true;
  } catch (err) {
    if (!(err instanceof MeshDecodeError) || typeof err.code !== 'string' || err.code.length === 0) {
      assert.fail(`${context()}: threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    }
    return false;
  }
}

function corpusOf(format: 'json' | 'binary'): Uint8Array[] {
  const messages = [baseMessage(), fullMessage(), baseMessage({ content: '__MLS_ENC__' + 'QUJD'.repeat(30), reply_context: { sender: 'c', text: 't' } })];
  messages.push(...fc.sample(meshMessage, { numRuns: 40, seed: SEED }));
  return messages.map((m) => encodeFrame(m, format));
}

function fuzzFrames(format: 'json' | 'binary', iterations: number, seed: number): { accepted: number } {
  const corpus = corpusOf(format);
  const next = rng(seed);
  let accepted = 0;
  for (let i = 0; i < iterations; i++) {
    const mutant = mutate(corpus[i % corpus.length], next, corpus);
    let decoded: ReturnType<typeof decodeFrame> | undefined;
    const ok = expectOnlyDecodeErrors(
      () => {
        decoded = decodeFrame(mutant);
      },
      () => `${format} seed ${seed} iteration ${i} frame ${hexOf(mutant)}`,
    );
    if (ok && decoded) {
      accepted++;
      // Anything accepted is a message this side can send on, in either codec.
      encodeFrame(decoded, 'json');
      encodeFrame(decoded, 'binary');
    }
  }
  return { accepted };
}

describe('lib/mesh fuzz: mutated frames and fragments', function () {
  this.timeout(60_000);

  // Mocha raises Error.stackTraceLimit to Infinity, which makes each of the ~100 000 rejections capture the whole
  // mocha stack; Node's own default (10) is what a gateway runs with, so the loop runs with it too.
  let savedLimit: number;
  before(() => {
    savedLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 10;
  });
  after(() => {
    Error.stackTraceLimit = savedLimit;
  });

  it('60 000 mutated binary v1 frames: only MeshDecodeError, and every accepted mutant re-encodes', () => {
    const { accepted } = fuzzFrames('binary', 60_000, SEED);
    // Some mutations land in content bytes and stay valid; none at all would mean the corpus never decodes.
    assert.ok(accepted > 0);
  });

  it('40 000 mutated JSON floor frames: only MeshDecodeError, and every accepted mutant re-encodes', () => {
    const { accepted } = fuzzFrames('json', 40_000, SEED + 1);
    assert.ok(accepted > 0);
  });

  it('5 000 random byte strings of every length up to 64: only MeshDecodeError', () => {
    const next = rng(SEED + 2);
    for (let i = 0; i < 5_000; i++) {
      const bytes = new Uint8Array(i % 65);
      for (let j = 0; j < bytes.length; j++) bytes[j] = next() & 0xff;
      if (i % 2 === 0 && bytes.length) bytes[0] = 0xf5;
      expectOnlyDecodeErrors(() => decodeFrame(bytes), () => `random ${hexOf(bytes)}`);
    }
  });

  it('20 000 mutated BLE fragments through decodeFragment and FragmentReassembler: only MeshDecodeError', () => {
    const next = rng(SEED + 3);
    let clock = 0;
    const reassembler = new FragmentReassembler({ now: () => clock, maxAssemblies: 16 });
    const frames = [...corpusOf('binary').slice(0, 12), ...corpusOf('json').slice(0, 12)];
    const fragments: Uint8Array[] = [];
    frames.forEach((frame, n) => fragments.push(...encodeFragments(frame, `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, 185)));
    let completed = 0;
    for (let i = 0; i < 20_000; i++) {
      clock += next() % 2000;
      const original = fragments[i % fragments.length];
      const fragment = next() % 4 === 0 ? original : mutate(original, next, fragments);
      const context = () => `fragment seed ${SEED + 3} iteration ${i} ${hexOf(fragment)}`;
      expectOnlyDecodeErrors(() => decodeFragment(fragment), context);
      expectOnlyDecodeErrors(() => {
        const result = reassembler.push(fragment);
        if (result.status === 'complete') {
          completed++;
          expectOnlyDecodeErrors(() => decodeFrame(result.frame), context);
        }
      }, context);
      if (i % 1000 === 0) reassembler.sweep();
    }
    assert.ok(completed > 0, 'unmutated fragments complete some messages');
    assert.ok(reassembler.size <= 16);
  });
});
