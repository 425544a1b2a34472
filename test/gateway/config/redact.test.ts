/** Secrets out of what the gateway prints: a password inside a URL is one, whichever key holds the URL. */
import assert from 'node:assert/strict';
import { collectSecrets, hideUrlPassword, redactConfig, REDACTED } from '../../../gateway/config/redact';

describe('config redaction: URL passwords', () => {
  it('hides the password of a URL and keeps the rest as written', () => {
    assert.equal(hideUrlPassword('mqtts://gw:hunter2@broker.lan:8883/x?y=1'), `mqtts://gw:${REDACTED}@broker.lan:8883/x?y=1`);
    assert.equal(hideUrlPassword('mqtt://gw@broker.lan'), 'mqtt://gw@broker.lan');
    assert.equal(hideUrlPassword('mqtt://broker.lan/a:b@c'), 'mqtt://broker.lan/a:b@c');
    assert.equal(hideUrlPassword('not a url: a:b@c'), 'not a url: a:b@c');
  });

  it('redacts URLs in schema-known and open sections alike', () => {
    const schema = { type: 'object', properties: { mqtt: { type: 'object', properties: { url: { type: 'string' } } } } };
    const out = redactConfig({ mqtt: { url: 'mqtt://u:p4ss@h' }, radios: [{ options: { endpoint: 'http://a:b%2Fc@h' } }] }, schema);
    assert.deepEqual(out, { mqtt: { url: `mqtt://u:${REDACTED}@h` }, radios: [{ options: { endpoint: `http://a:${REDACTED}@h` } }] });
  });

  it('hands the logger the password in both spellings, so neither reaches a log line', () => {
    const secrets = collectSecrets({ mqtt: { url: 'mqtt://u:s3cr%40t@h' } }, { type: 'object' });
    assert.ok(secrets.includes('s3cr@t'));
    assert.ok(secrets.includes('s3cr%40t'));
  });
});
