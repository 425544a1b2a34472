import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { nextMessage, useNodeRed } from '../support/node-red';
import { nodeRedPackage } from '../support/node-red-package';

/* eslint-disable @typescript-eslint/no-require-imports */
const dictionaryNode = require('../../nodes/dictionary-apply');
const nodeRedNodes = nodeRedPackage().nodesDir;
const coreNodes = ['common/20-inject.js', 'common/21-debug.js', 'common/90-comment.js', 'function/15-change.js'].map((f) =>
  require(path.join(nodeRedNodes, 'core', f)),
);
/* eslint-enable @typescript-eslint/no-require-imports */

const EXAMPLE = path.join(__dirname, '..', '..', '..', 'examples', 'dictionary-rename-group.json');

type FlowNode = { id: string; type: string; z?: string; wires?: string[][]; [k: string]: unknown };

describe('example flow: dictionary-rename-group', function () {
  const helper = useNodeRed();

  it('uses only core nodes beside ours and says what it shows', () => {
    const flow = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')) as FlowNode[];
    const types = new Set(flow.map((n) => n.type));
    for (const t of types) assert.ok(['tab', 'comment', 'inject', 'change', 'debug', 'catch', 'dictionary-apply'].includes(t), t);
    assert.ok(flow.some((n) => n.type === 'comment' && String(n.info).includes('inject')));
  });

  it('creates a group, renames it and produces the change record', async () => {
    const flow = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')) as FlowNode[];
    const apply = flow.find((n) => n.type === 'dictionary-apply' && n.operation === 'apply') as FlowNode;
    const inject = flow.find((n) => n.type === 'inject') as FlowNode;
    // Tap the apply node's output beside the example's own debug node.
    apply.wires = [[...(apply.wires?.[0] ?? []), 'tap']];
    flow.push({ id: 'tap', type: 'helper', z: apply.z });
    await helper.load([dictionaryNode, ...coreNodes], flow);
    const got = nextMessage<Record<string, unknown>>(helper.getNode('tap') as never);
    (helper.getNode(inject.id) as unknown as { receive(m: object): void }).receive({});
    const msg = await got;
    assert.deepEqual(msg.changes, [{ field_name: 'group_name', old_value: 'Lobby', new_value: 'Kitchen' }]);
    assert.equal(msg.summary, 'group_name: "Lobby" → "Kitchen"');
    const comps = (msg.dictionary as { components: { name?: string; hex: string }[] }).components;
    assert.equal(Buffer.from(comps.find((c) => c.name === 'GROUP_NAME')?.hex as string, 'hex').toString(), 'Kitchen');
  });
});
