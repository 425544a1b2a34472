/**
 * Who gets into the admin HTTP API (issue 14 §4), over real HTTP against a real hub on 127.0.0.1: a caller needs the
 * admin token as a bearer, bodies must be declared JSON, and neither a foreign `Origin` (a browser page) nor a foreign
 * `Host` (DNS rebinding) gets in, the right token notwithstanding. The attack the issue names is replayed: two
 * simple-request POSTs that would create a user and add it to a chat; each test checks that nothing changed.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { startDevHub, type DevHubOptions } from '../../devhub';
import { adminFetch, BASE_OPTIONS, useHub, type Frame } from './support';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: Frame;
}

/** node:http rather than fetch: fetch sends its own Host, whatever the headers say. */
function raw(adminUrl: string, route: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const url = new URL(`${adminUrl}/${route}`);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, json: JSON.parse(text) as Frame }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

const EVIL_USER = { id: 'usr_evil', token: 'evil-token' };

describe('devhub admin HTTP API: token, JSON bodies, own origin and host only', () => {
  const f = useHub();
  const auth = (): Record<string, string> => ({ authorization: `Bearer ${f.hub().adminToken}` });
  const json = { 'content-type': 'application/json' };

  /** The two requests with the given headers; both must be refused with `status` and `code`. */
  async function attack(headers: Record<string, string>, status: number, code: string): Promise<void> {
    const user = await raw(f.hub().adminUrl, 'users', { method: 'POST', headers, body: JSON.stringify(EVIL_USER) });
    const member = await raw(f.hub().adminUrl, 'chats/members', { method: 'POST', headers, body: JSON.stringify({ id: 'chat-ab', members: ['usr_a', 'usr_b', 'usr_evil'] }) });
    for (const answer of [user, member]) {
      assert.equal(answer.status, status, JSON.stringify(answer.json));
      assert.equal(answer.json.ok, false);
      assert.equal(answer.json.error.code, code);
    }
    await assert.rejects(f.login(EVIL_USER.token), /authentication failed/, 'no user was created');
  }

  it('refuses a request without the token: 401 ADMIN_UNAUTHORIZED, nothing done', async () => {
    await attack(json, 401, 'ADMIN_UNAUTHORIZED');
    const read = await raw(f.hub().adminUrl, 'devices');
    assert.equal(read.status, 401, 'reads need it too');
    assert.match(String(read.headers['www-authenticate']), /^Bearer /);
  });

  it('refuses a wrong token, one of the same length and the right one in another scheme: 401', async () => {
    const token = f.hub().adminToken;
    const sameLength = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const authorization of ['Bearer wrong', `Bearer ${sameLength}`, `Basic ${token}`, `Bearer ${token}x`, token]) {
      await attack({ ...json, authorization }, 401, 'ADMIN_UNAUTHORIZED');
    }
  });

  it('refuses a text/plain body (and one with no type) with the right token: 415, nothing done', async () => {
    await attack({ ...auth(), 'content-type': 'text/plain' }, 415, 'ADMIN_UNSUPPORTED_MEDIA_TYPE');
    await attack(auth(), 415, 'ADMIN_UNSUPPORTED_MEDIA_TYPE');
    await attack({ ...auth(), 'content-type': 'application/x-www-form-urlencoded' }, 415, 'ADMIN_UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses a foreign Origin, even with the right token and JSON: 403', async () => {
    for (const origin of ['http://evil.example', 'null', `http://localhost:${new URL(f.hub().adminUrl).port}.evil.example`, `https://${new URL(f.hub().adminUrl).host}`]) {
      await attack({ ...auth(), ...json, origin }, 403, 'ADMIN_ORIGIN_REFUSED');
    }
    assert.equal((await raw(f.hub().adminUrl, '', { headers: { origin: 'http://evil.example' } })).status, 403, 'the index too');
  });

  it('refuses a Host that is not this listener (DNS rebinding), even with the right token and JSON: 403', async () => {
    const port = new URL(f.hub().adminUrl).port;
    for (const host of [`evil.example:${port}`, 'evil.example', '127.0.0.1', `127.0.0.1:${Number(port) + 1}`]) {
      await attack({ ...auth(), ...json, host }, 403, 'ADMIN_HOST_REFUSED');
    }
    assert.equal((await raw(f.hub().adminUrl, '', { headers: { host: `evil.example:${port}` } })).status, 403, 'the index too');
  });

  it('does what it is asked with the token and JSON, from its own origin and every loopback name, and nothing without the token', async () => {
    const port = new URL(f.hub().adminUrl).port;
    const tokenless = { ...json, host: `localhost:${port}`, origin: `http://localhost:${port}` };
    const headers = { ...auth(), ...tokenless };
    const user = await raw(f.hub().adminUrl, 'users', { method: 'POST', headers, body: JSON.stringify(EVIL_USER) });
    assert.deepEqual(user.json, { ok: true, result: null });
    const member = await raw(f.hub().adminUrl, 'chats/members', { method: 'POST', headers: { ...headers, host: `[::1]:${port}`, 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify({ id: 'chat-ab', members: ['usr_a', 'usr_evil'] }) });
    assert.deepEqual(member.json, { ok: true, result: null });
    const client = await f.login(EVIL_USER.token);
    assert.equal(client.ws.readyState, client.ws.OPEN);
    const devices = await adminFetch(f.hub(), 'devices');
    assert.equal(((await devices.json()) as Frame).result[0].user_id, 'usr_evil');
    const undo = await raw(f.hub().adminUrl, 'users/remove', { method: 'POST', headers: tokenless, body: JSON.stringify({ id: 'usr_evil' }) });
    assert.equal(undo.status, 401, 'the same request without the token is refused');
  });

  it('serves the route index without the token, naming what the other routes need', async () => {
    const index = await raw(f.hub().adminUrl, '');
    assert.equal(index.status, 200);
    assert.match(index.json.result.auth, /Authorization: Bearer TOKEN/);
    assert.equal((await raw(f.hub().adminUrl, 'faults')).status, 401, 'but nothing past it');
  });
});

describe('devhub admin token', () => {
  it('draws a fresh random token per hub unless admin.token is configured, and refuses a short one', async () => {
    const first = await startDevHub(BASE_OPTIONS);
    const second = await startDevHub(BASE_OPTIONS);
    const lines: string[] = [];
    const chosen = 'a-chosen-admin-token-of-some-length';
    const third = await startDevHub({ ...BASE_OPTIONS, admin: { token: chosen } }, { log: (level, message, fields) => lines.push(`${level} ${message} ${JSON.stringify(fields)}`) });
    try {
      assert.match(first.adminToken, /^[\w-]{43}$/);
      assert.notEqual(first.adminToken, second.adminToken);
      assert.equal((await adminFetch({ adminUrl: first.adminUrl, adminToken: second.adminToken }, 'devices')).status, 401, "one hub's token opens no other");
      assert.equal(third.adminToken, chosen);
      assert.equal((await adminFetch(third, 'devices')).status, 200);
      assert.ok(lines.some((l) => l.includes('dev hub listening')));
      assert.equal(lines.some((l) => l.includes(chosen)), false, 'never logged');
    } finally {
      await Promise.all([first.stop(), second.stop(), third.stop()]);
    }
    const short: DevHubOptions = { admin: { token: 'short-secret' } };
    await assert.rejects(startDevHub(short), (err: Error & { code?: string }) => err.code === 'DEVHUB_CONFIG_INVALID' && /admin\.token/.test(err.message) && !err.message.includes('short-secret'));
  });
});
