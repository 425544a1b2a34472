/**
 * The demo's Node-RED keeps its credentials encrypted and private: `flows_cred.json` in its userDir is `{"$":…}`
 * (no token in plain text) and mode 0600, in a userDir of mode 0700, both as the demo starts and after a deploy
 * through Node-RED's admin API rewrote it; and Node-RED itself reads it (its hub-config connects with the token).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDemo, type RunningDemo } from '../../demo/run-demo';
import { DEMO } from '../../demo/settings';

type FlowNode = { id: string; type: string; [key: string]: unknown };

const SPARE_TOKEN = 'spare-account-token-never-in-plain-text';
const mode = (file: string): number => fs.statSync(file).mode & 0o777;

describe('demo credentials', function () {
  this.timeout(120_000);
  let dir: string;
  let demo: RunningDemo | undefined;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-credentials-'));
    demo = await startDemo({ ports: { nodeRed: 0, hub: 0, mqtt: 0, status: 0 }, dir, print: () => undefined });
  });
  after(async () => {
    await demo?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const userDir = (): string => path.join(dir, 'node-red');
  const credFile = (): string => path.join(userDir(), 'flows_cred.json');

  /** True once the demo's Node-RED account has a connection at the dev hub. */
  async function nodeRedConnected(): Promise<boolean> {
    const res = await fetch(`${demo!.urls.hubAdmin}/devices`, { headers: { authorization: `Bearer ${demo!.hubAdminToken}` } });
    const { result: devices } = (await res.json()) as { result: Array<{ user_id: string }> };
    return devices.some((d) => d.user_id === DEMO.nodeRedUser);
  }

  async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
    for (let i = 0; i < 600; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  function assertPrivateAndEncrypted(): string {
    const text = fs.readFileSync(credFile(), 'utf8');
    assert.ok(!text.includes(DEMO.nodeRedToken) && !text.includes(SPARE_TOKEN), 'no token in plain text');
    const parsed = JSON.parse(text) as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed), ['$'], 'the encrypted form');
    assert.match(String(parsed.$), /^[0-9a-f]{32}[A-Za-z0-9+/]+=*$/, 'hex IV, base64 ciphertext');
    assert.equal(mode(credFile()).toString(8), '600');
    for (const name of fs.readdirSync(userDir()).filter((n) => n.includes('cred'))) {
      assert.equal(mode(path.join(userDir(), name)).toString(8), '600', name);
    }
    assert.equal(mode(userDir()).toString(8), '700');
    assert.equal(mode(path.join(userDir(), 'settings.js')).toString(8), '600', 'the settings hold the secret');
    return text;
  }

  it('starts with flows_cred.json encrypted and 0600, which Node-RED reads: its hub-config connects', async () => {
    assertPrivateAndEncrypted();
    await eventually(nodeRedConnected, "the Node-RED account's connection at the dev hub");
  });

  it('keeps flows_cred.json encrypted and 0600 after a deploy that rewrites it', async () => {
    const before = fs.readFileSync(credFile(), 'utf8');
    const base = demo!.urls.nodeRed!;
    const flows = (await (await fetch(`${base}/flows`)).json()) as FlowNode[];
    // A second hub account (no node uses it, so it never connects): new credentials make Node-RED write the file.
    const config = flows.find((n) => n.id === DEMO.hubConfigNode)!;
    const withToken = [...flows, { ...config, id: 'de30ba7e000000ff', name: 'spare', credentials: { token: SPARE_TOKEN } }];
    const res = await fetch(`${base}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
      body: JSON.stringify(withToken),
    });
    assert.equal(res.status, 204, await res.text());
    await eventually(() => fs.readFileSync(credFile(), 'utf8') !== before, 'Node-RED to rewrite flows_cred.json');
    const after = assertPrivateAndEncrypted();
    assert.notEqual(after, before, 'written anew by Node-RED (a fresh IV)');
    await eventually(nodeRedConnected, 'the redeployed hub-config to connect');
  });
});
