import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { fromBase64Canonical, toBase64, utf8Length } from '../../../lib/bytes';
import { joinBase64Tail, splitBase64Tail } from '../../../lib/mesh/base64-tail';

/** Steps a–f of the facts file, literally: the re-encode comparison included. */
function referenceSplit(content: string): { head: string; tail: Uint8Array } | undefined {
  if (utf8Length(content) < 64) return undefined;
  let end = content.length;
  for (let k = 0; k < 2 && content.endsWith('=', end); k++) end--;
  let start = end;
  while (start > 0 && /[A-Za-z0-9+/]/.test(content[start - 1])) start--;
  start += (content.length - start) % 4;
  const tail = content.slice(start);
  if (tail.length < 64) return undefined;
  const raw = fromBase64Canonical(tail);
  if (raw === undefined || toBase64(raw) !== tail) return undefined;
  return { head: content.slice(0, start), tail: raw };
}

function b64(bytes: number[] | Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

describe('lib/mesh/base64-tail', () => {
  it('splits a control prefix from a canonical base64 body and reconstructs it byte for byte', () => {
    const body = b64(Array.from({ length: 50 }, (_, i) => i));
    const content = `__MLS_ENC__${body}`;
    const split = splitBase64Tail(content);
    assert.ok(split);
    assert.equal(split.head, '__MLS_ENC__');
    assert.deepEqual([...split.tail], Array.from({ length: 50 }, (_, i) => i));
    assert.equal(joinBase64Tail(split.head, split.tail), content);
  });

  it('sheds the run remainder into the head: "!" + 66×A gives head "!AA"; 64×A gives an empty head', () => {
    assert.equal(splitBase64Tail('!' + 'A'.repeat(66))?.head, '!AA');
    const headless = splitBase64Tail('A'.repeat(64));
    assert.equal(headless?.head, '');
    assert.equal(headless?.tail.length, 48);
  });

  it('keeps a non-ASCII head intact', () => {
    const content = 'Grüße 👋 ' + b64(new Uint8Array(60).fill(9));
    const split = splitBase64Tail(content);
    assert.equal(split?.head, 'Grüße 👋 ');
    assert.equal(joinBase64Tail(split!.head, split!.tail), content);
  });

  it('does not split: 4 chars, a 63-char run, JSON int arrays, "!"+63×B+"=", an "=" in the middle, 64×"="', () => {
    assert.equal(splitBase64Tail('AAAA'), undefined);
    assert.equal(splitBase64Tail('!' + 'A'.repeat(63)), undefined);
    assert.equal(splitBase64Tail(JSON.stringify(Array.from({ length: 40 }, (_, i) => i))), undefined);
    assert.equal(splitBase64Tail('!' + 'B'.repeat(63) + '='), undefined);
    assert.equal(splitBase64Tail('A'.repeat(40) + '=' + 'A'.repeat(40)), undefined);
    assert.equal(splitBase64Tail('='.repeat(64)), undefined);
  });

  it('refuses the URL-safe alphabet and non-canonical padding', () => {
    assert.equal(splitBase64Tail('-'.repeat(64)), undefined);
    // 64 chars ending "AB==" carry non-zero trailing bits (B = 000001).
    assert.equal(splitBase64Tail('A'.repeat(60) + 'AB=='), undefined);
  });

  it('counts the padding in the 64: 60×A + "AA==" splits', () => {
    const split = splitBase64Tail('x:' + 'A'.repeat(60) + 'AA==');
    assert.equal(split?.head, 'x:');
    assert.equal(split?.tail.length, 46);
  });

  it('the decoder side has no minimum', () => {
    assert.equal(joinBase64Tail('head:', new Uint8Array([0x41, 0x42])), 'head:QUI=');
    assert.equal(joinBase64Tail('', new Uint8Array(0)), '');
  });

  it('agrees with a literal implementation of steps a–f on arbitrary near-base64 text', () => {
    const chars = fc.constantFrom(...'AQgw+/=_-!é😀 '.split(''), 'A', 'B', 'Z', 'z', '0', '9');
    const content = fc.oneof(
      fc.string({ unit: chars, maxLength: 120 }),
      fc.tuple(fc.string({ maxLength: 8 }), fc.uint8Array({ minLength: 40, maxLength: 90 }), fc.string({ unit: chars, maxLength: 3 })).map(([h, raw, t]) => h + Buffer.from(raw).toString('base64') + t),
    );
    fc.assert(
      fc.property(content, (text) => {
        const ours = splitBase64Tail(text);
        const reference = referenceSplit(text);
        assert.equal(ours?.head, reference?.head);
        assert.deepEqual(ours === undefined ? undefined : [...ours.tail], reference === undefined ? undefined : [...reference.tail]);
        if (ours) assert.equal(joinBase64Tail(ours.head, ours.tail), text);
      }),
      { numRuns: 3000 },
    );
  });
});
