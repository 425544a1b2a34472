import assert from 'node:assert/strict';
import { PeerWriteQueue } from '../../../gateway/radios/peer-write-queue';
import { RadioError } from '../../../gateway/radios/radio';

interface Gate {
  frame: Uint8Array;
  done: () => void;
  fail: (err: Error) => void;
}

function gatedQueue(limit: number, byteLimit = 1 << 20): { queue: PeerWriteQueue; writes: Gate[] } {
  const writes: Gate[] = [];
  const queue = new PeerWriteQueue({
    peerId: 'p1',
    limit,
    byteLimit,
    write: (frame) => new Promise<void>((done, fail) => writes.push({ frame, done, fail })),
  });
  return { queue, writes };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const code = async (p: Promise<unknown>): Promise<string> => p.then(() => 'ok', (e: unknown) => (e instanceof RadioError ? e.code : String(e)));

describe('gateway/radios PeerWriteQueue', () => {
  it('writes one frame at a time in arrival order', async () => {
    const { queue, writes } = gatedQueue(8);
    const done: number[] = [];
    const all = [1, 2, 3].map((n) => queue.push(Uint8Array.of(n)).then(() => done.push(n)));
    await tick();
    assert.equal(writes.length, 1, 'only one write outstanding');
    assert.equal(queue.depth, 3);
    writes[0].done();
    await tick();
    assert.equal(writes.length, 2);
    writes[1].done();
    await tick();
    writes[2].done();
    await Promise.all(all);
    assert.deepEqual(done, [1, 2, 3]);
    assert.deepEqual(writes.map((w) => w.frame[0]), [1, 2, 3]);
    assert.equal(queue.depth, 0);
    assert.equal(queue.bytes, 0);
  });

  it('refuses with QUEUE_FULL at the frame limit, counting the one in flight', async () => {
    const { queue } = gatedQueue(2);
    void queue.push(Uint8Array.of(1));
    void queue.push(Uint8Array.of(2));
    assert.equal(await code(queue.push(Uint8Array.of(3))), 'QUEUE_FULL');
  });

  it('refuses at the byte limit, but always takes one frame into an empty queue', async () => {
    const { queue, writes } = gatedQueue(10, 100);
    const big = queue.push(new Uint8Array(500));
    assert.equal(await code(queue.push(new Uint8Array(1))), 'QUEUE_FULL');
    await tick();
    writes[0].done();
    await big;
    void queue.push(new Uint8Array(60));
    assert.equal(await code(queue.push(new Uint8Array(60))), 'QUEUE_FULL');
    assert.equal(await code(Promise.race([queue.push(new Uint8Array(40)), tick().then(() => 'pending')])), 'ok');
  });

  it('passes a write failure to that frame only and goes on with the next', async () => {
    const { queue, writes } = gatedQueue(4);
    const first = queue.push(Uint8Array.of(1));
    const second = queue.push(Uint8Array.of(2));
    await tick();
    writes[0].fail(new Error('link hiccup'));
    assert.equal(await code(first), 'Error: link hiccup');
    await tick();
    writes[1].done();
    assert.equal(await code(second), 'ok');
  });

  it('fails everything pending exactly once on fail(), ignores the late outcome, and refuses afterwards', async () => {
    const { queue, writes } = gatedQueue(4);
    const pending = [1, 2, 3].map((n) => code(queue.push(Uint8Array.of(n))));
    await tick();
    queue.fail(new RadioError('PEER_LOST', 'gone'));
    writes[0].done(); // the link reports success after the peer was declared lost
    assert.deepEqual(await Promise.all(pending), ['PEER_LOST', 'PEER_LOST', 'PEER_LOST']);
    assert.equal(await code(queue.push(Uint8Array.of(4))), 'PEER_LOST');
    assert.equal(writes.length, 1, 'nothing further was written');
    assert.equal(queue.depth, 0);
  });

  it('turns a write function that throws synchronously into a rejected frame', async () => {
    const queue = new PeerWriteQueue({
      peerId: 'p1',
      limit: 2,
      byteLimit: 1024,
      write: () => {
        throw new Error('sync throw');
      },
    });
    assert.equal(await code(queue.push(Uint8Array.of(1))), 'Error: sync throw');
    assert.equal(queue.depth, 0);
  });
});
