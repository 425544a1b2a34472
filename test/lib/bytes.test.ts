import assert from 'node:assert/strict';
import {
  compareUtf8,
  fromBase64Canonical,
  fromHex,
  toBase64,
  toCrockfordBase32,
  toHex,
  utf8DecodeStrict,
} from '../../lib/bytes';

describe('lib/bytes', () => {
  describe('compareUtf8', () => {
    it('orders by code point where UTF-16 code units would invert the pair', () => {
      const astral = '\u{1F600}'; // leads with surrogate 0xD83D
      const bmpHigh = '\uFF21'; // U+FF21, above every surrogate
      assert.ok(astral < bmpHigh, 'JavaScript < puts the astral character first');
      assert.ok(compareUtf8(astral, bmpHigh) > 0, 'UTF-8 byte order puts it last');
      assert.equal(Math.sign(compareUtf8(astral, bmpHigh)), Math.sign(Buffer.compare(Buffer.from(astral), Buffer.from(bmpHigh))));
    });

    it('treats a prefix as smaller and equal strings as equal', () => {
      assert.ok(compareUtf8('ab', 'abc') < 0);
      assert.equal(compareUtf8('k\u{10000}', 'k\u{10000}'), 0);
    });
  });

  describe('fromBase64Canonical', () => {
    it('accepts canonical padded base64', () => {
      assert.deepEqual(Array.from(fromBase64Canonical('3q0=') ?? []), [0xde, 0xad]);
    });

    it('refuses non-zero trailing bits, missing padding and foreign alphabets', () => {
      assert.equal(fromBase64Canonical('3q1='), undefined);
      assert.equal(fromBase64Canonical('3q0'), undefined);
      assert.equal(fromBase64Canonical('3q-_'), undefined);
    });

    it('round-trips with toBase64', () => {
      const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 253]);
      assert.deepEqual(fromBase64Canonical(toBase64(bytes)), bytes);
    });
  });

  describe('hex', () => {
    it('round-trips and refuses odd lengths and non-hex', () => {
      assert.equal(toHex(fromHex('00ff10') as Uint8Array), '00ff10');
      assert.equal(fromHex('abc'), undefined);
      assert.equal(fromHex('zz'), undefined);
    });
  });

  describe('utf8DecodeStrict', () => {
    it('refuses an invalid sequence instead of substituting U+FFFD', () => {
      assert.equal(utf8DecodeStrict(new Uint8Array([0xc3, 0x28])), undefined);
      assert.equal(utf8DecodeStrict(new Uint8Array([0x68, 0x69])), 'hi');
    });
  });

  describe('toCrockfordBase32', () => {
    it('renders 16 bytes as 26 characters the way ULID does', () => {
      assert.equal(toCrockfordBase32(new Uint8Array(16)), '0'.repeat(26));
      assert.equal(toCrockfordBase32(new Uint8Array(16).fill(0xff)), '7' + 'Z'.repeat(25));
      const one = new Uint8Array(16);
      one[15] = 1;
      assert.equal(toCrockfordBase32(one), '0'.repeat(25) + '1');
    });
  });
});
