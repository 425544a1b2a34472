/**
 * Fuzz of the transport-rule decoders: BLE fragments (alone and through a long-lived reassembler, whose completed
 * frames go on to `decodeFrame`), file-chunk payloads (alone and through a long-lived file reassembler), legacy JSON
 * chunk contents and addresses. Inputs are mutations of valid corpora plus structured adversarial fragments.
 * The rule under test: nothing but `MeshDecodeError` ever escapes, nothing hangs, and the stateful parts stay inside
 * their bounds however the input is shaped. A seeded generator keeps every run identical, so a failure reproduces.
 */
import { strict as assert } from 'node:assert';
import { parseAddress } from '../../../lib/mesh/address';
import { encodeFragments, FragmentReassembler, MAX_FRAGMENT_ASSEMBLIES, MAX_REASSEMBLED_BYTES, decodeFragment } from '../../../lib/mesh/ble-fragment';
import { FileReassembler, MAX_FILE_ASSEMBLIES, chunkFile } from '../../../lib/mesh/chunked-file';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { decodeFileChunk, decodeLegacyFileChunkJson, encodeFileChunk } from '../../../lib/mesh/file-chunk-codec';
import { decodeFrame, encodeFrame } from '../../../lib/mesh/frame';
import { createMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';

class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 1;
  }
  u32(): number {
    // xorshift32
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s;
  }
  below(n: number): number {
    return this.u32() % n;
  }
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)];
  }
}

function mutate(rng: Rng, input: Uint8Array): Uint8Array {
  let b: Uint8Array = input.slice();
  const rounds = 1 + rng.below(4);
  for (let r = 0; r < rounds; r++) {
    switch (rng.below(8)) {
      case 0: // flip a bit
        if (b.length > 0) b[rng.below(b.length)] ^= 1 << rng.below(8);
        break;
      case 1: // set a byte
        if (b.length > 0) b[rng.below(b.length)] = rng.u32() & 0xff;
        break;
      case 2: // truncate
        b = b.subarray(0, rng.below(b.length + 1));
        break;
      case 3: {
        // append garbage
        const out = new Uint8Array(b.length + 1 + rng.below(64));
        out.set(b);
        out.set(rng.bytes(out.length - b.length), b.length);
        b = out;
        break;
      }
      case 4: // write an extreme little-endian u16 or u32 somewhere (lengths, counts, indexes)
        if (b.length >= 4) {
          const at = rng.below(b.length - 3);
          const v = rng.pick([0, 1, 0xff, 0xffff, 0x1000, 0x7fffffff, 0xffffffff, rng.u32()]);
          b[at] = v & 0xff;
          b[at + 1] = (v >>> 8) & 0xff;
          if (rng.below(2) === 0) {
            b[at + 2] = (v >>> 16) & 0xff;
            b[at + 3] = (v >>> 24) & 0xff;
          }
        }
        break;
      case 5: {
        // duplicate a slice in place
        if (b.length > 1) {
          const from = rng.below(b.length);
          const len = 1 + rng.below(Math.min(32, b.length - from));
          const out = new Uint8Array(b.length + len);
          out.set(b.subarray(0, from + len));
          out.set(b.subarray(from, from + len), from + len);
          out.set(b.subarray(from + len), from + 2 * len);
          b = out;
        }
        break;
      }
      case 6: // remove a slice
        if (b.length > 1) {
          const from = rng.below(b.length);
          const len = 1 + rng.below(b.length - from);
          const out = new Uint8Array(b.length - len);
          out.set(b.subarray(0, from));
          out.set(b.subarray(from + len), from);
          b = out;
        }
        break;
      default: // replace with noise
        b = rng.bytes(rng.below(80));
    }
  }
  return b;
}

function onlyDecodeErrors(input: Uint8Array | string, fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (err instanceof MeshDecodeError) return;
    const shown = typeof input === 'string' ? JSON.stringify(input.slice(0, 200)) : Buffer.from(input.subarray(0, 200)).toString('hex');
    assert.fail(`non-MeshDecodeError ${String(err)} for input ${shown}`);
  }
}

function baseMessage(content: string) {
  return createMessage({
    id: MessageId.random(),
    sender: 'alice',
    recipient: 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf',
    app_id: 'app',
    priority: 'medium',
    ttl: 8,
    hop_count: 1,
    timestamp: 1700000000000n,
    content,
    metadata: { k: 'v', ünï: '✓' },
  });
}

