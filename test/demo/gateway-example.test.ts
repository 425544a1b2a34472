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
const ours = ['hub-config', 'hub-in', 'hub-out', 'mesh-encode', 'mesh-decode'].map((n) => require(`../../nodes/${n}`));
const nodeRedNodes = nodeRedPackage().nodesDir;
const core = ['common/20-inject.js', 'common/21-debug.js', 'common/90-comment.js', 'function/15-change.js', 'function/10-switch.js', 'function/10-function.js', 'network/10-mqtt.js'].map((f) =>
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

  it('holds only core nodes beside ours, opens with what the user is looking at, and carries no token', () => {
    const allowed = ['tab', 'comment', 'inject', 'debug', 'switch', 'change', 'function', 'mqtt in', 'mqtt out', 'mqtt-broker', 'hub-config', 'hub-in', 'hub-out', 'mesh-encode', 'mesh-decode'];
    for (const n of shipped) assert.ok(allowed.includes(n.type), n.type);
    const comment = shipped.find((n) => n.type === 'comment')!;
    assert.match(String(comment.name), /running demo/, 'the first comment says what is on the screen, not what to do before');
    const info = String(comment.info);
    for (const part of ['npm start', 'kitchen', 'garden', 'porch', 'mesh encode', 'mesh decode', 'http://127.0.0.1:1880/', 'http://127.0.0.1:8089', 'admin', 'debug sidebar']) {
      assert.ok(info.includes(part), `the first comment's info mentions ${part}`);
    }
    const sections = shipped.filter((n) => n.type === 'comment' && /^\d · /.test(String(n.name)));
    assert.ok(sections.length >= 3, 'each part of the flow has a comment naming it');
    assert.ok(shipped.every((n) => !('credentials' in n) && !('token' in n)));
    assert.ok(!JSON.stringify(shipped.filter((n) => n.type !== 'comment')).includes(DEMO.nodeRedToken));
    assert.equal(shipped.find((n) => n.type === 'hub-config')!.id, DEMO.hubConfigNode, 'the demo gives this node its token');
    assert.equal(peer('garden').address, PEERS.garden.address, 'the addresses in the flow are the simulated peers’');
  });

  it('fits a 1366 px wide editor with the palette and the sidebar open', () => {
    // Node-RED 4's default palette is 180 px and its sidebar about 320 px, which leaves 866 px of a 1366 px window to the
    // workspace. A node's x is its centre; its width grows with its label (14 px italic, about 7.5 px per character),
    // and a debug node carries its button on the right (an inject's is on the left).
    const WORKSPACE_PX = 1366 - 180 - 320;
    const overflow = shipped
      .filter((n) => typeof n.x === 'number')
      .map((n) => {
        const label = String(n.name ?? '');
        const width = Math.max(100, Math.ceil((label.length * 7.5 + 50) / 10) * 10);
        return { node: `${n.type} "${label}"`, right: (n.x as number) + width / 2 + (n.type === 'debug' ? 25 : 0) };
      })
      .filter((r) => r.right > WORKSPACE_PX);
    assert.deepEqual(overflow, [], 'nodes that reach past the visible workspace');
    assert.ok(shipped.filter((n) => typeof n.x === 'number').every((n) => String(n.name ?? '') !== ''), 'every node is named, so its width is known');
  });

  it('wires each mesh message through mesh encode (binary v1) and mesh decode, showing the frame size', () => {
    const decode = shipped.find((n) => n.type === 'mesh-decode')!;
    const encode = shipped.find((n) => n.type === 'mesh-encode')!;
    assert.equal(encode.format, 'binary');
    const wiredTo = (n: FlowNode): string[] => ((n.wires as string[][] | undefined) ?? []).flat();
    const feeder = shipped.find((n) => wiredTo(n).includes(encode.id))!;
    assert.ok(wiredTo(byName('mqtt in', 'mesh messages')).includes(feeder.id), 'the MQTT mesh messages feed the encoder');
    assert.ok(wiredTo(encode).includes(decode.id), 'the encoder feeds the decoder');
    assert.ok(wiredTo(decode).includes(byName('debug', 'decoded again').id));
    assert.ok(wiredTo(encode).includes(byName('debug', 'binary v1 frame').id));
  });

  it('shows a mesh message as a binary v1 frame with its size and decodes it back to the same message', async () => {
    const flow = demoFlow({ hubUrl: demo.urls.hub, mediaUrl: demo.urls.media, mqttPort: Number(new URL(demo.urls.mqtt).port) });
    await helper.load([...ours, ...core], flow as never, { [DEMO.hubConfigNode]: { token: DEMO.nodeRedToken } });
    const frames = helper.getNode(byName('debug', 'binary v1 frame').id) as unknown as TestNode;
    const decoded = helper.getNode(byName('debug', 'decoded again').id) as unknown as TestNode;
    const frame = await nextInput(frames, () => true);
    assert.ok(Buffer.isBuffer(frame.payload), 'the frame is bytes');
    assert.equal(frame.format, 'binary');
    const bytes = frame.payload as Buffer;
    assert.ok(typeof frame.jsonBytes === 'number' && bytes.length < (frame.jsonBytes as number), `binary ${bytes.length} B, JSON floor ${String(frame.jsonBytes)} B`);
    const back = await nextInput(decoded, (m) => m.messageId === frame.messageId);
    const message = back.payload as { id: string; content: string; rx_radio?: string };
    assert.equal(message.id, frame.messageId);
    assert.equal(back.format, 'binary');
    assert.ok(message.content.length > 0);
    assert.equal(message.rx_radio, undefined, 'only message fields went through the codec');
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
