/**
 * The demo console (what `npm start` prints) with hostile text from the hub: a chat message carrying a newline, an
 * ESC sequence and a bidi override is printed by the hub line and by the mesh peer that receives it, each as one
 * line with the characters escaped. `startDemo` runs in this process without its Node-RED child.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDemo, type RunningDemo } from '../../demo/run-demo';
import { DEMO } from '../../demo/settings';
import { HubClient } from '../../lib/hub';
import { openStore } from '../../lib/store';
import { unsafeCharacters } from '../support/unsafe-text';

describe('demo console', function () {
  this.timeout(60_000);
  let dir: string;
  let demo: RunningDemo | undefined;
  const printed: string[] = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-console-'));
    demo = await startDemo({ ports: { nodeRed: 0, hub: 0, mqtt: 0, status: 0 }, dir, withoutNodeRed: true, print: (line) => printed.push(line) });
  });
  after(async () => {
    await demo?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prints hub and mesh content with its control characters escaped, one line per event', async () => {
    const text = 'hi\n[mesh]   garden → gateway: forged\x1b[2J\u202eevil\u2028\u0085';
    const shown = 'hi\\n[mesh]   garden → gateway: forged\\x1b[2J\\u202eevil\\u2028\\x85';
    const store = openStore(':memory:');
    const you = new HubClient({ url: demo!.urls.hub, token: DEMO.youToken, userId: DEMO.youUser, deviceId: 'console-test', store });
    try {
      you.start();
      await you.send({ chatId: DEMO.chat, text });
    } finally {
      await you.stop();
      store.close();
    }
    const wanted = [`[hub]    You → chat: ${shown}`, `[mesh]   garden received “${shown}” (from You on the hub)`];
    for (let i = 0; i < 500 && !wanted.every((w) => printed.includes(w)); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    for (const w of wanted) assert.ok(printed.includes(w), `printed ${JSON.stringify(w)}; got:\n${printed.map((l) => JSON.stringify(l)).join('\n')}`);
    const raw = printed.filter((line) => unsafeCharacters(line).length > 0);
    assert.deepEqual(raw, [], 'no printed line holds a raw control character');
  });
});
