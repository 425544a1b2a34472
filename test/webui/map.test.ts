/**
 * The map in Chromium against a real gateway with two simulated radios: the gateway, its neighbours on each radio
 * and a node heard only through a relay, with links labelled by RSSI or hop count; the relayed node placed beyond
 * its relay; a radio filter, search and zoom; a click through to the node's page. The suite saves the map's
 * screenshot for the README and docs/gateway.md.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import mqtt from 'mqtt';
import { MessageId } from '../../lib/mesh/message-id';
import { createMessage, DEFAULT_TTL } from '../../lib/mesh/message';
import { identityFromSeed } from '../../gateway/radios/mesh-identity';
import { startBroker, type TestBroker } from '../gateway/support/broker';
import { openUiSession, RADIO, simAddress, type UiSession } from './support/ui-session';

const SCREENSHOTS = path.join(__dirname, '..', '..', '..', 'docs', 'screenshots');
const ALICE = simAddress('alice');
const BOB = simAddress('bob');
const CAROL = identityFromSeed('webui-map:carol').address;
const ERIN = identityFromSeed('clawling-sim:sim1:erin').address;

describe('web UI: map in Chromium', function () {
  this.timeout(120000);
  let s: UiSession;

  before(async () => {
    s = await openUiSession('webui-map-', {
      radios: [
        { id: RADIO, kind: 'simulated', peers: [{ id: 'alice', rssi: -40 }, { id: 'bob', rssi: -70 }] },
        { id: 'sim1', kind: 'simulated', peers: [{ id: 'erin', rssi: -55 }] },
      ],
      nodes: { names: { [ALICE]: 'Kitchen', [BOB]: 'Hallway', [CAROL]: 'Garden shed' } },
    });
    await s.radio.virtualPeer('alice')!.say('hello');
    const relayed = createMessage({
      id: MessageId.random(),
      sender: CAROL,
      recipient: s.gateway.info.address,
      app_id: 'webui-test',
      priority: 'medium',
      ttl: DEFAULT_TTL - 1,
      hop_count: 1,
      timestamp: BigInt(Date.now()),
      content: 'from the shed',
      requires_ack: false,
    });
    await s.radio.virtualPeer('bob')!.send(relayed);
    await s.page.goto(s.url('ui/map'));
    await s.page.locator(`#map [data-from="${BOB}"][data-to="${CAROL}"]`).waitFor();
  });

  after(async () => {
    await s?.close();
  });

  function centre(id: string): Promise<{ x: number; y: number }> {
    return s.page.locator(`#map .map-node[data-id="${id}"] circle, #map .map-node[data-id="${id}"] rect`).evaluate((e) => {
      const c = e as SVGGraphicsElement;
      if (c.tagName === 'rect') return { x: Number(c.getAttribute('x')) + 12, y: Number(c.getAttribute('y')) + 12 };
      return { x: Number(c.getAttribute('cx')), y: Number(c.getAttribute('cy')) };
    });
  }

  it("shows the gateway, each radio's neighbours and the relayed node, with labelled links", async () => {
    const ids = await s.page.locator('#map .map-node').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')).sort());
    assert.deepEqual(ids, ['gateway', ALICE, BOB, CAROL, ERIN].sort());
    assert.match(await s.page.locator(`#map .link[data-from="gateway"][data-to="${ALICE}"] .link-label`).textContent() ?? '', /^RSSI -40 · \d+ s ago$/);
    assert.match(await s.page.locator(`#map .link[data-from="gateway"][data-to="${ERIN}"] .link-label`).textContent() ?? '', /^RSSI -55 · /);
    const relay = s.page.locator(`#map .link[data-from="${BOB}"][data-to="${CAROL}"]`);
    assert.match(await relay.locator('.link-label').textContent() ?? '', /^1 hop · /);
    assert.equal(await relay.getAttribute('class'), 'link relayed');
    assert.equal(await s.page.locator(`#map .map-node[data-id="${CAROL}"] text`).textContent(), 'Garden shed');
    const carolTitle = (await s.page.locator(`#map .map-node[data-id="${CAROL}"] title`).textContent()) ?? '';
    assert.match(carolTitle, /sender verified 0 %/);
    assert.match(carolTitle, /hops seen 1$/);
    assert.match((await s.page.locator(`#map .map-node[data-id="${ALICE}"] title`).textContent()) ?? '', /radios sim0\nsender verified 100 %\nhops seen 0$/);
    assert.deepEqual(s.problems, []);
  });

  it('places the relayed node beyond its relay', async () => {
    const g = await centre('gateway');
    const dist = async (id: string): Promise<number> => {
      const p = await centre(id);
      // Rounded: the coordinates were written with their floating-point tails.
      return Math.round(Math.hypot(p.x - g.x, p.y - g.y) * 10) / 10;
    };
    assert.ok((await dist(CAROL)) > (await dist(BOB)), 'carol is no further out than bob');
    assert.equal(await dist(ALICE), await dist(BOB), 'the direct neighbours share a ring');
  });

  it('filters by radio, highlights a search, zooms and pans', async () => {
    await s.page.selectOption('#radio-filter', 'sim1');
    assert.deepEqual(await s.page.locator('#map .map-node').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')).sort()), ['gateway', ERIN].sort());
    await s.page.selectOption('#radio-filter', '');
    await s.page.fill('#search', 'kitch');
    assert.match((await s.page.locator(`#map .map-node[data-id="${ALICE}"]`).getAttribute('class')) ?? '', /\bmatch\b/);
    assert.match((await s.page.locator(`#map .map-node[data-id="${BOB}"]`).getAttribute('class')) ?? '', /\bdim\b/);
    await s.page.fill('#search', '');
    const width = async (): Promise<number> => Number(((await s.page.getAttribute('#map', 'viewBox')) ?? '').split(' ')[2]);
    const before = await width();
    await s.page.click('#zoom-in');
    assert.equal(Math.round((before / (await width())) * 100) / 100, 1.5);
    await s.page.click('#zoom-reset');
    assert.equal(await width(), before);
    // Dragging right moves the picture right: the view's left edge goes left.
    const left = async (): Promise<number> => Number(((await s.page.getAttribute('#map', 'viewBox')) ?? '').split(' ')[0]);
    const box = (await s.page.locator('#map').boundingBox())!;
    const startLeft = await left();
    await s.page.mouse.move(box.x + 20, box.y + 20);
    await s.page.mouse.down();
    await s.page.mouse.move(box.x + 120, box.y + 20, { steps: 5 });
    await s.page.mouse.up();
    assert.ok((await left()) < startLeft, 'the drag did not pan');
    await s.page.click('#zoom-reset');
    assert.equal(await left(), startLeft);
    assert.deepEqual(s.problems, []);
    // The README and docs/gateway.md show the map as the suite sees it.
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await s.page.screenshot({ path: path.join(SCREENSHOTS, 'webui-map.png') });
  });

  it("opens a node's page when the node is clicked", async () => {
    await s.page.click(`#map .map-node[data-id="${CAROL}"] circle`);
    await s.page.waitForURL(/\/ui\/node\?address=/);
    await s.page.locator('#node-name', { hasText: 'Garden shed' }).waitFor();
    assert.deepEqual(s.problems, []);
  });
});

describe('web UI: map with 300 nodes in Chromium', function () {
  this.timeout(120000);
  const COUNT = 300;
  let s: UiSession;
  const far = Array.from({ length: COUNT }, (_, i) => identityFromSeed(`webui-map:far-${i}`).address);

  before(async () => {
    s = await openUiSession('webui-map300-', { radios: [{ id: RADIO, kind: 'simulated', peers: [{ id: 'bob', rssi: -60 }] }] });
    const bob = s.radio.virtualPeer('bob')!;
    for (const [i, sender] of far.entries()) {
      await bob.send(
        createMessage({
          id: MessageId.random(),
          sender,
          recipient: s.gateway.info.address,
          app_id: 'webui-test',
          priority: 'medium',
          ttl: DEFAULT_TTL - 1,
          hop_count: 1 + (i % 3),
          timestamp: BigInt(Date.now()),
          content: `node ${i}`,
          requires_ack: false,
        }),
      );
    }
    await s.page.goto(s.url('ui/map'));
    await s.page.locator('#state', { hasText: `${COUNT + 1} node(s) shown of ${COUNT + 1}` }).waitFor();
  });

  after(async () => {
    await s?.close();
  });

  it('draws every node with link labels moved into tooltips, and search finds one among them', async () => {
    assert.equal(await s.page.locator('#map .map-node').count(), COUNT + 2);
    assert.equal(await s.page.locator('#map .link-label').count(), 0);
    assert.equal(await s.page.locator(`#map .link[data-from="${BOB}"]`).count(), COUNT);
    assert.match((await s.page.locator(`#map .link[data-to="${far[7]}"] title`).textContent()) ?? '', /^sim0: 2 hops · \d+ s ago$/);
    await s.page.fill('#search', far[123]!);
    assert.deepEqual(await s.page.locator('#map .map-node.match').evaluateAll((els) => els.map((e) => e.getAttribute('data-id'))), [far[123]]);
    assert.equal(await s.page.locator('#map .map-node.dim').count(), COUNT + 1);
    assert.deepEqual(s.problems, []);
  });
});

describe("web UI: the site's other gateways in Chromium", function () {
  this.timeout(120000);
  const BARN_NAME = '<b>Barn</b> gateway';
  let broker: TestBroker;
  let s: UiSession;

  before(async () => {
    broker = await startBroker();
    // Another gateway of the site, as it leaves itself on the broker: its retained announcement and bridge state.
    const barn = await mqtt.connectAsync(broker.url, { clientId: 'barn-gateway' });
    const announcement = { gateway_id: 'barn', name: BARN_NAME, address: identityFromSeed('webui-map:barn').address, bridge_state_topic: 'clawling/barn/bridge/state' };
    await barn.publishAsync('clawling/site/farm/gateways/barn', JSON.stringify(announcement), { qos: 1, retain: true });
    await barn.publishAsync('clawling/barn/bridge/state', 'online', { qos: 1, retain: true });
    // The barn gateway hears Alice too, and says so on its retained view of her.
    const view = { gateway: 'barn', bridge_state_topic: 'clawling/barn/bridge/state', connected: true, neighbour: true, rssi: -61, last_seen: new Date().toISOString() };
    await barn.publishAsync(`clawling/nodes/${ALICE}/via/barn`, JSON.stringify(view), { qos: 1, retain: true });
    await barn.endAsync();
    s = await openUiSession('webui-map-site-', {
      radios: [{ id: RADIO, kind: 'simulated', peers: [{ id: 'alice' }] }],
      mqtt: { enabled: true, url: broker.url, site: { id: 'farm' } },
    });
    await s.page.goto(s.url('ui/map'));
  });

  after(async () => {
    await s?.close();
    await broker?.stop();
  });

  it('shows the other gateway from its announcement, online, with its name as text', async () => {
    const barn = s.page.locator('#map .map-node[data-id="site:barn"]');
    await s.page.locator('#map .map-node.site-gateway.connected[data-id="site:barn"]').waitFor();
    assert.equal(await barn.locator('text').textContent(), BARN_NAME);
    assert.equal(await s.page.locator('#map b').count(), 0);
    assert.match((await barn.locator('title').textContent()) ?? '', /^<b>Barn<\/b> gateway\noff1\S+\nconnected$/);
    assert.equal(await s.page.locator('#map .map-node.gateway').count(), 1, 'this gateway appears once, not again from its own announcement');
    assert.deepEqual(s.problems, []);
  });

  it('links the other gateway to the node it says it hears, and the nodes table names it', async () => {
    const link = s.page.locator(`#map .link[data-from="site:barn"][data-to="${ALICE}"]`);
    await link.waitFor();
    assert.match((await link.locator('.link-label').textContent()) ?? '', /^RSSI -61 · \d+ s ago$/);
    assert.match((await link.locator('title').textContent()) ?? '', /^gateway barn: RSSI -61/);
    await s.page.goto(s.url('ui/nodes'));
    await s.page.locator(`#node-rows tr[data-address="${ALICE}"] td`, { hasText: 'gateway barn (-61)' }).waitFor();
    assert.equal((await s.page.locator(`#node-rows tr[data-address="${ALICE}"] td`).allInnerTexts())[2], `${RADIO}, gateway barn (-61)`);
    assert.deepEqual(s.problems, []);
  });
});
