import { strict as assert } from 'node:assert';
import { MeshDecodeError, MeshEncodeError } from '../../../lib/mesh/errors';
import { DEFAULT_MAX_FRAME_BYTES, decodeFrame, decodeFrameWithFormat, encodeFrame, sniffFrame } from '../../../lib/mesh/frame';
import { type MeshMessage } from '../../../lib/mesh/message';
import { baseMessage, expectCode, fullMessage } from './fixtures';

describe('lib/mesh/frame', () => {
  describe('sniffFrame', () => {
    it('picks the codec by the first byte alone', () => {
      assert.equal(sniffFrame(new Uint8Array([0xf5])), 'binary');
      assert.equal(sniffFrame(Buffer.from('{')), 'json');
      assert.equal(sniffFrame(Buffer.from(' {')), 'json');
    });

    it('names future binary versions 0xF6..0xFF instead of trying them as JSON', () => {
      for (let b = 0xf6; b <= 0xff; b++) expectCode(() => sniffFrame(new Uint8Array([b, 0])), MeshDecodeError, 'UNSUPPORTED_WIRE_VERSION');
    });
  });

  describe('decodeFrame', () => {
    it('decodes both codecs of one message to the same value', () => {
      const m = fullMessage();
      assert.deepEqual(decodeFrame(encodeFrame(m, 'json')), decodeFrame(encodeFrame(m, 'binary')));
      assert.equal(decodeFrameWithFormat(encodeFrame(m, 'binary')).format, 'binary');
      assert.equal(decodeFrameWithFormat(encodeFrame(m, 'json')).format, 'json');
    });

    it('tolerates leading whitespace before JSON, as the reference does', () => {
      const frame = Buffer.concat([Buffer.from('\n  '), Buffer.from(encodeFrame(baseMessage(), 'json'))]);
      assert.equal(decodeFrame(frame).sender, 'alice');
    });

    it('refuses empty input, non-bytes and frames above 1 MiB before decoding', () => {
      expectCode(() => decodeFrame(new Uint8Array(0)), MeshDecodeError, 'EMPTY_FRAME');
      expectCode(() => decodeFrame('{}' as unknown as Uint8Array), MeshDecodeError, 'NOT_BYTES');
      expectCode(() => decodeFrame(null as unknown as Uint8Array), MeshDecodeError, 'NOT_BYTES');
      const big = Buffer.alloc(DEFAULT_MAX_FRAME_BYTES + 1, 0x20);
      big[0] = 0x7b;
      expectCode(() => decodeFrame(big), MeshDecodeError, 'FRAME_TOO_LARGE');
      expectCode(() => decodeFrame(encodeFrame(baseMessage(), 'json'), { maxFrameBytes: 10 }), MeshDecodeError, 'FRAME_TOO_LARGE');
    });

    it('accepts a 1 MiB frame carrying a large binary payload', () => {
      const m = baseMessage({ content_type: 'file_chunk', binary_content: Buffer.alloc(900_000, 1) });
      const frame = encodeFrame(m, 'binary');
      assert.ok(frame.length <= DEFAULT_MAX_FRAME_BYTES);
      assert.equal(decodeFrame(frame).binary_content?.length, 900_000);
    });
  });

  describe('encodeFrame', () => {
    it('refuses an unknown format', () => {
      expectCode(() => encodeFrame(baseMessage(), 'cbor' as never), MeshEncodeError, 'BAD_FORMAT');
    });

    it('refuses, as a MeshEncodeError with the same code, a message a peer would reject', () => {
      const m = { ...baseMessage(), sender: 'evil/path' } as MeshMessage;
      expectCode(() => encodeFrame(m, 'binary'), MeshEncodeError, 'BAD_IDENTIFIER');
      expectCode(() => encodeFrame({ ...baseMessage(), ttl: 300 } as MeshMessage, 'json'), MeshEncodeError, 'NUMBER_OUT_OF_RANGE');
    });

    it('clamps an out-of-range Lamport clock on the way out too', () => {
      const m = { ...baseMessage(), lamport_clock: 2n ** 64n - 1n } as MeshMessage;
      assert.equal(decodeFrame(encodeFrame(m, 'binary')).lamport_clock, 2n ** 63n - 1n);
    });

    it('removes encryption_key and iv in both codecs', () => {
      const m = baseMessage({ media_metadata: { mime_type: 'a/b', file_name: 'f', file_size: 9n, encryption_key: 'K3Y', iv: '1V' } });
      for (const format of ['json', 'binary'] as const) {
        const frame = Buffer.from(encodeFrame(m, format));
        assert.ok(!frame.includes('K3Y') && !frame.includes('1V'), format);
        assert.deepEqual(decodeFrame(frame).media_metadata, { mime_type: 'a/b', file_name: 'f', file_size: 9n });
      }
      assert.equal(m.media_metadata?.encryption_key, 'K3Y', 'the caller’s message is left as it was');
    });
  });
});
