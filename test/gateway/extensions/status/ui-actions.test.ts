/**
 * The web UI's actions over real HTTP against a real gateway with a simulated radio: the gate refuses, each with its
 * own code, a gateway without `http.auth_token`, a missing or wrong token, another site's Origin and a body that is
 * not JSON, and nothing reaches the node; with the token the send streams `sent` then `acked` and reaches the node.
 * The gateway document shows the effective configuration with its secrets redacted.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ackTarget, isAck } from '../../../../lib/mesh/ack';
import { Gateway } from '../../../../gateway/gateway';
import type { SimulatedRadio } from '../../../../gateway/radios/simulated/simulated-radio';
import { testConfig } from '../../support/config';
import { tempDir } from '../../support/gateway';

const TOKEN = 'ui-actions-token-0123456789';
const MQTT_PASSWORD = 'mqtt-password-never-shown';

interface Answer {
  status: number;
  type: string | undefined;
  body: string;
}

function request(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function codeOf(a: Answer): string | undefined {
  return (JSON.parse(a.body) as { error?: { code?: string } }).error?.code;
}

async function startGateway(dir: string, http: Record<string, unknown>): Promise<Gateway> {
  const config = testConfig(path.join(dir, 'state'), {
    http: { enabled: true, port: 0, ...http },
    mqtt: { enabled: false, password: MQTT_PASSWORD },
    radios: [{ id: 'sim0', kind: 'simulated', peers: [{ id: 'alice' }] }],
  });
  const gateway = new Gateway(config);
  await gateway.start();
  return gateway;
}

describe('gateway web UI actions', function () {
  this.timeout(60000);
  let dir: string;
  let gateway: Gateway;
  let alice: ReturnType<SimulatedRadio['virtualPeer']> & object;
  let sendUrl: string;
  let host: string;

  before(async () => {
    dir = tempDir('ui-actions-');
    gateway = await startGateway(dir, { auth_token: TOKEN });
    alice = (gateway.radios[0] as SimulatedRadio).virtualPeer('alice')!;
    sendUrl = `${gateway.statusUrl}/api/nodes/${alice.address}/send`;
    host = new URL(gateway.statusUrl!).host;
  });

  after(async () => {
    await gateway?.stop('test');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const json = { 'content-type': 'application/json' };
  const body = (text: string): string => JSON.stringify({ text });

  it('refuses each unlocked or foreign request with its code, and nothing reaches the node', async () => {
    const cases: Array<[Record<string, string>, string, number, string]> = [
      [json, body('no token'), 401, 'UI_AUTH_REQUIRED'],
      [{ ...json, authorization: 'Bearer not-the-token-at-all-000' }, body('wrong token'), 401, 'UI_AUTH_WRONG'],
      [{ ...json, authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' }, body('other site'), 403, 'UI_ORIGIN_MISMATCH'],
      [{ 'content-type': 'text/plain', authorization: `Bearer ${TOKEN}` }, body('a form post'), 415, 'UI_NOT_JSON'],
      [{ ...json, authorization: `Bearer ${TOKEN}` }, '{"text":', 400, 'UI_BAD_BODY'],
      [{ ...json, authorization: `Bearer ${TOKEN}` }, '{"text":""}', 400, 'UI_BAD_BODY'],
    ];
    for (const [headers, payload, status, code] of cases) {
      const a = await request(sendUrl, 'POST', headers, payload);
      assert.equal(a.status, status, code);
      assert.equal(codeOf(a), code);
    }
    assert.deepEqual(
      alice.received().filter((m) => m.recipient === alice.address),
      [],
    );
  });

  it('sends with the token from the same origin: sent, then acked, and the node has the text', async () => {
    const arrived = alice.waitFor((r) => r.message?.content === 'hello alice');
    const a = await request(sendUrl, 'POST', { ...json, authorization: `Bearer ${TOKEN}`, origin: `http://${host}` }, body('hello alice'));
    assert.equal(a.status, 200);
    assert.match(String(a.type), /^application\/x-ndjson/);
    const lines = a.body.trim().split('\n').map((l) => JSON.parse(l) as { status: string; id: string; via?: string[] });
    assert.deepEqual(lines.map((l) => l.status), ['sent', 'acked']);
    assert.deepEqual(lines[0]!.via, ['sim0/alice']);
    const receipt = await arrived;
    assert.equal(receipt.message!.id.toString(), lines[0]!.id);
  });

  it('answers a send to a malformed address with a coded rejection line', async () => {
    const a = await request(`${gateway.statusUrl}/api/nodes/off1nope/send`, 'POST', { ...json, authorization: `Bearer ${TOKEN}` }, body('x'));
    const line = JSON.parse(a.body.trim()) as { status: string; error: { code: string } };
    assert.equal(line.status, 'rejected');
    assert.equal(line.error.code, 'SEND_BAD_RECIPIENT');
  });

  it('forgets a node only with the token', async () => {
    const listed = async (): Promise<string[]> => (JSON.parse((await request(`${gateway.statusUrl}/api/nodes`, 'GET', {})).body) as { nodes: Array<{ address: string }> }).nodes.map((n) => n.address);
    // The book hears a message on the bus that also leads to its ACK: once the ACK is back, the book has it.
    const heard = async (text: string): Promise<void> => {
      const m = await alice.say(text);
      await alice.waitFor((r) => r.message !== undefined && isAck(r.message) && ackTarget(r.message) === m.id.toString());
    };
    await heard('still here');
    assert.ok((await listed()).includes(alice.address));
    const forgetUrl = `${gateway.statusUrl}/api/nodes/${alice.address}/forget`;
    const refused = await request(forgetUrl, 'POST', json, '{}');
    assert.equal(codeOf(refused), 'UI_AUTH_REQUIRED');
    assert.ok((await listed()).includes(alice.address));
    const done = await request(forgetUrl, 'POST', { ...json, authorization: `Bearer ${TOKEN}` }, '{}');
    assert.equal(done.status, 200);
    assert.deepEqual(JSON.parse(done.body), { address: alice.address, forgotten: true, site: false });
    assert.ok(!(await listed()).includes(alice.address));
    // Heard again, it is back.
    await heard('back again');
    assert.ok((await listed()).includes(alice.address));
  });

  it('shows the effective configuration with the token and the broker password redacted', async () => {
    const a = await request(`${gateway.statusUrl}/api/gateway`, 'GET', {});
    assert.equal(a.status, 200);
    assert.ok(!a.body.includes(TOKEN), 'the auth token is on the page');
    assert.ok(!a.body.includes(MQTT_PASSWORD), 'the broker password is on the page');
    const doc = JSON.parse(a.body) as { config: { http: { auth_token: string }; mqtt: { password: string } }; radios: Array<{ id: string; state: string }> };
    assert.equal(doc.config.http.auth_token, '[redacted]');
    assert.equal(doc.config.mqtt.password, '[redacted]');
    assert.deepEqual(doc.radios.map((r) => [r.id, r.state]), [['sim0', 'ready']]);
  });

  it('keeps actions off on a gateway without a token, with a message that says how to turn them on', async () => {
    const offDir = tempDir('ui-actions-off-');
    const off = await startGateway(offDir, {});
    try {
      const peer = (off.radios[0] as SimulatedRadio).virtualPeer('alice')!;
      const said = await peer.say('t=1');
      await peer.waitFor((r) => r.message !== undefined && isAck(r.message) && ackTarget(r.message) === said.id.toString());
      const base = `${off.statusUrl}/api/nodes/${peer.address}`;
      const send = await request(`${base}/send`, 'POST', { ...json, authorization: 'Bearer anything-at-all-000000' }, body('x'));
      assert.equal(send.status, 403);
      assert.equal(codeOf(send), 'UI_ACTIONS_OFF');
      assert.match(send.body, /set http\.auth_token/);
      const detail = JSON.parse((await request(base, 'GET', {})).body) as { send_enabled: boolean; node: { recent: Array<{ id: string; has_text: boolean }> } };
      assert.equal(detail.send_enabled, false);
      assert.equal(detail.node.recent[0]!.has_text, true);
      const text = await request(`${base}/messages/${detail.node.recent[0]!.id}/text`, 'GET', {});
      assert.equal(codeOf(text), 'UI_ACTIONS_OFF');
      assert.ok(!text.body.includes('t=1'));
    } finally {
      await off.stop('test');
      fs.rmSync(offDir, { recursive: true, force: true });
    }
  });
});
