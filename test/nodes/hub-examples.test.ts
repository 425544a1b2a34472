/**
 * The example flows examples/hub-echo-bot.json and examples/hub-mesh-relay.json, run as shipped against the dev
 * hub (only the hub's address changes, and no state file is written), with Bob on a real client in the chat.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { DevHub } from '../../devhub';
import type { HubClient, InboundMessage } from '../../lib/hub';
import { useNodeRed } from '../support/node-red';
import { ALICE, BOB, CHAT_AB, CHAT_GROUP, HELPER, nextEvent, peer, startHub, waitStatus, isText, getNode, next, type Flow } from './hub-harness';
import { nodeRedPackage } from '../support/node-red-package';

/* eslint-disable @typescript-eslint/no-require-imports */
const ours = ['hub-config', 'hub-in', 'hub-out', 'mesh-decode'].map((n) => require(`../../nodes/${n}`));
const nodeRedNodes = nodeRedPackage().nodesDir;
const core = ['common/20-inject.js', 'common/21-debug.js', 'common/90-comment.js', 'common/25-catch.js', 'function/15-change.js', 'function/10-switch.js'].map((f) =>
  require(path.join(nodeRedNodes, 'core', f)),
);
/* eslint-enable @typescript-eslint/no-require-imports */

const CORE_TYPES = ['tab', 'comment', 'inject', 'change', 'switch', 'debug', 'catch'];
const OUR_TYPES = ['hub-config', 'hub-in', 'hub-out', 'mesh-decode'];

type FlowNode = { id: string; type: string; [k: string]: unknown };

function example(name: string): FlowNode[] {
  return JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'examples', `${name}.json`), 'utf8')) as FlowNode[];
}

describe('example flows: hub', function () {
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

  /** Loads the example with the test hub's address and the given token; returns it. */
  async function run(name: string, token: string): Promise<FlowNode[]> {
    const flow = example(name);
    const config = flow.find((n) => n.type === 'hub-config') as FlowNode;
    Object.assign(config, { url: hub.wsUrl, mediaUrl: hub.mediaUrl, persist: false });
    await helper.load([...ours, ...core], flow as Flow, { [config.id]: { token } });
    const out = flow.find((n) => n.type === 'hub-out') as FlowNode;
    await waitStatus(helper, getNode(helper, out.id), isText('node-red:common.status.connected'));
    return flow;
  }

  for (const name of ['hub-echo-bot', 'hub-mesh-relay']) {
    it(`${name}: only core nodes beside ours, a comment saying what to run first, the dev hub's users, no token`, () => {
      const flow = example(name);
      for (const n of flow) assert.ok([...CORE_TYPES, ...OUR_TYPES].includes(n.type), n.type);
      const comment = flow.find((n) => n.type === 'comment');
      assert.match(String(comment?.info), /clawling devhub --example-config/);
      const config = flow.find((n) => n.type === 'hub-config') as FlowNode;
      assert.equal(config.url, 'ws://127.0.0.1:8080/ws');
      assert.ok(flow.every((n) => !('credentials' in n) && !('token' in n)));
      assert.ok(!/dev-token"/.test(JSON.stringify(flow.filter((n) => n.type !== 'comment'))), 'tokens appear only as instructions');
    });
  }

  it('hub-echo-bot answers a message in its chat with a reply quoting it', async () => {
    const flow = await run('hub-echo-bot', HELPER.token);
    const report = flow.find((n) => n.type === 'debug' && n.name === 'hub answer') as FlowNode;
    const acked = next(getNode(helper, report.id));
    const answer = nextEvent(bob, 'message', (m: InboundMessage) => m.sender.id === HELPER.id);
    const original = await bob.send({ chatId: CHAT_GROUP, text: 'hello bot' });
    const reply = await answer;
    assert.deepEqual([reply.event, reply.chatId, reply.text, reply.replyToMessageId], ['message.reply', CHAT_GROUP, 'echo: hello bot', original.messageId]);
    const ack = (await acked).payload as { status: string; message_id: string };
    assert.deepEqual([ack.status, ack.message_id], ['ack', reply.messageId]);
    assert.ok(hub.admin.inbox(BOB.id).some((row) => row.message_id === reply.messageId));
    await helper.unload();
  });

  it('hub-mesh-relay turns the injected mesh frame into a chat message, and a bad frame reaches Catch', async () => {
    const flow = await run('hub-mesh-relay', ALICE.token);
    const inject = flow.find((n) => n.type === 'inject') as FlowNode;
    const arrived = nextEvent(bob, 'message', (m: InboundMessage) => m.chatId === CHAT_AB && m.sender.id === ALICE.id);
    getNode(helper, inject.id).receive({});
    assert.equal((await arrived).text, '[kitchen] Kitchen: 21.5 °C');

    const errors = flow.find((n) => n.type === 'debug' && n.name === 'error code') as FlowNode;
    const decoder = flow.find((n) => n.type === 'mesh-decode') as FlowNode;
    const caught = next(getNode(helper, errors.id));
    getNode(helper, decoder.id).receive({ payload: Buffer.from([0xf5, 0x01, 0x02]) });
    const err = (await caught).error as { code?: string; source?: { id?: string } };
    assert.equal(err.source?.id, decoder.id);
    assert.match(String(err.code), /^[A-Z_]+$/);
    await helper.unload();
  });
});
