import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mimeMatches, sniffMime } from '../../../lib/media';
import { chooseMime } from '../../../lib/media/mime-check';
import * as fx from './fixtures';

describe('sniffMime', () => {
  it('names every format the fixtures write', () => {
    const cases: [Buffer, string][] = [
      [fx.png(1, 1), 'image/png'],
      [fx.jpeg(8, 8), 'image/jpeg'],
      [fx.gif(1, 1), 'image/gif'],
      [fx.webpLossy(1, 1), 'image/webp'],
      [fx.webpLossless(1, 1), 'image/webp'],
      [fx.wav(10), 'audio/wav'],
      [fx.mp4({ durationMs: 1, width: 2, height: 2 }), 'video/mp4'],
      [fx.mp4({ durationMs: 1 }), 'audio/mp4'],
      [fx.mp4({ durationMs: 1, width: 2, height: 2, brand: 'qt  ' }), 'video/quicktime'],
      [fx.mp4({ durationMs: 1, width: 2, height: 2, brand: 'heic' }), 'image/heic'],
      [fx.mp4({ durationMs: 1, width: 2, height: 2, brand: 'avif' }), 'image/avif'],
      [fx.oggOpus(10), 'audio/ogg'],
      [fx.oggVorbis(10), 'audio/ogg'],
      [fx.flac(10), 'audio/flac'],
      [fx.mp3Xing(1, { id3Bytes: 20 }), 'audio/mpeg'],
      [fx.mp3Cbr(2), 'audio/mpeg'],
      [fx.webm({ width: 1, height: 1 }), 'video/webm'],
      [fx.webm({ width: 1, height: 1, docType: 'matroska' }), 'video/x-matroska'],
      [fx.PDF, 'application/pdf'],
      [fx.EXE, 'application/x-msdownload'],
      [fx.HTML, 'text/html'],
      [Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml'],
      [Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]), 'application/zip'],
      [Buffer.from([0x1f, 0x8b, 0x08, 0]), 'application/gzip'],
      [Buffer.from([0xff, 0xf1, 0x50, 0x80]), 'audio/aac'],
    ];
    for (const [bytes, mime] of cases) assert.equal(sniffMime(bytes), mime, mime);
  });

  it('says nothing for plain text, empty input or unknown bytes', () => {
    assert.equal(sniffMime(Buffer.from('hello, world\n')), undefined);
    assert.equal(sniffMime(new Uint8Array(0)), undefined);
    assert.equal(sniffMime(Buffer.from('RIFF\0\0\0\0XXXX')), undefined);
  });

  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const mime = sniffMime(bytes);
        assert.ok(mime === undefined || /^[a-z]+\/[a-z0-9.+-]+$/.test(mime));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('mimeMatches', () => {
  it('accepts the same type in other spellings and with parameters', () => {
    assert.ok(mimeMatches('image/jpg', 'image/jpeg'));
    assert.ok(mimeMatches('IMAGE/PNG', 'image/png'));
    assert.ok(mimeMatches('audio/ogg; codecs=opus', 'audio/ogg'));
    assert.ok(mimeMatches('audio/x-wav', 'audio/wav'));
  });

  it('accepts types that share one container', () => {
    assert.ok(mimeMatches('audio/mp4', 'video/mp4'));
    assert.ok(mimeMatches('audio/x-m4a', 'video/mp4'));
    assert.ok(mimeMatches('audio/opus', 'audio/ogg'));
    assert.ok(mimeMatches('audio/webm', 'video/webm'));
    assert.ok(mimeMatches('application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'application/zip'));
    assert.ok(mimeMatches('application/epub+zip', 'application/zip'));
    assert.ok(mimeMatches('text/plain', 'text/html'));
  });

  it('never objects to an undeclared or generic type', () => {
    assert.ok(mimeMatches('application/octet-stream', 'image/png'));
    assert.ok(mimeMatches('', 'image/png'));
    assert.ok(mimeMatches('image/*', 'image/png'));
  });

  it('refuses real mismatches', () => {
    assert.equal(mimeMatches('image/png', 'application/x-msdownload'), false);
    assert.equal(mimeMatches('image/png', 'image/jpeg'), false);
    assert.equal(mimeMatches('image/png', 'text/html'), false);
    assert.equal(mimeMatches('video/mp4', 'audio/ogg'), false);
    assert.equal(mimeMatches('application/pdf', 'application/zip'), false);
  });
});

describe('chooseMime', () => {
  it('keeps a declared type and warns when the content contradicts it', () => {
    const choice = chooseMime('image/png', 'setup.png', 'application/x-msdownload');
    assert.equal(choice.mime, 'image/png');
    assert.equal(choice.warning?.code, 'MIME_MISMATCH');
    assert.equal(choice.warning?.declared, 'image/png');
    assert.equal(choice.warning?.detected, 'application/x-msdownload');
    assert.match(choice.warning?.message ?? '', /image\/png.*application\/x-msdownload/);
  });

  it('does not warn when the declared type agrees or the content is unknown', () => {
    assert.deepEqual(chooseMime('image/jpeg', undefined, 'image/jpeg'), { mime: 'image/jpeg' });
    assert.deepEqual(chooseMime('text/csv', 'a.csv', undefined), { mime: 'text/csv' });
  });

  it('without a declared type: the extension, unless the content says otherwise', () => {
    assert.deepEqual(chooseMime(undefined, 'report.pdf', 'application/pdf'), { mime: 'application/pdf' });
    assert.deepEqual(chooseMime(undefined, 'notes.txt', undefined), { mime: 'text/plain' });
    assert.deepEqual(chooseMime(undefined, 'doc.docx', 'application/zip'), {
      mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    });
    const renamed = chooseMime(undefined, 'photo.png', 'image/jpeg');
    assert.equal(renamed.mime, 'image/jpeg');
    assert.equal(renamed.warning?.code, 'MIME_MISMATCH');
  });

  it('falls back to the content, then to application/octet-stream', () => {
    assert.deepEqual(chooseMime(undefined, undefined, 'audio/ogg'), { mime: 'audio/ogg' });
    assert.deepEqual(chooseMime(undefined, 'blob', undefined), { mime: 'application/octet-stream' });
    assert.deepEqual(chooseMime('', undefined, undefined), { mime: 'application/octet-stream' });
  });

  it('refuses a declared type that cannot go in a header', () => {
    assert.throws(() => chooseMime('image/png\r\nX-Evil: 1', undefined, undefined), { code: 'BAD_OPTIONS' });
    assert.throws(() => chooseMime('png', undefined, undefined), { code: 'BAD_OPTIONS' });
  });
});

describe('lookups keyed by outside text', () => {
  it('a name or type spelled like an Object.prototype member is just unknown', () => {
    assert.deepEqual(chooseMime(undefined, 'x.constructor', undefined), { mime: 'application/octet-stream' });
    assert.deepEqual(chooseMime(undefined, 'x.__proto__', undefined), { mime: 'application/octet-stream' });
    assert.equal(mimeMatches('constructor/x', 'image/png'), false);
    assert.equal(mimeMatches('__proto__', 'image/png'), false);
  });
});
