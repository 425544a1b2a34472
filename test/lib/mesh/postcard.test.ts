import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { PostcardReader } from '../../../lib/mesh/postcard-reader';
import { PostcardWriter } from '../../../lib/mesh/postcard-writer';
import { bytesFromHex, expectCode, hex } from './fixtures';

function written(fn: (w: PostcardWriter) => void): string {
  const w = new PostcardWriter(1);
  fn(w);
  return hex(w.finish());
}

function reader(...parts: string[]): PostcardReader {
  return new PostcardReader(bytesFromHex(...parts), 0);
}

describe('lib/mesh/postcard', () => {
  describe('varint (little-endian base 128)', () => {
    it('writes the spec examples: 0 → 00, 127 → 7F, 128 → 80 01, 300 → AC 02', () => {
      assert.equal(written((w) => w.varint(0)), '00');
      assert.equal(written((w) => w.varint(127)), '7f');
      assert.equal(written((w) => w.varint(128)), '8001');
      assert.equal(written((w) => w.varint(300)), 'ac02');
    });

    it('writes u64 extremes: 2^53 and u64::MAX (ten bytes, last 01)', () => {
      assert.equal(written((w) => w.u64(9007199254740992n)), '8080808080808010');
      assert.equal(written((w) => w.u64(18446744073709551615n)), 'ffffffffffffffffff01');
    });

    it('reads what it writes across the whole u64 range', () => {
      for (const v of [0n, 1n, 127n, 128n, 16383n, 16384n, 2n ** 49n - 1n, 2n ** 49n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n]) {
        assert.equal(reader(written((w) => w.u64(v))).u64('v'), v);
      }
    });

    it('u16 tags: at most 3 bytes, the third at most 0x03', () => {
      assert.equal(reader('ffff03').u16('tag'), 65535);
      assert.equal(reader('8000').u16('tag'), 0);
      expectCode(() => reader('ffff04').u16('tag'), MeshDecodeError, 'BAD_VARINT');
      expectCode(() => reader('808080').u16('tag'), MeshDecodeError, 'BAD_VARINT');
    });

    it('a varint cut off by the end of the frame is truncated', () => {
      expectCode(() => reader('80').u64('v'), MeshDecodeError, 'TRUNCATED');
      expectCode(() => reader('ffffffffffffffff').u64('v'), MeshDecodeError, 'TRUNCATED');
    });
  });

  describe('zigzag i64', () => {
    it('maps 0→0, −1→1, 1→2, −2→3, and a zero timestamp is one byte', () => {
      assert.equal(written((w) => w.i64(0n)), '00');
      assert.equal(written((w) => w.i64(-1n)), '01');
      assert.equal(written((w) => w.i64(1n)), '02');
      assert.equal(written((w) => w.i64(-2n)), '03');
    });

    it('round-trips the i64 extremes and the fast-path boundaries', () => {
      for (const v of [-(2n ** 63n), 2n ** 63n - 1n, -(2n ** 52n), 2n ** 52n - 1n, 2n ** 52n, -(2n ** 52n) - 1n, 1700000000000n, -63n, 64n]) {
        assert.equal(reader(written((w) => w.i64(v))).i64('v'), v, String(v));
      }
      assert.equal(written((w) => w.i64(-(2n ** 63n))), 'ffffffffffffffffff01');
    });
  });

  describe('strings and bytes', () => {
    it('writes a varint length then the UTF-8 bytes, for short ASCII, short non-ASCII and long text', () => {
      assert.equal(written((w) => w.str('')), '00');
      assert.equal(written((w) => w.str('a')), '0161');
      assert.equal(written((w) => w.str('é')), '02c3a9');
      const long = 'ü'.repeat(100);
      assert.equal(written((w) => w.str(long)), 'c801' + 'c3bc'.repeat(100));
      assert.equal(written((w) => w.str('x'.repeat(130))), '8201' + '78'.repeat(130));
    });

    it('reads strings back, ASCII fast path and UTF-8 path alike', () => {
      for (const s of ['', 'a', 'alice', 'x'.repeat(24), 'x'.repeat(25), 'Grüße', '👋'.repeat(40)]) {
        assert.equal(reader(written((w) => w.str(s))).str('s'), s);
      }
    });

    it('reads any sequence of strings and byte runs back, across the ASCII window and after binary data', () => {
      const item = fc.oneof(
        fc.string({ unit: 'grapheme-ascii', maxLength: 300 }),
        fc.string({ unit: 'binary', maxLength: 80 }),
        fc.uint8Array({ maxLength: 400 }),
      );
      fc.assert(
        fc.property(fc.array(item, { maxLength: 12 }), (items) => {
          const w = new PostcardWriter(8);
          for (const x of items) {
            if (typeof x === 'string') w.str(x);
            else w.bytes(x);
          }
          const r = new PostcardReader(w.finish(), 0);
          for (const x of items) {
            if (typeof x === 'string') assert.equal(r.str('s'), x);
            else assert.deepEqual([...r.bytesView('b')], [...x]);
          }
          assert.equal(r.remaining, 0);
        }),
        { numRuns: 500 },
      );
    });

    it('bytes come back as a view into the input', () => {
      const input = bytesFromHex('03010203ff');
      const view = new PostcardReader(input, 0).bytesView('b');
      assert.deepEqual([...view], [1, 2, 3]);
      assert.equal(view.buffer, input.buffer);
    });

    it('a length beyond the remaining bytes is refused', () => {
      expectCode(() => reader('0361').str('s'), MeshDecodeError, 'TRUNCATED');
      expectCode(() => reader('ffffffffffffffffff01').bytesView('b'), MeshDecodeError, 'TRUNCATED');
    });

    it('a count that cannot fit its minimum element size is refused up front', () => {
      expectCode(() => reader('0500').count('list', 2), MeshDecodeError, 'TRUNCATED');
      assert.equal(reader('020000').count('list', 1), 2);
    });
  });

  describe('bool and option', () => {
    it('accept only 00 and 01', () => {
      assert.equal(reader('01').bool('b'), true);
      assert.equal(reader('00').option('o'), false);
      expectCode(() => reader('02').bool('b'), MeshDecodeError, 'BAD_BOOL');
      expectCode(() => reader('ff').option('o'), MeshDecodeError, 'BAD_OPTION_TAG');
    });
  });

  describe('writer buffer', () => {
    it('grows past its initial size and keeps what was written', () => {
      const w = new PostcardWriter(1);
      for (let i = 0; i < 1000; i++) w.str('abcdefghij');
      assert.equal(w.finish().length, 11000);
    });
  });
});