describe('fuzz: fragments and chunk payloads', function () {
  this.timeout(60_000);

  it('survives 130 000 mutated fragments with nothing but MeshDecodeError, inside its bounds', () => {
    const rng = new Rng(0x5eed);
    const frames = [
      encodeFrame(baseMessage('hi'), 'binary'),
      encodeFrame(baseMessage('x'.repeat(900)), 'json'),
      encodeFrame(baseMessage('__MLS_ENC__' + Buffer.from(rng.bytes(600)).toString('base64')), 'binary'),
    ];
    const corpus: Uint8Array[] = [];
    for (const frame of frames) {
      for (const size of [185, 244, 512]) corpus.push(...encodeFragments(frame, MessageId.random().toString(), size));
    }
    corpus.push(...encodeFragments(rng.bytes(3000), 'ïd-ütf8', 100));

    let t = 0;
    const r = new FragmentReassembler({ now: () => t });
    let completed = 0;
    for (let n = 0; n < 100_000; n++) {
      const input = mutate(rng, rng.pick(corpus));
      onlyDecodeErrors(input, () => decodeFragment(input));
      onlyDecodeErrors(input, () => {
        const result = r.push(input);
        if (result.status === 'complete') {
          completed++;
          onlyDecodeErrors(result.frame, () => decodeFrame(result.frame));
        }
      });
      t += rng.below(50);
    }

    // Structured: well-formed headers with hostile numbers, a handful of colliding ids, large and duplicate data.
    const ids = ['a', 'b', 'c', MessageId.random().toString(), ''];
    const noise = rng.bytes(120_000);
    for (let n = 0; n < 30_000; n++) {
      const id = Buffer.from(rng.pick(ids));
      const total = rng.pick([1, 2, 3, 512, 513, 0, rng.below(600)]);
      const index = rng.below(Math.max(total, 1) + 1);
      const length = rng.below(50) === 0 ? 60_000 : rng.below(300);
      const from = rng.below(noise.length - length);
      const data = noise.subarray(from, from + length);
      const f = Buffer.alloc(10 + id.length + data.length);
      f.write('OP', 0, 'latin1');
      f[2] = 1;
      f[3] = id.length;
      id.copy(f, 4);
      f.writeUInt16LE(index & 0xffff, 4 + id.length);
      f.writeUInt16LE(total & 0xffff, 6 + id.length);
      f.writeUInt16LE(data.length, 8 + id.length);
      Buffer.from(data).copy(f, 10 + id.length);
      const input = new Uint8Array(f);
      onlyDecodeErrors(input, () => r.push(input));
      assert.ok(r.size <= MAX_FRAGMENT_ASSEMBLIES);
      assert.ok(r.bufferedBytes <= MAX_FRAGMENT_ASSEMBLIES * MAX_REASSEMBLED_BYTES);
      t += rng.below(2000);
    }
    assert.ok(r.counters.rejected > 0 && completed > 0, 'the corpus reaches both the refusal and the completion paths');
    assert.ok(r.counters.evicted + r.counters.expired + r.counters.oversize > 0);
  });

  it('survives 70 000 mutated chunk payloads, legacy contents and addresses with nothing but MeshDecodeError', () => {
    const rng = new Rng(0xc0ffee);
    const messages = chunkFile(rng.bytes(9000), { sender: 'alice', recipient: 'bob', appId: 'app', fileName: 'f.bin', transport: 'ble' });
    const corpus = messages.map((m) => m.binary_content as Uint8Array);
    corpus.push(
      encodeFileChunk({ file_id: '', file_name: '', file_size: 1n, total_chunks: 1, chunk_index: 0, chunk_data: new Uint8Array([1]), file_checksum: '' }),
    );

    let t = 0;
    const files = new FileReassembler({ maxFileSize: 1_000_000, now: () => t });
    for (let n = 0; n < 50_000; n++) {
      const input = mutate(rng, rng.pick(corpus));
      onlyDecodeErrors(input, () => {
        const chunk = decodeFileChunk(input);
        files.pushChunk(rng.pick(['alice', 'bob', 'carol']), chunk);
      });
      assert.ok(files.size <= MAX_FILE_ASSEMBLIES);
      t += rng.below(100);
    }
    assert.ok(files.bufferedBytes >= 0);

    const legacy = JSON.stringify({
      file_id: 'file_x',
      file_name: 'n',
      file_size: 3,
      total_chunks: 1,
      chunk_index: 0,
      chunk_data: 'AQID',
      file_checksum: 'abc',
    });
    const legacyBytes = new TextEncoder().encode(legacy);
    for (let n = 0; n < 10_000; n++) {
      const text = Buffer.from(mutate(rng, legacyBytes)).toString('latin1');
      onlyDecodeErrors(text, () => decodeLegacyFileChunkJson(text));
    }

    const address = new TextEncoder().encode('off1qysluvwl5922yctzd0u9gpr06gn3k7ldfvgtwgvn');
    for (let n = 0; n < 10_000; n++) {
      const text = Buffer.from(mutate(rng, address)).toString('latin1');
      onlyDecodeErrors(text, () => parseAddress(text));
    }
  });
});
