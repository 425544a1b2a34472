import { strict as assert } from 'node:assert';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { JsonFloat, JsonObject, MAX_JSON_DEPTH, parseJson } from '../../../lib/mesh/json-parse';
import { expectCode } from './fixtures';

function parse(text: string | Uint8Array) {
  return parseJson(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
}

describe('lib/mesh/json-parse', () => {
  describe('numbers', () => {
    it('keeps integers exact: a number up to 15 digits, a bigint beyond', () => {
      assert.equal(parse('123456789012345'), 123456789012345);
      assert.equal(parse('-42'), -42);
      assert.equal(parse('9007199254740993'), 9007199254740993n);
      assert.equal(parse('18446744073709551616'), 18446744073709551616n);
      assert.equal(parse('-9223372036854775809'), -9223372036854775809n);
    });

    it('fractions, exponents and -0 are not integers', () => {
      for (const text of ['1.0', '1e3', '1E+3', '2.5e-1', '-0', '-0.0']) {
        const v = parse(text);
        assert.ok(v instanceof JsonFloat, text);
        assert.equal((v as JsonFloat).text, text);
      }
      assert.equal((parse('1e3') as JsonFloat).value, 1000);
    });

    it('refuses leading zeros, a lone minus, a bare dot, a plus sign and empty exponents', () => {
      for (const text of ['01', '-', '-a', '.5', '1.', '+1', '1e', '1e+', 'NaN', 'Infinity']) {
        expectCode(() => parse(text), MeshDecodeError, 'JSON_SYNTAX');
      }
    });
  });

  describe('strings', () => {
    it('decodes every escape and paired surrogates', () => {
      assert.equal(parse('"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\ud83d\\ude00"'), '"\\/\b\f\n\r\tAé😀');
      assert.equal(parse('"Grüße 👋"'), 'Grüße 👋');
      assert.equal(parse('"a\\u00E9b"'), 'aéb');
    });

    it('refuses lone surrogate escapes, bad escapes, raw control characters and unterminated strings', () => {
      for (const text of ['"\\ud800"', '"\\ud800x"', '"\\ud800\\u0041"', '"\\udc00"', '"\\x"', '"\\u12"', '"\\u12g4"', '"a\nb"', '"a\u0000"', '"abc', '"\\']) {
        expectCode(() => parse(text), MeshDecodeError, 'JSON_SYNTAX');
      }
    });

    it('refuses invalid UTF-8: a bad continuation, an overlong form, an encoded surrogate', () => {
      for (const bytes of [[0x22, 0xc3, 0x28, 0x22], [0x22, 0xc0, 0xaf, 0x22], [0x22, 0xed, 0xa0, 0x80, 0x22], [0x22, 0xff, 0x22]]) {
        expectCode(() => parse(new Uint8Array(bytes)), MeshDecodeError, 'BAD_UTF8');
      }
    });

    it('does not treat DEL or U+2028 as special', () => {
      assert.equal(parse('"\u007f\u2028"'), '\u007f\u2028');
    });
  });

  describe('objects and arrays', () => {
    it('keeps every entry in order, repeats included', () => {
      const v = parse('{"a":1,"b":[true,false,null],"a":"x"}');
      assert.ok(v instanceof JsonObject);
      assert.deepEqual(v.keys, ['a', 'b', 'a']);
      assert.deepEqual(v.values, [1, [true, false, null], 'x']);
    });

    it('keeps "__proto__" as an ordinary key', () => {
      const v = parse('{"__proto__":"x"}') as JsonObject;
      assert.deepEqual(v.keys, ['__proto__']);
    });

    it('refuses trailing commas, missing colons, non-string keys, comments and single quotes', () => {
      for (const text of ['{"a":1,}', '[1,]', '{"a" 1}', '{a:1}', '{1:1}', '[1 2]', '// x\n{}', "{'a':1}", '{"a":1', '[', 'tru', 'nul', 'falsy']) {
        expectCode(() => parse(text), MeshDecodeError, 'JSON_SYNTAX');
      }
    });

    it(`refuses nesting deeper than ${MAX_JSON_DEPTH} levels without exhausting the stack`, () => {
      assert.ok(Array.isArray(parse('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))));
      expectCode(() => parse('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1)), MeshDecodeError, 'JSON_TOO_DEEP');
      expectCode(() => parse('{"a":'.repeat(100000)), MeshDecodeError, 'JSON_TOO_DEEP');
    });
  });

  describe('the document', () => {
    it('allows the four JSON whitespace characters around the value, and nothing else', () => {
      assert.equal(parse(' \t\n\r1 \t\n\r'), 1);
      expectCode(() => parse('\u00a01'), MeshDecodeError, 'JSON_SYNTAX');
      expectCode(() => parse(new Uint8Array([0xef, 0xbb, 0xbf, 0x31])), MeshDecodeError, 'JSON_SYNTAX');
    });

    it('refuses trailing bytes and empty input', () => {
      expectCode(() => parse('1 2'), MeshDecodeError, 'JSON_TRAILING_BYTES');
      expectCode(() => parse('{}x'), MeshDecodeError, 'JSON_TRAILING_BYTES');
      expectCode(() => parse('0x10'), MeshDecodeError, 'JSON_TRAILING_BYTES');
      expectCode(() => parse(''), MeshDecodeError, 'JSON_SYNTAX');
      expectCode(() => parse('   '), MeshDecodeError, 'JSON_SYNTAX');
    });

    it('parses a slice of a larger buffer and names the embedded field in errors', () => {
      const bytes = Buffer.from('xx{"a":1}yy');
      assert.deepEqual((parseJson(bytes, 2, 9) as JsonObject).keys, ['a']);
      try {
        parseJson(Buffer.from('{'), 0, 1, 'reply_context');
        assert.fail('expected an error');
      } catch (err) {
        assert.equal((err as MeshDecodeError).details?.field, 'reply_context');
      }
    });
  });
});
