/**
 * lib/printable: every character that can start a line, drive a terminal or reorder a line becomes a visible
 * escape; ordinary text of any script passes unchanged; the JSON form stays JSON that parses to the same value.
 */
import assert from 'node:assert/strict';
import { printable, printableJson } from '../../lib/printable';
import { isUnsafeCodePoint, unsafeCharacters } from '../support/unsafe-text';

const UNSAFE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x00, 0x1f],
  [0x7f, 0x9f],
  [0x2028, 0x2029],
  [0x202a, 0x202e],
  [0x2066, 0x2069],
];
const UNSAFE = UNSAFE_RANGES.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i)));
const hasRaw = (text: string): boolean => unsafeCharacters(text).length > 0;

describe('lib/printable', () => {
  describe('printable', () => {
    it('writes newline, carriage return and tab as \\n, \\r, \\t', () => {
      assert.equal(printable('a\nb\rc\td'), 'a\\nb\\rc\\td');
    });

    it('writes the other C0 controls, DEL and C1 controls as \\xNN', () => {
      assert.equal(printable('\x00\x07\x1b[31mred\x1b[0m\x7f'), '\\x00\\x07\\x1b[31mred\\x1b[0m\\x7f');
      assert.equal(printable('\u0085 \u009b2J'), '\\x85 \\x9b2J');
    });

    it('writes the line separators and the bidi controls as \\uNNNN', () => {
      assert.equal(printable('a\u2028b\u2029c'), 'a\\u2028b\\u2029c');
      assert.equal(printable('invoice_\u202egnp.exe'), 'invoice_\\u202egnp.exe');
      assert.equal(printable('\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069'), '\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069');
    });

    it('leaves no unsafe character raw, one by one', () => {
      assert.equal(UNSAFE.length, 32 + 33 + 2 + 5 + 4);
      for (const c of UNSAFE) {
        const out = printable(`x${c}y`);
        assert.ok(!hasRaw(out), `U+${c.charCodeAt(0).toString(16)} stays raw`);
        assert.match(out, /^x\\(?:[nrt]|x[0-9a-f]{2}|u[0-9a-f]{4})y$/);
      }
    });

    it('leaves every other character of the Basic Multilingual Plane alone', () => {
      for (let code = 0; code <= 0xffff; code++) {
        if (isUnsafeCodePoint(code) || (code >= 0xd800 && code <= 0xdfff)) continue;
        const c = String.fromCharCode(code);
        if (printable(c) !== c) assert.fail(`U+${code.toString(16)} was changed`);
      }
    });

    it('leaves ordinary text alone: other scripts, emoji, marks, backslashes, the characters around the ranges', () => {
      for (const text of ['temperature 21.5 °C', 'ключ: значение', 'مرحبا بالعالم', 'שלום', '日本語のテキスト', '👩‍🚀 🇩🇪 🌱', 'C:\\path\\n', ' ~\u00a0\u00ff\u2027\u202f\u2065\u206a', 'e\u0301']) {
        assert.equal(printable(text), text);
      }
    });

    it('is idempotent', () => {
      const once = printable('a\n\x1b\u202e\\x1b');
      assert.equal(printable(once), once);
    });
  });

  describe('printableJson', () => {
    it('escapes what JSON.stringify leaves raw, and the result parses back to the same value', () => {
      const value = { text: 'a\u2028b\u202e\u0085\x7f\x1b\n', nested: ['\u2066ok\u2069'], plain: 'ключ 👍' };
      const json = JSON.stringify(value);
      assert.ok(hasRaw(json), 'JSON.stringify leaves some raw');
      const out = printableJson(json);
      assert.ok(!hasRaw(out));
      assert.deepEqual(JSON.parse(out), value);
      assert.ok(out.includes('\\u2028') && out.includes('\\u202e') && out.includes('\\u0085') && out.includes('\\u007f'));
      assert.ok(out.includes('"plain":"ключ 👍"'));
    });

    it('keeps the line ends of pretty JSON and of a JSON line: valid JSON holds C0 controls only as whitespace', () => {
      const pretty = `${JSON.stringify({ a: 'x\u2028', b: [1, 2] }, null, 2)}\n`;
      const out = printableJson(pretty);
      assert.equal(out.split('\n').length, pretty.split('\n').length);
      assert.deepEqual(JSON.parse(out), { a: 'x\u2028', b: [1, 2] });
      assert.ok(out.endsWith('}\n'));
    });

    it('leaves JSON without unsafe characters unchanged', () => {
      const json = JSON.stringify({ a: 'b\\n', c: [1, 'ü'] });
      assert.equal(printableJson(json), json);
    });
  });
});
