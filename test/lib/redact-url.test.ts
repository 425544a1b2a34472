import assert from 'node:assert/strict';
import { REDACTED, redactUrl, urlPasswords } from '../../lib/redact';

describe('lib/redact redactUrl, the one URL redactor', () => {
  it("hides a userinfo password and keeps the user name, which tells which login", () => {
    assert.equal(redactUrl('mqtts://clawling-gw:s3cret@broker.lan:8883'), `mqtts://clawling-gw:${REDACTED}@broker.lan:8883`);
    assert.equal(redactUrl('mqtt://user:@host'), 'mqtt://user:@host');
    assert.equal(redactUrl('mqtt://host:1883/path'), 'mqtt://host:1883/path');
  });

  it('hides credential-looking query values, and nothing else', () => {
    assert.equal(redactUrl('wss://hub.example/ws?token=abc123&chat=cnv_1'), `wss://hub.example/ws?token=${REDACTED}&chat=cnv_1`);
    assert.equal(redactUrl('https://x/y?api_key=k&Signature=s#frag'), `https://x/y?api_key=${REDACTED}&Signature=${REDACTED}#frag`);
    assert.equal(redactUrl('https://x/y?monkey=banana'), 'https://x/y?monkey=banana');
  });

  it('works on text that is no valid URL, and on ordinary text', () => {
    assert.equal(redactUrl('ws://u:p w@[bad host/'), `ws://u:${REDACTED}@[bad host/`);
    assert.equal(redactUrl('just a sentence: with a colon @ and at'), 'just a sentence: with a colon @ and at');
  });

  it('gives the password as written and decoded, for the log scrubber', () => {
    assert.deepEqual(urlPasswords('mqtt://u:p%40ss@h'), ['p@ss', 'p%40ss']);
    assert.deepEqual(urlPasswords('mqtt://u:plain@h'), ['plain']);
    assert.deepEqual(urlPasswords('mqtt://h'), []);
  });
});
