import assert from 'node:assert/strict';
import fc from 'fast-check';
import { boundaryOf, MultipartError, MultipartParser, type MultipartEvent, type PartHeaders } from '../../../devhub/media/multipart';

interface Part {
  headers: PartHeaders;
  body: Buffer;
}

/** Feeds `chunks` and folds the events back into whole parts. */
function parse(boundary: string, chunks: Buffer[]): Part[] {
  const parser = new MultipartParser(boundary);
  const parts: Part[] = [];
  let current: { headers: PartHeaders; data: Buffer[] } | undefined;
  const apply = (e: MultipartEvent): void => {
    if (e.type === 'part') current = { headers: e.headers, data: [] };
    else if (e.type === 'data') current!.data.push(Buffer.from(e.data));
    else if (e.type === 'part-end') {
      parts.push({ headers: current!.headers, body: Buffer.concat(current!.data) });
      current = undefined;
    }
  };
  for (const chunk of chunks) parser.push(chunk).forEach(apply);
  parser.end();
  return parts;
}

function splitAt(buf: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let at = 0;
  for (const p of points) {
    out.push(buf.subarray(at, p));
    at = p;
  }
  out.push(buf.subarray(at));
  return out;
}

function body(boundary: string, parts: Array<{ head: string; data: Buffer }>, preamble = '', epilogue = ''): Buffer {
  const pieces: Buffer[] = [Buffer.from(preamble)];
  for (const p of parts) pieces.push(Buffer.from(`--${boundary}\r\n${p.head}\r\n\r\n`), p.data, Buffer.from('\r\n'));
  pieces.push(Buffer.from(`--${boundary}--\r\n${epilogue}`));
  return Buffer.concat(pieces);
}

describe('devhub/media/multipart', () => {
  describe('boundaryOf', () => {
    it('reads plain and quoted boundaries of multipart/form-data only', () => {
      assert.equal(boundaryOf('multipart/form-data; boundary=abc'), 'abc');
      assert.equal(boundaryOf('Multipart/Form-Data; charset=utf-8; boundary="a b;c"'), 'a b;c');
      assert.equal(boundaryOf('multipart/mixed; boundary=abc'), undefined);
      assert.equal(boundaryOf('multipart/form-data'), undefined);
      assert.equal(boundaryOf(`multipart/form-data; boundary=${'x'.repeat(71)}`), undefined);
      assert.equal(boundaryOf(undefined), undefined);
    });
  });

  describe('MultipartParser', () => {
    it('parses parts with their name, filename and type, skipping preamble and epilogue', () => {
      const raw = body(
        'XyZ',
        [
          { head: 'Content-Disposition: form-data; name="field"', data: Buffer.from('value') },
          { head: 'Content-Disposition: form-data; name="file"; filename="a \\"b\\".png"\r\nContent-Type: image/png', data: Buffer.from([0, 13, 10, 45, 45, 1]) },
        ],
        'ignored preamble\r\n',
        'ignored epilogue',
      );
      const parts = parse('XyZ', [raw]);
      assert.deepEqual(parts.map((p) => [p.headers.name, p.headers.filename, p.headers.contentType]), [
        ['field', undefined, undefined],
        ['file', 'a "b".png', 'image/png'],
      ]);
      assert.deepEqual(parts[1].body, Buffer.from([0, 13, 10, 45, 45, 1]));
    });

    it('prefers an RFC 5987 filename* and decodes it as UTF-8', () => {
      const raw = body('b', [{ head: `Content-Disposition: form-data; name="file"; filename="fallback.txt"; filename*=UTF-8''%E2%82%AC%20rates.txt`, data: Buffer.from('x') }]);
      assert.equal(parse('b', [raw])[0].headers.filename, '€ rates.txt');
    });

    it('accepts a part with no headers at all', () => {
      const raw = Buffer.from('--b\r\n\r\ndata\r\n--b--');
      assert.deepEqual(parse('b', [raw]).map((p) => p.body.toString()), ['data']);
    });

    it('gives the same parts whatever the chunking (property)', () => {
      fc.assert(
        fc.property(
          fc.array(fc.uint8Array({ maxLength: 200 }), { minLength: 1, maxLength: 4 }),
          fc.array(fc.nat(), { maxLength: 12 }),
          (datas, cuts) => {
            const boundary = 'bound\r\n--ary';
            // Keep the delimiter out of the data (a real client picks a boundary that does not occur).
            const parts = datas.map((d, i) => ({ head: `Content-Disposition: form-data; name="p${i}"`, data: Buffer.from(Buffer.from(d).toString('hex')) }));
            const raw = body(boundary, parts);
            const got = parse(boundary, splitAt(raw, cuts));
            assert.deepEqual(got.map((p) => p.body.toString()), parts.map((p) => p.data.toString()));
          },
        ),
        { numRuns: 300 },
      );
    });

    it('survives data full of near-delimiters split one byte at a time', () => {
      const data = Buffer.from('\r\n--bounc\r\n-\r\n--boun\r\r\n--boun');
      const raw = body('bound', [{ head: 'Content-Disposition: form-data; name="file"', data }]);
      const oneByte = [...raw].map((b) => Buffer.from([b]));
      assert.deepEqual(parse('bound', oneByte)[0].body, data);
    });

    it('emits body bytes as they come instead of holding them', () => {
      const parser = new MultipartParser('b');
      parser.push(Buffer.from('--b\r\nContent-Disposition: form-data; name="file"\r\n\r\n'));
      const events = parser.push(Buffer.alloc(100_000, 0x41));
      const bytes = events.filter((e) => e.type === 'data').reduce((n, e) => n + (e as { data: Buffer }).data.length, 0);
      assert.ok(bytes >= 100_000 - 8, `only ${bytes} bytes emitted`);
    });

    for (const [name, input, pattern] of [
      ['a body that never closes', '--b\r\n\r\nhello', /ends before the closing boundary/],
      ['a body without any boundary', 'just text', /no multipart boundary/],
      ['a garbled boundary line', '--bXX\r\n\r\nx\r\n--b--', /malformed multipart boundary line/],
    ] as const) {
      it(`throws MultipartError for ${name}`, () => {
        assert.throws(() => parse('b', [Buffer.from(input)]), (err: unknown) => err instanceof MultipartError && pattern.test((err as Error).message));
      });
    }

    it('bounds header blocks, part counts and the preamble', () => {
      assert.throws(() => new MultipartParser('b', { maxHeaderBytes: 100 }).push(Buffer.from(`--b\r\nX: ${'y'.repeat(200)}`)), MultipartError);
      const many = Buffer.from('--b\r\n\r\nx\r\n'.repeat(5) + '--b--');
      assert.throws(() => new MultipartParser('b', { maxParts: 4 }).push(many), /more than 4 multipart parts/);
      assert.throws(() => new MultipartParser('b', { maxPreambleBytes: 10 }).push(Buffer.alloc(100, 0x61)), MultipartError);
    });
  });
});
