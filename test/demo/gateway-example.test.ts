/**
 * examples/gateway-demo.json in node-red-node-test-helper, against the demo's own parts in this process (dev hub,
 * aedes, the gateway with its two simulated radios and the hub bridge; `startDemo` without its Node-RED child): the
 * flow as shipped, only the addresses changed. Every path of the flow is exercised with real frames and sockets.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAck } from '../../lib/mesh/ack';
import type { SimulatedRadio, VirtualPeer, VirtualReceipt } from '../../gateway/radios';
import { DEMO_FLOW_FILE, demoFlow } from '../../demo/flow';
import { startDemo, type RunningDemo } from '../../demo/run-demo';
import { DEMO, PEERS } from '../../demo/settings';
import { useNodeRed } from '../support/node-red';
import { nodeRedPackage } from '../support/node-red-package';

/* eslint-disable @typescript-eslint/no-require-imports */
const ours = ['hub-config', 'hub-in', 'hub-out'].map((n) => require(`../../nodes/${n}`));
const nodeRedNodes = nodeRedPackage().nodesDir;
const core = ['common/20-inject.js', 'common/21-debug.js', 'common/90-comment.js', 'function/15-change.js', 'function/10-switch.js', 'network/10-mqtt.js'].map((f) =>
  require(path.join(nodeRedNodes, 'core', f)),
);
/* eslint-enable @typescript-eslint/no-require-imports */

type FlowNode = { id: string; type: string; name?: string; [k: string]: unknown };
interface TestNode {
  receive(msg: Record<string, unknown>): void;
  on(event: 'input', cb: (msg: Record<string, unknown>) => void): void;
  removeListener(event: 'input', cb: (msg: Record<string, unknown>) => void): void;
}

const shipped = JSON.parse(fs.readFileSync(DEMO_FLOW_FILE, 'utf8')) as FlowNode[];
const byName = (type: string, name: string): FlowNode => shipped.find((n) => n.type === type && n.name === name)!;

function nextInput(node: TestNode, match: (m: Record<string, unknown>) => boolean, ms = 15000): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const on = (m: Record<string, unknown>): void => {
      if (!match(m)) return;
      clearTimeout(timer);
      node.removeListener('input', on);
      resolve(m);
    };
    const timer = setTimeout(() => {
      node.removeListener('input', on);
      reject(new Error(`no matching message within ${ms} ms`));
    }, ms);
    node.on('input', on);
  });
}

function receipt(peer: VirtualPeer, test: (content: string, r: VirtualReceipt) => boolean): Promise<VirtualReceipt> {
  return peer.waitFor((r) => r.message !== undefined && !isAck(r.message) && test(r.message.content, r));
}

