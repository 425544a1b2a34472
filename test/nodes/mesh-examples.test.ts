/**
 * The mesh example flows, loaded as a user imports them (only core nodes beside ours), triggered through their
 * inject nodes, with a helper node tapped beside each debug node.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { collectMessages, useNodeRed, type NodeMsg, type TestNode } from '../support/node-red';
import { nodeRedPackage } from '../support/node-red-package';

/* eslint-disable @typescript-eslint/no-require-imports */
const encodeNode = require('../../nodes/mesh-encode');
const decodeNode = require('../../nodes/mesh-decode');
const nodeRedNodes = nodeRedPackage().nodesDir;
const coreNodes = ['common/20-inject.js', 'common/21-debug.js', 'common/90-comment.js', 'common/25-catch.js'].map((f) => require(path.join(nodeRedNodes, 'core', f)));
/* eslint-enable @typescript-eslint/no-require-imports */

type FlowNode = { id: string; type: string; z?: string; name?: string; wires?: string[][]; [k: string]: unknown };

const EXAMPLES = path.join(__dirname, '..', '..', '..', 'examples');
const ALLOWED = ['tab', 'comment', 'inject', 'debug', 'catch', 'mesh-encode', 'mesh-decode'];

function read(name: string): FlowNode[] {
  return JSON.parse(fs.readFileSync(path.join(EXAMPLES, name), 'utf8')) as FlowNode[];
}

/** Wires a helper node beside every debug node and returns the helper ids by debug node name. */
function tap(flow: FlowNode[]): Map<string, string> {
  const taps = new Map<string, string>();
  for (const node of [...flow]) {
    if (node.type !== 'debug') continue;
    const id = `tap-${node.id}`;
    flow.push({ id, type: 'helper', z: node.z, x: 0, y: 0 });
    taps.set(String(node.name), id);
    for (const other of flow) {
      if (other.wires) other.wires = other.wires.map((port) => (port.includes(node.id) ? [...port, id] : port));
    }
  }
  return taps;
}

describe('mesh example flows', function () {
  this.timeout(20_000);
  const helper = useNodeRed();

  for (const name of ['mesh-encode-decode.json', 'mesh-ble-fragments.json']) {
    it(`${name} uses only core nodes beside ours and its comment says what to run`, () => {
      const flow = read(name);
      for (const node of flow) assert.ok(ALLOWED.includes(node.type), node.type);
      assert.ok(flow.some((n) => n.type === 'comment' && /inject/.test(String(n.info))));
    });
  }

  it('mesh-encode-decode: the message comes back decoded, and the forged ACK reaches the Catch node', async () => {
    const flow = read('mesh-encode-decode.json');
    const taps = tap(flow);
    await helper.load([encodeNode, decodeNode, ...coreNodes], flow as never);
    const get = (id: string): TestNode => helper.getNode(id) as unknown as TestNode;
    const frames = collectMessages(get(taps.get('frame') as string), 1);
    const messages = collectMessages(get(taps.get('message') as string), 1);
    const errors = collectMessages(get(taps.get('error code') as string), 1);
    const injects = flow.filter((n) => n.type === 'inject');
    get((injects.find((n) => n.name === 'door opened') as FlowNode).id).receive({});
    const [frame] = await frames;
    assert.ok(Buffer.isBuffer(frame.payload) && (frame.payload as Buffer)[0] === 0xf5);
    const [message] = await messages;
    const p = message.payload as Record<string, unknown>;
    assert.equal(p.content, 'Front door opened');
    assert.deepEqual(p.metadata, { room: 'hall' });
    assert.equal(p.ttl, 8);
    get((injects.find((n) => n.name === 'forged ACK') as FlowNode).id).receive({});
    const [error] = await errors;
    assert.equal(error.error?.code, 'RESERVED_METADATA_KEY');
  });

  it('mesh-ble-fragments: the report crosses as several 185-byte writes and arrives whole', async () => {
    const flow = read('mesh-ble-fragments.json');
    const taps = tap(flow);
    await helper.load([encodeNode, decodeNode, ...coreNodes], flow as never);
    const get = (id: string): TestNode => helper.getNode(id) as unknown as TestNode;
    const inject = flow.find((n) => n.type === 'inject') as FlowNode;
    const expected = (JSON.parse(String(inject.payload)) as { content: string }).content;
    const messages = collectMessages(get(taps.get('message') as string), 1);
    const fragments: NodeMsg[] = [];
    get(taps.get('fragments') as string).on('input', (m) => fragments.push(m));
    get(inject.id).receive({});
    const [message] = await messages;
    assert.equal((message.payload as { content: string }).content, expected);
    assert.ok(fragments.length >= 2, `${fragments.length} fragments`);
    for (const f of fragments) assert.ok((f.payload as Buffer).length <= 185);
  });
});
