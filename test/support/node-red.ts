/**
 * Node-RED (the one `nodeRedPackage()` selects: 4.1 by default) through node-red-node-test-helper, for node tests.
 * One runtime per test file: `useNodeRed()` in a `describe` starts it before the tests and stops it after,
 * unloading flows after each test.
 */
import helper from 'node-red-node-test-helper';
import { nodeRedPackage } from './node-red-package';

let initialised = false;

export function nodeRedHelper(): typeof helper {
  if (!initialised) {
    const selected = nodeRedPackage();
    helper.init(selected.main);
    // The helper loads whatever the path resolves to; a runtime of another version would test the wrong Node-RED.
    // (A checkout-installed 4.1 reports "4.1.15-git".)
    const loaded = (helper as unknown as { _RED: { version(): string } })._RED.version();
    if (loaded.replace(/-git$/, '') !== selected.version) throw new Error(`node-red-node-test-helper loaded Node-RED ${loaded}, not the selected ${selected.version} (${selected.dir})`);
    initialised = true;
  }
  return helper;
}

export function useNodeRed(): typeof helper {
  const h = nodeRedHelper();
  before((done) => {
    h.startServer(done);
  });
  afterEach(async () => {
    await h.unload();
  });
  after((done) => {
    h.stopServer(done);
  });
  return h;
}

/** Resolves with the next message a helper node receives, or rejects after `ms`. */
export function nextMessage<T = Record<string, unknown>>(node: { once(event: 'input', cb: (msg: T) => void): void }, ms = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no message within ${ms} ms`)), ms);
    node.once('input', (msg: T) => {
      clearTimeout(timer);
      resolve(msg);
    });
  });
}

/** What a helper node receives, typed loosely enough for assertions. */
export type NodeMsg = Record<string, unknown> & {
  payload?: unknown;
  error?: { code?: string; message?: string; source?: { id?: string } };
  status?: { text?: string; fill?: string };
};

/** A node of a loaded test flow, as the tests use it (`M`: the shape its messages are asserted in). */
export interface TestNode<M = NodeMsg> {
  on(event: 'input', cb: (msg: M) => void): void;
  /** The test helper's spies: `call:warn`, `call:error`, … with the call. */
  on(event: string, cb: (value: unknown) => void): void;
  once(event: 'input', cb: (msg: M) => void): void;
  receive(msg: Record<string, unknown>): void;
}

/** Resolves with the first `count` messages a helper node receives. */
export function collectMessages(node: TestNode, count: number): Promise<NodeMsg[]> {
  return new Promise((resolve) => {
    const got: NodeMsg[] = [];
    node.on('input', (msg) => {
      got.push(msg);
      if (got.length === count) resolve(got);
    });
  });
}

/**
 * One node under test on a tab, probed three ways: its first output into helper `out`, a Catch scoped to it into
 * `caught`, a Status scoped to it into `statuses`. `extra` adds nodes (a config node). On a tab, Node-RED takes a node
 * without x/y for a config node, so the flow nodes carry a position.
 */
export function probedFlow(node: Record<string, unknown> & { id: string; type: string }, extra: Record<string, unknown>[] = []): Record<string, unknown>[] {
  const at = { z: 'tab', x: 100, y: 100 };
  return [
    { id: 'tab', type: 'tab' },
    ...extra,
    { ...at, wires: [['out']], ...node },
    { id: 'out', type: 'helper', ...at },
    { id: 'catch', type: 'catch', ...at, scope: [node.id], wires: [['caught']] },
    { id: 'caught', type: 'helper', ...at },
    { id: 'status', type: 'status', ...at, scope: [node.id], wires: [['statuses']] },
    { id: 'statuses', type: 'helper', ...at },
  ];
}

/** The nodes of a loaded `probedFlow`: the node under test under `id`, and `out`, `caught`, `statuses`. */
export function probes<Id extends string, M = NodeMsg>(h: typeof helper, id: Id): Record<Id | 'out' | 'caught' | 'statuses', TestNode<M>> {
  const get = (name: string): TestNode<M> => h.getNode(name) as unknown as TestNode<M>;
  return { [id]: get(id), out: get('out'), caught: get('caught'), statuses: get('statuses') } as Record<Id | 'out' | 'caught' | 'statuses', TestNode<M>>;
}
