import assert from 'node:assert/strict';
import { HUB_ERROR_CATALOGUE, MediaError } from '../../../lib/media';
import { readUploadReply } from '../../../lib/media/envelope';

const ok = (data: unknown): string => JSON.stringify({ code: 0, msg: 'ok', data });

describe('readUploadReply', () => {
  it('returns the fragment of a code-0 envelope', () => {
    const out = readUploadReply(200, ok({ kind: 'image', url: 'https://m/x.png', name: 'x.png', mime: 'image/png', size: 47123 }));
    assert.deepEqual(out, { ok: true, fragment: { kind: 'image', url: 'https://m/x.png', name: 'x.png', mime: 'image/png', size: 47123 } });
  });

  it('keeps only the documented fields, each with its type (§10.4)', () => {
    const out = readUploadReply(200, ok({ kind: 'file', url: 'u', size: '12', caption: 'x', width: -1, name: 7 }));
    assert.deepEqual(out, { ok: true, fragment: { kind: 'file', url: 'u' } });
  });

  it('branches on code, not on the HTTP status', () => {
    const error = readUploadReply(200, JSON.stringify({ code: 41301, msg: 'upload too large: 9 bytes (limit 8)' }));
    assert.equal(error.ok, false);
    assert.equal(!error.ok && error.error.code, 'TOO_LARGE');
    const success = readUploadReply(500, ok({ kind: 'audio', url: 'u' }));
    assert.equal(success.ok, true);
  });

  it('maps every catalogue code (§15.6) to its error and retry class', () => {
    const expected: Record<number, [string, boolean]> = {
      40001: ['MISSING_FILE', false],
      40002: ['EMPTY_UPLOAD', false],
      40101: ['UNAUTHORIZED', false],
      41301: ['TOO_LARGE', false],
      41501: ['MIME_NOT_ALLOWED', false],
      50001: ['UPLOAD_FAILED', true],
      50301: ['STORAGE_NOT_CONFIGURED', true],
    };
    assert.deepEqual(Object.keys(HUB_ERROR_CATALOGUE).map(Number).sort(), Object.keys(expected).map(Number).sort());
    for (const [hubCode, [code, retryable]] of Object.entries(expected)) {
      const status = Math.floor(Number(hubCode) / 100);
      const out = readUploadReply(status, JSON.stringify({ code: Number(hubCode), msg: 'the hub says so' }));
      assert.ok(!out.ok);
      assert.ok(out.error instanceof MediaError);
      assert.equal(out.error.code, code);
      assert.equal(out.error.retryable, retryable, code);
      assert.equal(out.error.hubCode, Number(hubCode));
      assert.equal(out.error.status, status);
      assert.match(out.error.message, /the hub says so/);
    }
  });

  it('classes an unknown code by its hundreds', () => {
    const client = readUploadReply(400, JSON.stringify({ code: 40009, msg: 'new rule' }));
    const server = readUploadReply(502, JSON.stringify({ code: 50209, msg: 'gateway' }));
    assert.ok(!client.ok && client.error.code === 'HUB_ERROR' && !client.error.retryable);
    assert.ok(!server.ok && server.error.code === 'HUB_ERROR' && server.error.retryable);
  });

  it('falls back to the status only when there is no envelope', () => {
    const proxy413 = readUploadReply(413, '<html><body>413 Request Entity Too Large</body></html>');
    assert.ok(!proxy413.ok && proxy413.error.code === 'TOO_LARGE' && !proxy413.error.retryable);
    const proxy502 = readUploadReply(502, 'Bad Gateway');
    assert.ok(!proxy502.ok && proxy502.error.code === 'HTTP_ERROR' && proxy502.error.retryable);
    const proxy404 = readUploadReply(404, 'not found');
    assert.ok(!proxy404.ok && proxy404.error.code === 'HTTP_ERROR' && !proxy404.error.retryable);
  });

  it('calls a success without a fragment, or a 2xx without an envelope, a bad response', () => {
    for (const body of [ok(undefined), ok({ kind: 'image' }), ok({ url: 'u' }), '', 'ok', '[]', JSON.stringify({ code: '0' })]) {
      const out = readUploadReply(200, body);
      assert.ok(!out.ok && out.error.code === 'BAD_RESPONSE', body);
    }
  });
});
