/**
 * The nodes table in Chromium against a real gateway with a simulated radio: a direct neighbour with a friendly name
 * and a typed reading, a second neighbour, and a node heard only through that neighbour's relay. The table shows
 * each with how it is heard, its RSSI, rate and readings, sorts by a column when its header is clicked, and links
 * to the node's page.
 */
import assert from 'node:assert/strict';
import { MessageId } from '../../lib/mesh/message-id';
import { createMessage, DEFAULT_TTL } from '../../lib/mesh/message';
import { identityFromSeed } from '../../gateway/radios/mesh-identity';
import { openUiSession, RADIO, simAddress, type UiSession } from './support/ui-session';

const ALICE = simAddress('alice');
const BOB = simAddress('bob');
const CAROL = identityFromSeed('webui-test:carol').address;
const DAVE = simAddress('dave');
// A name is configuration, but it is shown beside what the mesh supplies and must be as inert: text, never markup.
const HOSTILE_NAME = '<script>window.pwned=1</script><b>Dave</b>';

describe('web UI: nodes table in Chromium', function () {
  this.timeout(120000);
  let s: UiSession;

  before(async () => {
    s = await openUiSession('webui-nodes-', {
      radios: [{ id: RADIO, kind: 'simulated', peers: [{ id: 'alice', rssi: -40 }, { id: 'bob', rssi: -70 }, { id: 'dave', rssi: -90 }] }],
      nodes: { names: { [ALICE]: 'Kitchen', [BOB]: 'Hallway', [DAVE]: HOSTILE_NAME } },
      devices: [{ match: { sender: ALICE }, entities: [{ key: 'temperature', from: { regex: 't=([0-9.]+)' }, unit: '°C' }] }],
    });
    await s.radio.virtualPeer('alice')!.say('t=21.5');
    // Bob relays a message of Carol's: she is heard only through him, one hop away.
    const bob = s.radio.virtualPeer('bob')!;
    const relayed = createMessage({
      id: MessageId.random(),
      sender: CAROL,
      recipient: s.gateway.info.address,
      app_id: 'webui-test',
      priority: 'medium',
      ttl: DEFAULT_TTL - 1,
      hop_count: 1,
      timestamp: BigInt(Date.now()),
      content: 'hello from carol',
      requires_ack: false,
    });
    await bob.send(relayed);
    await s.page.goto(s.url('ui/nodes'));
    await s.page.locator(`#node-rows tr[data-address="${CAROL}"]`).waitFor();
  });

  it('shows a name holding <script> as text, in the table and on its page', async () => {
    assert.equal((await cells(DAVE))[0], HOSTILE_NAME);
    assert.equal(await s.page.locator('#node-rows script, #node-rows b').count(), 0);
    await s.page.goto(s.url(`ui/node?address=${encodeURIComponent(DAVE)}`));
    await s.page.locator('#node-name', { hasText: HOSTILE_NAME }).waitFor();
    assert.equal(await s.page.locator('h1 script, h1 b').count(), 0);
    assert.equal(await s.page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    assert.deepEqual(s.problems, []);
    await s.page.goto(s.url('ui/nodes'));
    await s.page.locator(`#node-rows tr[data-address="${CAROL}"]`).waitFor();
  });

  after(async () => {
    await s?.close();
  });

  function cells(address: string): Promise<string[]> {
    return s.page.locator(`#node-rows tr[data-address="${address}"] td`).allInnerTexts();
  }

  it('shows name, address, how each node is heard, RSSI, rate and readings', async () => {
    await s.page.locator(`#node-rows tr[data-address="${ALICE}"] td`, { hasText: 'temperature=21.5' }).waitFor();
    const alice = await cells(ALICE);
    assert.equal(alice[0], 'Kitchen');
    assert.equal(alice[1], ALICE);
    assert.equal(alice[2], RADIO);
    assert.equal(alice[3], '-40');
    assert.match(alice[4]!, /s ago$/);
    assert.equal(alice[5], '1');
    assert.equal(alice[6], 'temperature=21.5');
    const carol = await cells(CAROL);
    assert.equal(carol[0], '');
    assert.equal(carol[2], `${RADIO} via bob (1 hops)`);
    assert.equal(carol[3], '', 'a relayed node has no RSSI of its own');
    assert.equal(carol[5], '1');
    const bob = await cells(BOB);
    assert.equal(bob[0], 'Hallway');
    assert.equal(bob[3], '-70');
    assert.equal(bob[5], '0');
    assert.deepEqual(s.problems, []);
  });

  it('sorts by the clicked column, and reverses on a second click', async () => {
    const order = (): Promise<Array<string | null>> => s.page.locator('#node-rows tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.address ?? null));
    await s.page.click('button[data-sort="rssi"]');
    assert.deepEqual(await order(), [ALICE, BOB, DAVE, CAROL]);
    await s.page.click('button[data-sort="rssi"]');
    assert.deepEqual(await order(), [CAROL, DAVE, BOB, ALICE]);
    await s.page.click('button[data-sort="name"]');
    // Ascending by name: the unnamed node first, then '<script>…', Hallway, Kitchen.
    assert.deepEqual(await order(), [CAROL, DAVE, BOB, ALICE]);
    await s.page.click('button[data-sort="name"]');
    assert.deepEqual(await order(), [ALICE, BOB, DAVE, CAROL]);
    assert.equal(await s.page.getAttribute('button[data-sort="name"]', 'data-dir'), 'desc');
  });

  it('filters by search and links each address to its node page', async () => {
    await s.page.fill('#search', 'kitch');
    assert.equal(await s.page.locator('#node-rows tr').count(), 1);
    await s.page.fill('#search', '');
    await s.page.click(`#node-rows tr[data-address="${ALICE}"] a`);
    await s.page.waitForURL(/\/ui\/node\?address=/);
    await s.page.locator('#node-name', { hasText: 'Kitchen' }).waitFor();
    assert.deepEqual(s.problems, []);
  });

  it('is reached from the script-free status page by a relative link', async () => {
    await s.page.goto(s.url(''));
    await s.page.click('a[href="ui/nodes"]');
    await s.page.locator(`#node-rows tr[data-address="${ALICE}"]`).waitFor();
    assert.equal(new URL(s.page.url()).pathname, '/ui/nodes');
  });
});
