/**
 * Every file in examples/, loaded into Node-RED 4.1 through node-red-node-test-helper with every node type it uses
 * (this package's and Node-RED's core ones, nothing else): it is one flow with a comment saying what it shows and
 * what to run first, carries no credentials, starts without an error or a warning in the runtime log, and its hub
 * and MQTT nodes connect to a dev hub and an MQTT broker started here (the examples' addresses and tokens are the
 * only thing changed, as each example's comment tells the user to change them).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exampleNames, readExample, type FlowNode } from '../editor/support/declared-nodes';
import { CONNECTION_TYPES, configFor, startExampleServices, type ExampleServices } from '../editor/support/example-services';
import { useNodeRed } from '../support/node-red';
import { BUILT_IN_TYPES, coreNodeFiles, ourNodeFiles } from './flow-node-types';

interface LogEntry {
  level: number;
  type?: string;
  id?: string;
  msg?: unknown;
}

interface StatusCall {
  args: unknown[];
  thisValue: unknown;
}

interface SpiedNode {
  on(event: 'call:status', cb: (call: StatusCall) => void): void;
  removeListener(event: 'call:status', cb: (call: StatusCall) => void): void;
}

const OURS = ourNodeFiles();
const CORE = coreNodeFiles();
/** Node-RED's log levels: fatal 10, error 20, warn 30. */
const ERROR = 20;
const WARN = 30;
const CONNECTED = /^(node-red:common\.status\.)?connected\b/;

function firstParagraph(text: string | undefined): string {
  return (text ?? '').split(/\n\s*\n/)[0] ?? '';
}

describe('examples/: every example flow', function () {
  this.timeout(20_000);
  const helper = useNodeRed();
  let services: ExampleServices;
  let stateDir: string;

  before(async () => {
    services = await startExampleServices();
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'examples-state-'));
  });
  after(async () => {
    await services?.stop();
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  it('examples/ holds flows', () => {
    assert.ok(exampleNames().length > 0);
  });

  for (const name of exampleNames()) {
    it(`${name}: one flow, a comment saying what it shows and what to run first, only core nodes beside ours, no credentials`, () => {
      const flow = readExample(name);
      const tabs = flow.filter((n) => n.type === 'tab');
      assert.equal(tabs.length, 1, 'an example is one flow tab');
      const placed = flow.filter((n) => n.type !== 'tab' && 'x' in n);
      assert.deepEqual(placed.filter((n) => n.z !== tabs[0].id).map((n) => n.id), [], 'nodes outside the example tab');

      const comments = flow.filter((n) => n.type === 'comment');
      assert.ok(comments.length > 0, 'no comment node');
      const intro = comments.find((c) => String(c.name ?? '').trim().length > 10 && String(c.info ?? '').trim().length > 40);
      assert.ok(intro, 'no comment with a title saying what the flow shows and an info text explaining it');
      assert.match(`${intro.name}\n${firstParagraph(intro.info)}`, /\bfirst\b/i, "the comment's title or first paragraph must say what to run (or that nothing is needed) first");

      const foreign = [...new Set(flow.map((n) => n.type))].filter((t) => !OURS.has(t) && !CORE.has(t) && !BUILT_IN_TYPES.includes(t));
      assert.deepEqual(foreign, [], 'node types that are neither core nor from this package');
      assert.deepEqual(flow.filter((n) => 'credentials' in n).map((n) => n.id), [], 'credentials in the flow file');
    });

    it(`${name}: starts in Node-RED 4.1 with the node types it uses, with no error, nor a warning from its nodes, logged; its hub and MQTT nodes connect`, async () => {
      const flow = pointAtServices(readExample(name));
      const credentials: Record<string, Record<string, string>> = {};
      for (const config of flow.filter((n) => n.type !== 'tab' && !('x' in n))) {
        const setting = configFor(config, services);
        if (setting && Object.keys(setting.credentials).length) credentials[config.id] = setting.credentials;
      }
      const files = [...new Set(flow.map((n) => OURS.get(n.type) ?? CORE.get(n.type)).filter((f): f is string => !!f))];
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const modules = files.map((f) => require(f) as unknown);
      await helper.load(modules as Parameters<typeof helper.load>[0], flow as Parameters<typeof helper.load>[1], credentials);

      const absent = flow.filter((n) => n.type !== 'tab' && !helper.getNode(n.id)).map((n) => `${n.type} ${n.id}`);
      assert.deepEqual(absent, [], 'nodes the runtime did not create');
      await Promise.all(flow.filter((n) => CONNECTION_TYPES.includes(n.type)).map((n) => connected(n)));
      assert.deepEqual(problemsLogged(), [], 'errors or warnings logged while the flow started');
    });
  }

  /** The example with each configuration node pointed at this test's services, hub state files in a temp folder. */
  function pointAtServices(flow: FlowNode[]): FlowNode[] {
    return flow.map((node) => {
      if (node.type === 'tab' || 'x' in node) return node;
      const setting = configFor(node, services);
      assert.ok(setting, `the test does not know how to point a ${node.type} at a test service: add it to configFor (test/editor/support/example-services.ts)`);
      return { ...node, ...setting.fields, ...(node.type === 'hub-config' ? { stateDir } : {}) };
    });
  }

  function problemsLogged(): string[] {
    const calls = (helper.log() as unknown as { args: LogEntry[][] }).args;
    // Every error; warnings from the flow's nodes (the runtime's own, about the helper's set-up, are not the flow's).
    return calls
      .map((a) => a[0])
      .filter((e) => e && (e.level <= ERROR || (e.level === WARN && !!e.id)))
      .map((e) => `[${e.level === WARN ? 'warn' : 'error'}] ${e.type ?? ''} ${e.id ?? ''}: ${String(e.msg)}`);
  }

  /** Resolves once the node's latest status says connected; rejects with what it showed after 10 s. */
  function connected(flowNode: FlowNode): Promise<void> {
    const node = helper.getNode(flowNode.id) as unknown as SpiedNode;
    const proto = (helper as unknown as { _NodePrototype: { status: { getCalls(): StatusCall[] } } })._NodePrototype;
    const texts = (): string[] =>
      proto.status
        .getCalls()
        .filter((c) => c.thisValue === node)
        .map((c) => String((c.args[0] as { text?: unknown } | undefined)?.text ?? ''));
    return new Promise((resolve, reject) => {
      const done = (): boolean => CONNECTED.test(texts().at(-1) ?? '');
      if (done()) return resolve();
      const onStatus = (): void => {
        if (!done()) return;
        clearTimeout(timer);
        node.removeListener('call:status', onStatus);
        resolve();
      };
      const timer = setTimeout(() => {
        node.removeListener('call:status', onStatus);
        reject(new Error(`${flowNode.type} "${flowNode.name ?? flowNode.id}" did not connect; its statuses: ${JSON.stringify(texts())}`));
      }, 10_000);
      node.on('call:status', onStatus);
    });
  }
});
