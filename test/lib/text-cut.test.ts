/**
 * lib/text-cut.ts over random Unicode: lone surrogates, astral characters, combining marks, emoji sequences. Whatever
 * goes in, what comes out is well-formed, within its limit, a prefix of the (well-formed) text ending on a grapheme
 * boundary, and marked exactly when cut.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { cutText, cutUtf8, wellFormed, wellFormedJson } from '../../lib/text-cut';

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Code units that make hard text: surrogates alone, combining marks, ZWJ, skin tones, regional indicators, plain letters.
const hardUnit = fc.constantFrom('\uD83D', '\uDE00', '\uDC4D', '\u0301', '\u200D', '\uD83C', '\uDFFD', '\uDDEB', '\uDDF7', 'a', 'é', '€', '\u{1F600}', '\u{1F469}\u{200D}\u{1F4BB}');
const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 400 }), fc.string({ unit: hardUnit, maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 300 }));

function graphemeBoundaries(text: string): Set<number> {
  const ends = new Set<number>([0]);
  let at = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)) ends.add((at += segment.length));
  return ends;
}

describe('lib/text-cut', () => {
  it('cutText: well-formed, within the limit, a grapheme-aligned prefix, marked only when cut', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 1, max: 300 }), (text, max) => {
        const out = cutText(text, max);
        const whole = wellFormed(text);
        assert.equal(LONE.test(out), false);
        assert.ok(out.length <= max);
        assert.equal(Buffer.from(out, 'utf8').toString('utf8'), out, 'round-trips through UTF-8');
        if (whole.length <= max) return assert.equal(out, whole);
        assert.ok(out.endsWith('…'));
        const kept = out.slice(0, -1);
        assert.ok(whole.startsWith(kept));
        assert.ok(graphemeBoundaries(whole).has(kept.length), 'cut on a grapheme boundary');
      }),
      { numRuns: 2000 },
    );
  });

  it('cutUtf8: the same within a byte limit', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 3, max: 600 }), (text, max) => {
        const out = cutUtf8(text, max);
        assert.equal(LONE.test(out), false);
        assert.ok(Buffer.byteLength(out) <= max);
        const whole = wellFormed(text);
        if (Buffer.byteLength(whole) <= max) return assert.equal(out, whole);
        assert.ok(whole.startsWith(out.slice(0, -1)) && graphemeBoundaries(whole).has(out.length - 1));
      }),
      { numRuns: 2000 },
    );
  });

  it('never splits a surrogate pair, an emoji with its modifier, or a flag', () => {
    assert.equal(cutText(`${'x'.repeat(254)}😀`, 255), `${'x'.repeat(254)}…`);
    assert.equal(cutText(`${'x'.repeat(250)}👍🏽👍🏽`, 255), `${'x'.repeat(250)}👍🏽…`);
    assert.equal(cutText('🇫🇷🇫🇷🇫🇷', 5), '🇫🇷…');
    assert.equal(cutText('short', 255), 'short');
    assert.equal(wellFormed('a\uD83Db'), 'a\uFFFDb');
  });

  it('wellFormedJson: any JSON.stringify output parses to the well-formed value, escaped backslashes untouched', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, fc.string({ unit: fc.constantFrom('\\', 'u', 'd', '8', '3', 'D', '\uD83D', '"'), maxLength: 40 })), (text) => {
        const json = wellFormedJson(JSON.stringify({ content: text }));
        const back = (JSON.parse(json) as { content: string }).content;
        assert.equal(back, wellFormed(text));
      }),
      { numRuns: 3000 },
    );
    assert.equal(wellFormedJson(JSON.stringify('\\ud83d')), JSON.stringify('\\ud83d'), 'a literal backslash-u stays');
  });
});
