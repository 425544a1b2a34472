/**
 * A node's page in Chromium against a real gateway with a simulated radio and `http.auth_token` set: the node's link
 * figures (RSSI, and battery and load from its advertisement), the readings chart, the recent messages with their
 * text shown only with the token, and the send form, refused without the token (nothing reaches the node) and, with
 * it, reaching the simulated node and showing `sent` then `acked` as the gateway reports them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openUiSession, RADIO, simAddress, type UiSession } from './support/ui-session';

const SCREENSHOTS = path.join(__dirname, '..', '..', '..', 'docs', 'screenshots');
const ALICE = simAddress('alice');
const TOKEN = 'webui-test-token-0123456789';

/** What Chromium logs for each refused request the test makes on purpose; anything else is a problem. */
const EXPECTED_REFUSAL = /Failed to load resource: the server responded with a status of 401/;

describe('web UI: node page in Chromium', function () {
  this.timeout(120000);
  let s: UiSession;

  before(async () => {
    s = await openUiSession('webui-node-', {
      radios: [{ id: RADIO, kind: 'simulated', peers: [{ id: 'alice', rssi: -42, battery: 87, load: 12 }] }],
      nodes: { names: { [ALICE]: 'Greenhouse' } },
      devices: [{ match: { sender: ALICE }, entities: [{ key: 'temperature', from: { regex: 't=(-?[0-9.]+)' } }] }],
      http: { enabled: true, port: 0, auth_token: TOKEN },
    });
    const alice = s.radio.virtualPeer('alice')!;
    await alice.say('t=21.5');
    await alice.say('t=22.25');
    await s.page.goto(s.url(`ui/node?address=${encodeURIComponent(ALICE)}`));
    await s.page.locator('#messages tr').nth(1).waitFor();
  });

  after(async () => {
    await s?.close();
  });

  function problems(): string[] {
    return s.problems.filter((p) => !EXPECTED_REFUSAL.test(p));
  }

  it('names the node and charts its readings', async () => {
    assert.equal(await s.page.locator('#node-name').innerText(), 'Greenhouse');
    assert.match(await s.page.locator('#node-meta').innerText(), new RegExp(`^${ALICE} · connected · heard by ${RADIO} directly · RSSI -42 · battery 87 % · load 12 · last seen`));
    const chart = s.page.locator('#readings svg[data-key="temperature"]');
    await chart.waitFor();
    assert.match(String(await chart.locator('polyline').getAttribute('points')), /^[0-9.]+,[0-9.]+( [0-9.]+,[0-9.]+)?$/);
    assert.equal(await chart.locator('text.latest').textContent(), 'temperature 22.25');
    assert.deepEqual(problems(), []);
  });

  it('shows recent envelopes, and a text only with the token', async () => {
    const rows = s.page.locator('#messages tr');
    assert.equal(await rows.count(), 2);
    const newest = rows.first();
    const cells = await newest.locator('td').allInnerTexts();
    assert.equal(cells[1], s.gateway.info.address);
    assert.equal(cells[5], '-42');
    assert.equal(cells[7], 'yes');
    await newest.locator('button', { hasText: 'Show text' }).click();
    await newest.locator('td.text', { hasText: 'UI_AUTH_REQUIRED' }).waitFor();
    await s.page.fill('#token', TOKEN);
    await s.page.dispatchEvent('#token', 'change');
    // The refusal stays beside the button, so the retry is one click.
    await newest.locator('button', { hasText: 'Show text' }).click();
    await newest.locator('td.text', { hasText: 't=22.25' }).waitFor();
    assert.deepEqual(problems(), []);
  });

  it('refuses a send without the token, and nothing reaches the node', async () => {
    const alice = s.radio.virtualPeer('alice')!;
    await s.page.fill('#token', '');
    await s.page.dispatchEvent('#token', 'change');
    await s.page.fill('#send-text', 'not without the token');
    await s.page.click('#send');
    const refused = s.page.locator('#send-results li[data-status="refused"]');
    await refused.waitFor();
    assert.match(await refused.innerText(), /^refused: UI_AUTH_REQUIRED — this action needs the gateway auth token/);
    assert.equal(alice.received().filter((m) => m.content === 'not without the token').length, 0);
    assert.deepEqual(problems(), []);
  });

  it('sends with the token: the text reaches the simulated node and sent, then acked, appear', async () => {
    const alice = s.radio.virtualPeer('alice')!;
    const arrived = alice.waitFor((r) => r.message?.content === 'hello greenhouse');
    await s.page.fill('#token', TOKEN);
    await s.page.dispatchEvent('#token', 'change');
    await s.page.fill('#send-text', 'hello greenhouse');
    await s.page.click('#send');
    const receipt = await arrived;
    assert.equal(receipt.message!.sender, s.gateway.info.address);
    assert.equal(receipt.message!.recipient, ALICE);
    const acked = s.page.locator('#send-results li[data-status="acked"]');
    await acked.waitFor();
    const statuses = await s.page.locator('#send-results li').evaluateAll((items) => items.map((i) => (i as HTMLElement).dataset.status));
    assert.deepEqual(statuses, ['refused', 'sent', 'acked']);
    assert.match(await s.page.locator('#send-results li[data-status="sent"]').innerText(), new RegExp(`^sent ${receipt.message!.id.toString()} via ${RADIO}/alice$`));
    assert.equal(await acked.innerText(), `acked by ${ALICE} after 0 hop(s)`);
    assert.deepEqual(problems(), []);
    // The README and docs/gateway.md show this page as the suite sees it.
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await s.page.screenshot({ path: path.join(SCREENSHOTS, 'webui-node.png'), fullPage: true });
  });

  it('forgets the node after a confirmation, with the token, and returns to the table', async () => {
    s.page.once('dialog', (d) => void d.accept());
    await s.page.click('#forget');
    await s.page.waitForURL(/\/ui\/nodes$/);
    await s.page.locator('#state', { hasText: 'node(s)' }).waitFor();
    assert.deepEqual(problems(), []);
  });
});
