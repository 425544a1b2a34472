import assert from 'node:assert/strict';
import { checkMime, cleanFileName, filenameForHeader, multipartFrame, newBoundary } from '../../../lib/media/multipart';

describe('multipartFrame', () => {
  it('frames one part named file with its filename and Content-Type (RFC 7578)', () => {
    const frame = multipartFrame('photo.png', 'image/png', 'BOUNDARY');
    assert.equal(frame.contentType, 'multipart/form-data; boundary=BOUNDARY');
    assert.equal(
      frame.head.toString('utf8'),
      '--BOUNDARY\r\nContent-Disposition: form-data; name="file"; filename="photo.png"\r\nContent-Type: image/png\r\n\r\n',
    );
    assert.equal(frame.tail.toString('utf8'), '\r\n--BOUNDARY--\r\n');
  });

  it('keeps MIME parameters', () => {
    assert.match(multipartFrame('a.ogg', 'audio/ogg; codecs=opus', 'B').head.toString(), /Content-Type: audio\/ogg; codecs=opus\r\n/);
  });

  it('makes a fresh, legal boundary each time', () => {
    const a = newBoundary();
    assert.notEqual(a, newBoundary());
    assert.ok(a.length <= 70 && /^[0-9A-Za-z'()+_,./:=?-]+$/.test(a));
  });
});

describe('file names in the header', () => {
  it('keeps only the last path segment', () => {
    assert.equal(cleanFileName('/home/pi/cam/shot.jpg'), 'shot.jpg');
    assert.equal(cleanFileName('C:\\Users\\x\\shot.jpg'), 'shot.jpg');
  });

  it('drops control characters, so a name cannot end the header', () => {
    assert.equal(cleanFileName('a\r\nX-Injected: 1\r\n.png'), 'aX-Injected: 1.png');
    assert.ok(!multipartFrame('x\r\n\r\ny.png', 'image/png', 'B').head.toString().includes('x\r\n\r\ny'));
  });

  it('escapes quotes and backslashes as quoted-pairs and keeps UTF-8', () => {
    assert.equal(filenameForHeader('say "cheese".jpg'), 'say \\"cheese\\".jpg');
    assert.equal(filenameForHeader('Überraschung 🎉.png'), 'Überraschung 🎉.png');
  });
});

describe('checkMime', () => {
  it('accepts type/subtype with parameters and trims', () => {
    assert.equal(checkMime(' image/png '), 'image/png');
    assert.equal(checkMime('application/vnd.openxmlformats-officedocument.wordprocessingml.document'), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    assert.equal(checkMime('text/plain; charset="utf-8"'), 'text/plain; charset="utf-8"');
  });

  it('refuses anything else with BAD_OPTIONS', () => {
    for (const bad of ['', 'image', 'image/', '/png', 'image/png\nX: y', 'image/p ng', 'ima"ge/png']) {
      assert.throws(() => checkMime(bad), { code: 'BAD_OPTIONS' }, JSON.stringify(bad));
    }
  });
});
