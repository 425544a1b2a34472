import assert from 'node:assert/strict';
import { healthUrl, mediaBaseUrl, uploadUrl } from '../../../lib/media';
import { authorizationHeader } from '../../../lib/media/endpoint';

describe('media endpoints', () => {
  it('hangs /media/upload and /health off a base URL, with or without a path prefix', () => {
    assert.equal(uploadUrl('http://127.0.0.1:8080').href, 'http://127.0.0.1:8080/media/upload');
    assert.equal(uploadUrl('https://media.example/').href, 'https://media.example/media/upload');
    assert.equal(uploadUrl('https://gw.example/hub/').href, 'https://gw.example/hub/media/upload');
    assert.equal(healthUrl('https://gw.example/hub').href, 'https://gw.example/hub/health');
  });

  it('accepts the full upload or health URL as given', () => {
    assert.equal(uploadUrl('https://media.example/media/upload').href, 'https://media.example/media/upload');
    assert.equal(healthUrl('https://media.example/media/upload').href, 'https://media.example/health');
    assert.equal(mediaBaseUrl('https://media.example/x/health').href, 'https://media.example/x');
  });

  it('drops query and fragment', () => {
    assert.equal(uploadUrl('https://media.example/?a=1#b').href, 'https://media.example/media/upload');
  });

  it('refuses what is not an http(s) URL, or one with credentials in it', () => {
    assert.throws(() => uploadUrl('media.example'), { code: 'BAD_OPTIONS' });
    assert.throws(() => uploadUrl('ws://media.example'), { code: 'BAD_OPTIONS' });
    assert.throws(() => uploadUrl('https://user:secret@media.example'), (err: Error) => {
      assert.equal((err as Error & { code: string }).code, 'BAD_OPTIONS');
      assert.ok(!err.message.includes('secret'));
      return true;
    });
  });
});

describe('authorizationHeader', () => {
  it('is a bearer header for a token, nothing without one', () => {
    assert.equal(authorizationHeader('t-alice'), 'Bearer t-alice');
    assert.equal(authorizationHeader(undefined), undefined);
    assert.equal(authorizationHeader(''), undefined);
  });

  it('refuses a token that cannot be one header word, without quoting it', () => {
    for (const bad of ['top secret', 'sec\r\nret', 'sécret']) {
      assert.throws(() => authorizationHeader(bad), (err: Error) => {
        assert.equal((err as Error & { code: string }).code, 'BAD_OPTIONS');
        assert.ok(!err.message.includes('ecret'));
        return true;
      });
    }
  });
});
