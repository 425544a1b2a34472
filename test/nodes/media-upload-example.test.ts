/** The example flow examples/media-upload-image.json, run as shipped against the dev hub with Bob watching the chat. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { DevHub } from '../../devhub';
import type { HubClient, InboundMessage } from '../../lib/hub';
import { useNodeRed } from '../support/node-red';
import { ALICE, CHAT_AB, nextEvent, peer, startHub, type Flow } from './hub-harness';
import { nodeRedPackage } from '../support/node-red-package';

/* eslint-disable @typescript-eslint/no-require-imports */
const ours = [require('../../nodes/hub-config'), require('../../nodes/media-upload'), require('../../nodes/hub-out')];
const nodeRedNodes = nodeRedPackage().nodesDir;
const coreNodes = ['common/20-inject.js', 'common/21-debug.js', 'common/90-comment.js', 'common/25-catch.js', 'function/15-change.js'].map((f) =>
  require(path.join(nodeRedNodes, 'core', f)),
);
/* eslint-enable @typescript-eslint/no-require-imports */

const EXAMPLE = path.join(__dirname, '..', '..', '..', 'examples', 'media-upload-image.json');

type FlowNode = { id: string; type: string; z?: string; wires?: string[][]; [k: string]: unknown };

function get(url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve(Buffer.concat(parts)));
      })
      .on('error', reject);
  });
}

describe('example flow: media-upload-image', function () {
  this.timeout(30_000);
  const helper = useNodeRed();
  let hub: DevHub;
  let bob: HubClient;

  before(async () => {
    hub = await startHub();
    bob = await peer(hub);
  });
  after(async () => {
    await bob.stop();
    await hub.stop();
  });

  it('uses only core nodes beside ours and says what to run first', () => {
    const flow = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')) as FlowNode[];
    for (const n of flow) assert.ok(['tab', 'comment', 'inject', 'change', 'debug', 'catch', 'media-upload', 'hub-out', 'hub-config'].includes(n.type), n.type);
    const comment = flow.find((n) => n.type === 'comment');
    assert.match(String(comment?.info), /clawling devhub/);
    // The shipped hub-config matches `clawling devhub --example-config`: chat and user of that file.
    assert.equal(flow.find((n) => n.type === 'hub-out')?.chat, CHAT_AB);
    assert.equal(flow.find((n) => n.type === 'hub-config')?.userId, ALICE.id);
  });

  it('uploads the PNG, and Bob receives it in the chat with its caption and size', async () => {
    const flow = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')) as FlowNode[];
    const config = flow.find((n) => n.type === 'hub-config') as FlowNode;
    // Only the addresses change (the test hub listens on a free port), and no state file is written.
    Object.assign(config, { url: hub.wsUrl, mediaUrl: hub.mediaUrl, persist: false });
    await helper.load([...ours, ...coreNodes], flow as Flow, { [config.id]: { token: ALICE.token } });
    const inject = flow.find((n) => n.type === 'inject' && n.payloadType === 'bin') as FlowNode;
    const received = nextEvent(bob, 'message', (m: InboundMessage) => m.chatId === CHAT_AB, 15_000);
    (helper.getNode(inject.id) as unknown as { receive(m: object): void }).receive({});
    const message = await received;
    assert.equal(message.sender.id, ALICE.id);
    const [caption, picture] = message.fragments;
    assert.equal(caption.kind, 'text');
    assert.equal(caption.text, 'Snapshot from Node-RED');
    assert.equal(picture.kind, 'image');
    assert.equal(picture.name, 'grey-square.png');
    assert.equal(picture.mime, 'image/png');
    assert.equal(picture.width, 16);
    assert.equal(picture.height, 16);
    const bytes = await get(String(picture.url));
    assert.equal(bytes.length, picture.size);
    assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
  });
});