describe('example flow: gateway-demo (the npm start flow)', function () {
  this.timeout(60000);
  const helper = useNodeRed();
  let dir: string;
  let demo: RunningDemo;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-example-'));
    demo = await startDemo({ ports: { nodeRed: 0, hub: 0, mqtt: 0, status: 0 }, dir, withoutNodeRed: true, print: () => undefined });
  });
  after(async () => {
    await demo?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const peer = (id: keyof typeof PEERS): VirtualPeer => {
    const radio = demo.gateway.radios.find((r) => r.id === PEERS[id].radio) as SimulatedRadio;
    return radio.virtualPeer(id)!;
  };

  it('holds only core nodes beside ours, says to run npm start first, and carries no token', () => {
    const allowed = ['tab', 'comment', 'inject', 'debug', 'switch', 'change', 'mqtt in', 'mqtt out', 'mqtt-broker', 'hub-config', 'hub-in', 'hub-out'];
    for (const n of shipped) assert.ok(allowed.includes(n.type), n.type);
    const comment = shipped.find((n) => n.type === 'comment')!;
    assert.match(String(comment.name), /Run `npm start` first/);
    assert.match(String(comment.info), /npm start/);
    assert.ok(shipped.every((n) => !('credentials' in n) && !('token' in n)));
    assert.ok(!JSON.stringify(shipped.filter((n) => n.type !== 'comment')).includes(DEMO.nodeRedToken));
    assert.equal(shipped.find((n) => n.type === 'hub-config')!.id, DEMO.hubConfigNode, 'the demo gives this node its token');
    assert.equal(peer('garden').address, PEERS.garden.address, 'the addresses in the flow are the simulated peers’');
  });

  it('shows mesh → MQTT and mesh → hub → Node-RED, and answers readings back to the node that sent them', async () => {
    const flow = demoFlow({ hubUrl: demo.urls.hub, mediaUrl: demo.urls.media, mqttPort: Number(new URL(demo.urls.mqtt).port) });
    await helper.load([...ours, ...core], flow as never, { [DEMO.hubConfigNode]: { token: DEMO.nodeRedToken } });
    const mqttDebug = helper.getNode(byName('debug', 'mesh → MQTT').id) as unknown as TestNode;
    const hubDebug = helper.getNode(byName('debug', 'mesh → hub → Node-RED').id) as unknown as TestNode;
    const answered = helper.getNode(byName('debug', 'hub answer').id) as unknown as TestNode;

    const readingAtMqtt = nextInput(mqttDebug, (m) => /^temperature /.test(String((m.payload as { content?: string }).content)));
    const readingInChat = nextInput(hubDebug, (m) => /^Kitchen: temperature /.test(String((m.payload as { text?: string }).text)));
    const replyAcked = nextInput(answered, () => true);
    const reading = await readingAtMqtt;
    assert.equal((reading.payload as { sender: string }).sender, PEERS.kitchen.address);
    assert.match((reading.payload as { rx_radio: string }).rx_radio, /^sim0$/);
    const text = ((await readingInChat).payload as { text: string }).text;
    assert.equal(((await replyAcked).payload as { status: string }).status, 'ack');
    const back = await receipt(peer('kitchen'), (c) => c === `Node-RED saw ${text}`);
    assert.equal(back.message!.metadata.get('hub_sender'), DEMO.nodeRedUser);
  });

  it('sends into the mesh over MQTT and over the hub, and the garden answers', async () => {
    const flow = demoFlow({ hubUrl: demo.urls.hub, mediaUrl: demo.urls.media, mqttPort: Number(new URL(demo.urls.mqtt).port) });
    await helper.load([...ours, ...core], flow as never, { [DEMO.hubConfigNode]: { token: DEMO.nodeRedToken } });
    const results = helper.getNode(byName('debug', 'Node-RED → MQTT → mesh').id) as unknown as TestNode;
    const viaHub = helper.getNode(byName('debug', 'Node-RED → hub → mesh').id) as unknown as TestNode;
    const hubDebug = helper.getNode(byName('debug', 'mesh → hub → Node-RED').id) as unknown as TestNode;
    // The MQTT subscription and the hub connection are up once the broker's retained state and a chat message arrive.
    await nextInput(hubDebug, () => true);

    const acked = nextInput(results, (m) => (m.payload as { status?: string }).status === 'acked');
    (helper.getNode(byName('inject', 'ask the garden over MQTT').id) as unknown as TestNode).receive({});
    await receipt(peer('garden'), (c) => c === 'water the tomatoes, please');
    await acked;
    await nextInput(hubDebug, (m) => String((m.payload as { text?: string }).text).startsWith('Garden: garden here, got “water the tomatoes'));

    const sent = nextInput(viaHub, (m) => (m.payload as { status?: string }).status === 'ack');
    (helper.getNode(byName('inject', 'write in the chat').id) as unknown as TestNode).receive({});
    await sent;
    const r = await receipt(peer('garden'), (c) => c === 'hello garden, this is Node-RED');
    assert.equal(r.message!.metadata.get('hub_chat_id'), DEMO.chat);
  });
});
