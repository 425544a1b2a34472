/**
 * The web UI in Debian's Chromium against a real gateway with a simulated radio: the live log page loads under its
 * strict CSP without a console error, shows a message a simulated node sends, renders markup in an app id as text,
 * and filters and pauses as a user expects.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { Gateway } from '../../gateway/gateway';
import type { SimulatedRadio } from '../../gateway/radios/simulated/simulated-radio';
import { launchChromium } from '../editor/support/chromium';
import { testConfig } from '../gateway/support/config';
import { tempDir } from '../gateway/support/gateway';

const SCREENSHOTS = path.join(__dirname, '..', '..', '..', 'docs', 'screenshots');

describe('web UI: live log in Chromium', function () {
  this.timeout(120000);
  let dir: string;
  let gateway: Gateway;
  let radio: SimulatedRadio;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    dir = tempDir('webui-log-');
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    const config = testConfig(path.join(dir, 'state'), {
      http: { enabled: true, port: 0 },
      radios: [{ id: 'sim0', kind: 'simulated', peers: [{ id: 'alice' }, { id: 'bob' }] }],
    });
    gateway = new Gateway(config);
    await gateway.start();
    radio = gateway.radios[0] as SimulatedRadio;
    context = await launchChromium(path.join(dir, 'chromium-profile'));
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    await page.goto(`${gateway.statusUrl}/ui`);
    await page.locator('#state').filter({ hasText: 'live' }).waitFor();
  });

  after(async () => {
    await context?.close();
    await gateway?.stop('test');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('loads under its CSP with no console error and no CSP violation', async () => {
    const csp = await page.evaluate(async () => (await fetch('ui')).headers.get('content-security-policy'));
    assert.match(String(csp), /script-src 'self'/);
    assert.doesNotMatch(String(csp), /unsafe-inline|unsafe-eval/);
    assert.deepEqual(problems, []);
  });

  it('shows a message from a simulated node, with markup in its app id as text', async () => {
    const alice = radio.virtualPeer('alice')!;
    // app ids may not hold '/', so the markup is an <img> whose onerror would run if it were parsed as HTML.
    const sent = await alice.say('hello', { appId: '<img src=x onerror=window.pwned=1>' });
    const row = page.locator(`#log-rows tr[data-id="${sent.id.toString()}"][data-direction="in"]`);
    await row.waitFor();
    assert.match(await row.innerText(), /<img src=x onerror=window\.pwned=1>/);
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    assert.equal(await page.locator('#log-rows img').count(), 0);
    assert.deepEqual(problems, []);
    // The README shows this page as the suite sees it.
    await page.screenshot({ path: path.join(SCREENSHOTS, 'webui-live-log.png') });
  });

  it('filters by node and holds still while paused', async () => {
    const alice = radio.virtualPeer('alice')!;
    const bob = radio.virtualPeer('bob')!;
    await page.fill('#filter-node', bob.address);
    const fromBob = await bob.say('from bob');
    await page.locator(`#log-rows tr[data-id="${fromBob.id.toString()}"]`).first().waitFor();
    const fromAlice = await alice.say('from alice');
    // Bob's next message proves the page has drawn what came after Alice's.
    const later = await bob.say('later');
    await page.locator(`#log-rows tr[data-id="${later.id.toString()}"]`).first().waitFor();
    assert.equal(await page.locator(`#log-rows tr[data-id="${fromAlice.id.toString()}"]`).count(), 0);

    await page.click('#pause');
    const whilePaused = await bob.say('while paused');
    await radio.virtualPeer('bob')!.waitFor(() => true);
    await page.waitForTimeout(300);
    assert.equal(await page.locator(`#log-rows tr[data-id="${whilePaused.id.toString()}"]`).count(), 0);
    await page.click('#pause');
    await page.locator(`#log-rows tr[data-id="${whilePaused.id.toString()}"]`).first().waitFor();
    assert.deepEqual(problems, []);
  });
});
