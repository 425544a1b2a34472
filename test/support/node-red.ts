/**
 * Node-RED 4.1 through node-red-node-test-helper, for node tests. One runtime per test file:
 * `useNodeRed()` in a `describe` starts it before the tests and stops it after, unloading flows after each test.
 */
import helper from 'node-red-node-test-helper';

let initialised = false;

export function nodeRedHelper(): typeof helper {
  if (!initialised) {
    helper.init(require.resolve('node-red'));
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
