/**
 * hub-config in Node-RED 4.1 (test helper) against the dev hub over real sockets: one session shared by every
 * user node, status fan-out, auth failure, backoff with the time left, credentials kept out of everything,
 * close and redeploy, the state folder, and the media endpoint media-upload relies on.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { DevHub } from '../../devhub';
import { useNodeRed } from '../support/node-red';
import {
  ALICE,
  aliceCredentials,
  aliceSessions,
  CHAT_AB,
  configNode,
  getNode,
  placed,
  isText,
  lastStatus,
  next,
  startHub,
  startsWith,
  statuses,
  tempDir,
  waitStatus,
  type Flow,
  type FlowNode,
} from './hub-harness';
import { withCatalog } from './hub-i18n';

/* eslint-disable @typescript-eslint/no-require-imports */
const hubConfigNode = require('../../nodes/hub-config');
const hubInNode = require('../../nodes/hub-in');
const hubOutNode = require('../../nodes/hub-out');
const mediaUploadNode = require('../../nodes/media-upload');
/* eslint-enable @typescript-eslint/no-require-imports */

const CONNECTED = 'node-red:common.status.connected';
const NODES = [hubConfigNode, hubInNode, hubOutNode];

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('hub-config node', function () {
  this.timeout(30_000);
  const helper = useNodeRed();
  let hub: DevHub;

  beforeEach(async () => {
    hub = await startHub();
  });
  afterEach(async () => {
    await helper.unload();
    await hub.stop();
  });

  /** A tab with the config node and the given user nodes, a Catch for all of them feeding `caught`. */
  function flow(cfg: FlowNode, users: FlowNode[]): Flow {
    return [
      { id: 'tab', type: 'tab' },
      { ...cfg, z: 'tab' },
      ...users.map((u) => placed({ z: 'tab', ...u })),
      placed({ id: 'catcher', type: 'catch', z: 'tab', wires: [['caught']] }),
      placed({ id: 'caught', type: 'helper', z: 'tab' }),
    ] as Flow;
  }

  const fourUsers: FlowNode[] = [
    { id: 'in1', type: 'hub-in', hub: 'cfg', wires: [[]] },
    { id: 'in2', type: 'hub-in', hub: 'cfg', events: ['reaction'], wires: [[]] },
    { id: 'out1', type: 'hub-out', hub: 'cfg', wires: [[], []] },
    { id: 'out2', type: 'hub-out', hub: 'cfg', action: 'typing', wires: [[], []] },
  ];

  it('opens one session for all its user nodes and shows connecting, replaying, connected on each', async () => {
    const hello = hub.admin.waitFor('hello', (d) => d.user_id === ALICE.id);
    await helper.load(NODES, flow(configNode(hub), fourUsers), aliceCredentials);
    const device = await hello;
    for (const id of ['in1', 'in2', 'out1', 'out2']) await waitStatus(helper, getNode(helper, id), isText(CONNECTED));
    assert.equal(aliceSessions(hub), 1, 'exactly one session for four user nodes');
    assert.equal(device.device_id, 'alice-nodered');
    assert.equal(device.ack_mode, 'dseq');
    for (const id of ['in1', 'in2', 'out1', 'out2']) {
      const texts = statuses(helper, getNode(helper, id)).map((s) => s.text);
      const order = ['node-red:common.status.connecting', 'hub-config.status.replaying', CONNECTED].map((t) => texts.indexOf(t));
      assert.ok(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])), `${id} showed ${texts.join(' → ')}`);
    }
  });

  it('does not connect while no node uses it', async () => {
    await helper.load(NODES, flow(configNode(hub), []), aliceCredentials);
    const cfg = helper.getNode('cfg') as unknown as { hubClient(): unknown };
    assert.equal(cfg.hubClient(), undefined);
    assert.equal(aliceSessions(hub), 0);
  });

  it('asks for the delivery mode configured: v1 gets seq acks, legacy none', async () => {
    for (const [reliability, mode] of [
      ['v1', 'seq'],
      ['legacy', 'legacy'],
    ]) {
      const hello = hub.admin.waitFor('hello', (d) => d.user_id === ALICE.id);
      await helper.load(NODES, flow(configNode(hub, { reliability }), [fourUsers[0]]), aliceCredentials);
      assert.equal((await hello).ack_mode, mode, reliability);
      await helper.unload();
    }
  });

  it('shows "auth failed" in red on every user node when the hub refuses the token, and stops trying', async () => {
    hub.admin.refuseAuth({ reason: 'authentication failed', user_id: ALICE.id });
    let attempts = 0;
    hub.admin.on('hello-fail', () => attempts++);
    await helper.load(NODES, flow(configNode(hub), fourUsers), aliceCredentials);
    for (const id of ['in1', 'in2', 'out1', 'out2']) {
      const s = await waitStatus(helper, getNode(helper, id), isText('hub-config.status.auth-failed'));
      assert.deepEqual([s.fill, s.shape], ['red', 'ring']);
    }
    assert.equal(attempts, 1, 'the refused token was tried once');
    const cfg = helper.getNode('cfg') as unknown as { hubClient(): { state: string } };
    assert.equal(cfg.hubClient().state, 'auth_failed');
  });

  it('shows "retry in N s" with the time left while the hub is unreachable', async () => {
    const port = await closedPort();
    const cfg = configNode(hub, { url: `ws://127.0.0.1:${port}/ws`, reconnectMin: 4, reconnectMax: 4 });
    await helper.load([withCatalog(hubConfigNode), hubInNode], flow(cfg, [fourUsers[0]]), aliceCredentials);
    const s = await waitStatus(helper, getNode(helper, 'in1'), startsWith('retry in'));
    const seconds = Number(/^retry in (\d+) s$/.exec(s.text ?? '')?.[1]);
    // 4 s with up to 50 % jitter taken off: between 2 and 4 s are left when it is first shown.
    assert.ok(seconds >= 2 && seconds <= 4, s.text);
    assert.deepEqual([s.fill, s.shape], ['yellow', 'ring']);
  });

  it('keeps the token out of the flow export, every status and every log line', async () => {
    const wrong = 'tok-WRONG-never-show-me';
    await helper.load(NODES, flow(configNode(hub), fourUsers), { cfg: { token: wrong } });
    await waitStatus(helper, getNode(helper, 'in1'), isText('hub-config.status.auth-failed'));
    await helper.unload();
    await helper.load(NODES, flow(configNode(hub), fourUsers), aliceCredentials);
    await waitStatus(helper, getNode(helper, 'in1'), isText(CONNECTED));

    const runtime = helper as unknown as {
      _redNodes: { getFlows(): unknown };
      credentials: { getDefinition(type: string): unknown };
      log(): { getCalls(): Array<{ args: unknown[] }> };
    };
    assert.deepEqual(runtime.credentials.getDefinition('hub-config'), { token: { type: 'password' } });
    const exported = JSON.stringify(runtime._redNodes.getFlows());
    assert.ok(exported.includes('"type":"hub-config"'));
    for (const token of [ALICE.token, wrong]) {
      assert.ok(!exported.includes(token), 'not in the flow export');
      const all = ['cfg', 'in1', 'in2', 'out1', 'out2'].flatMap((id) => statuses(helper, getNode(helper, id)));
      assert.ok(!JSON.stringify(all).includes(token), 'not in a status');
      assert.ok(!JSON.stringify(runtime.log().getCalls().map((c) => c.args)).includes(token), 'not in a log line');
    }
  });

  it('releases the socket when the flows stop, and keeps it when only one of two user nodes is redeployed', async () => {
    const users = [fourUsers[0], fourUsers[2]];
    await helper.load(NODES, flow(configNode(hub), users), aliceCredentials);
    await waitStatus(helper, getNode(helper, 'in1'), isText(CONNECTED));
    const [first] = hub.admin.devices().filter((d) => d.user_id === ALICE.id);
    let disconnects = 0;
    hub.admin.on('disconnect', (d) => {
      if (d.user_id === ALICE.id) disconnects++;
    });

    await helper.setFlows(flow(configNode(hub), [{ ...users[0], name: 'renamed' }, users[1]]), 'nodes', aliceCredentials);
    await waitStatus(helper, getNode(helper, 'in1'), isText(CONNECTED));
    assert.equal(disconnects, 0);
    assert.deepEqual(
      hub.admin.devices().filter((d) => d.user_id === ALICE.id).map((d) => d.connection_id),
      [first.connection_id],
      'the same connection serves the redeployed node',
    );

    assert.equal(lastStatus(helper, getNode(helper, 'cfg')), undefined, 'the config node itself shows no status');
    const gone = hub.admin.waitFor('disconnect', (d) => d.user_id === ALICE.id);
    await helper.clearFlows();
    await gone;
    assert.equal(aliceSessions(hub), 0);
  });

  it('reconnects with the same device id after a full redeploy', async () => {
    await helper.load(NODES, flow(configNode(hub, { deviceId: '' }), [fourUsers[0]]), aliceCredentials);
    const first = (await hub.admin.waitFor('hello', (d) => d.user_id === ALICE.id)).device_id;
    const gone = hub.admin.waitFor('disconnect', (d) => d.user_id === ALICE.id);
    const again = hub.admin.waitFor('hello', (d) => d.user_id === ALICE.id);
    await helper.setFlows(flow(configNode(hub, { deviceId: '', name: 'changed' }), [fourUsers[0]]), 'full', aliceCredentials);
    await gone;
    assert.equal((await again).device_id, first);
    assert.match(first, /^dev-[0-9A-Z]{26}$/);
  });

  it('keeps its store, and the device id minted into it, in clawling-hub under the user directory by default', async () => {
    const dir = tempDir('userdir');
    const h = helper as unknown as { _settings: unknown; settings(s: Record<string, unknown>): unknown };
    const saved = h._settings;
    try {
      h.settings({ userDir: dir });
      const cfg = configNode(hub, { persist: true, deviceId: '' });
      await helper.load(NODES, flow(cfg, [fourUsers[0]]), aliceCredentials);
      const first = (await hub.admin.waitFor('hello', (d) => d.user_id === ALICE.id)).device_id;
      assert.ok(fs.existsSync(path.join(dir, 'clawling-hub', 'cfg.sqlite')));
      await helper.unload();
      const again = hub.admin.waitFor('hello', (d) => d.user_id === ALICE.id);
      await helper.load(NODES, flow(cfg, [fourUsers[0]]), aliceCredentials);
      assert.equal((await again).device_id, first, 'the same device after a restart');
      assert.match(first, /^dev-[0-9A-Z]{26}$/);
    } finally {
      h._settings = saved;
      await helper.unload();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without a state file, derives a device id that stays the same across restarts', async () => {
    const cfg = configNode(hub, { deviceId: '', persist: false });
    await helper.load(NODES, flow(cfg, [fourUsers[0]]), aliceCredentials);
    const first = (await hub.admin.waitFor('hello', (d) => d.user_id === ALICE.id)).device_id;
    await helper.unload();
    const again = hub.admin.waitFor('hello', (d) => d.user_id === ALICE.id);
    await helper.load(NODES, flow(cfg, [fourUsers[0]]), aliceCredentials);
    assert.equal((await again).device_id, first);
    assert.match(first, /^dev-[0-9A-Z]{26}$/);
  });

  it('shows the code of an unusable configuration on every user node, and hub-out fails with HUB_UNAVAILABLE', async () => {
    await helper.load(NODES, flow(configNode(hub, { userId: '' }), fourUsers), aliceCredentials);
    for (const id of ['in1', 'out1']) {
      const s = await waitStatus(helper, getNode(helper, id), isText('BAD_OPTIONS'));
      assert.deepEqual([s.fill, s.shape], ['red', 'ring']);
    }
    const caught = next(getNode(helper, 'caught'));
    getNode(helper, 'out1').receive({ payload: 'hi', chat_id: CHAT_AB });
    const msg = await caught;
    assert.equal(msg.error?.code, 'HUB_UNAVAILABLE');
    assert.match(String(msg.error?.message), /BAD_OPTIONS/);
    assert.equal(aliceSessions(hub), 0);
  });

  it('gives media-upload the media URL (by default the WebSocket host over http) and the token', async () => {
    await helper.load([hubConfigNode, mediaUploadNode], [
      { id: 'tab', type: 'tab' },
      { ...configNode(hub, { mediaUrl: '' }), z: 'tab' },
      placed({ id: 'up', type: 'media-upload', z: 'tab', hub: 'cfg', wires: [['out']] }),
      placed({ id: 'out', type: 'helper', z: 'tab' }),
    ] as Flow, aliceCredentials);
    const cfg = helper.getNode('cfg') as unknown as { getMediaEndpoint(): { url: string; token: string } };
    assert.deepEqual(cfg.getMediaEndpoint(), { url: hub.mediaUrl, token: ALICE.token });
    const output = next(getNode(helper, 'out'));
    getNode(helper, 'up').receive({ payload: Buffer.from('hello media'), name: 'note.txt' });
    const fragment = (await output).payload as Record<string, unknown>;
    assert.equal(fragment.kind, 'file');
    assert.ok(hub.admin.media().some((m) => m.url === fragment.url && m.user_id === ALICE.id));
    assert.equal(aliceSessions(hub), 0, 'media-upload alone opens no WebSocket');
  });
});
