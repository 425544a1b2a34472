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
  it('says, after a refusal, how much room each finished write leaves, until the queue has run empty', async () => {
    const writes: Gate[] = [];
    const spaces: number[] = [];
    const queue = new PeerWriteQueue({
      peerId: 'p1',
      limit: 2,
      byteLimit: 1 << 20,
      write: (frame) => new Promise<void>((done, fail) => writes.push({ frame, done, fail })),
      onSpace: (free) => spaces.push(free),
    });
    const accepted = [queue.push(Uint8Array.of(1)), queue.push(Uint8Array.of(2))];
    await tick();
    writes[0]!.done();
    await tick();
    assert.deepEqual(spaces, [], 'no refusal yet: nothing to say');
    accepted.push(queue.push(Uint8Array.of(3)));
    assert.equal(await code(queue.push(Uint8Array.of(4))), 'QUEUE_FULL');
    writes[1]!.done();
    await tick();
    assert.deepEqual(spaces, [1]);
    writes[2]!.done();
    await tick();
    assert.deepEqual(spaces, [1, 2], 'the last write leaves it empty');
    accepted.push(queue.push(Uint8Array.of(5)));
    await tick();
    writes[3]!.done();
    await tick();
    assert.deepEqual(spaces, [1, 2], 'no refusal since it ran empty: nothing more');
    await Promise.all(accepted);
  });

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

  describe('with writeMany (a link that takes several frames in one write)', () => {
    interface Batch {
      frames: number[];
      done: (outcomes?: unknown[]) => void;
      fail: (err: Error) => void;
    }
    function batchedQueue(limit: number, writeManyBytes?: number): { queue: PeerWriteQueue; singles: Gate[]; batches: Batch[] } {
      const singles: Gate[] = [];
      const batches: Batch[] = [];
      const queue = new PeerWriteQueue({
        peerId: 'p1',
        limit,
        byteLimit: 1 << 20,
        write: (frame) => new Promise<void>((done, fail) => singles.push({ frame, done, fail })),
        writeMany: (frames) => new Promise((done, fail) => batches.push({ frames: frames.map((f) => f[0]!), done: (o) => done(o), fail })),
        ...(writeManyBytes !== undefined ? { writeManyBytes } : {}),
      });
      return { queue, singles, batches };
    }

    it('hands everything that waited behind a write to one writeMany, in order, each frame settling with it', async () => {
      const { queue, singles, batches } = batchedQueue(8);
      const done: number[] = [];
      const all = [1, 2, 3, 4].map((n) => queue.push(Uint8Array.of(n)).then(() => done.push(n)));
      await tick();
      assert.equal(singles.length, 1, 'the first frame goes alone');
      assert.equal(batches.length, 0, 'nothing else while it is written');
      singles[0]!.done();
      await tick();
      assert.deepEqual(batches.map((b) => b.frames), [[2, 3, 4]]);
      assert.equal(queue.depth, 3, 'a batch in flight still counts against the limit');
      batches[0]!.done();
      await Promise.all(all);
      assert.deepEqual(done, [1, 2, 3, 4]);
      assert.equal(queue.depth, 0);
      assert.equal(queue.bytes, 0);
    });

    it('fails every frame of a failed writeMany, and only the refused one when it reports per frame', async () => {
      const { queue, singles, batches } = batchedQueue(8);
      void queue.push(Uint8Array.of(1));
      const a = [2, 3].map((n) => code(queue.push(Uint8Array.of(n))));
      await tick();
      singles[0]!.done();
      await tick();
      batches[0]!.fail(new RadioError('WRITE_FAILED', 'line gone'));
      assert.deepEqual(await Promise.all(a), ['WRITE_FAILED', 'WRITE_FAILED']);

      void queue.push(Uint8Array.of(4));
      const b = [5, 6, 7].map((n) => code(queue.push(Uint8Array.of(n))));
      await tick();
      singles[1]!.done();
      await tick();
      batches[1]!.done([undefined, new RadioError('FRAME_TOO_LARGE', 'too big for the device'), undefined]);
      assert.deepEqual(await Promise.all(b), ['ok', 'FRAME_TOO_LARGE', 'ok']);
    });

    it('takes at most writeManyBytes in one write (always one frame), the rest in the next', async () => {
      const { queue, singles, batches } = batchedQueue(8, 2);
      void queue.push(Uint8Array.of(1));
      const rest = [2, 3, 4].map((n) => queue.push(Uint8Array.of(n)));
      await tick();
      singles[0]!.done();
      await tick();
      assert.deepEqual(batches.map((b) => b.frames), [[2, 3]]);
      batches[0]!.done();
      await tick();
      assert.equal(singles.length, 2, 'the one frame left goes through write');
      assert.equal(singles[1]!.frame[0], 4);
      singles[1]!.done();
      await Promise.all(rest);
    });

    it('fail() rejects a batch in flight and ignores its late outcome', async () => {
      const { queue, singles, batches } = batchedQueue(8);
      void queue.push(Uint8Array.of(1)).catch(() => undefined);
      const waiting = [2, 3].map((n) => code(queue.push(Uint8Array.of(n))));
      await tick();
      singles[0]!.done();
      await tick();
      queue.fail(new RadioError('PEER_LOST', 'gone'));
      batches[0]!.done();
      assert.deepEqual(await Promise.all(waiting), ['PEER_LOST', 'PEER_LOST']);
      assert.equal(queue.depth, 0);
    });
  });

  it('QUEUE_FULL is still a coded RadioError with its facts, only without a stack', async () => {
    const { queue } = gatedQueue(1);
    void queue.push(Uint8Array.of(1));
    const err = await queue.push(Uint8Array.of(2)).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof RadioError);
    assert.equal(err.code, 'QUEUE_FULL');
    assert.match(err.message, /write queue of peer p1 is full \(1 frames, 1 bytes\)/);
    assert.deepEqual(err.details, { peerId: 'p1', depth: 1, bytes: 1, limit: 1, byteLimit: 1 << 20 });
    assert.ok(!String(err.stack).includes('peer-write-queue'), 'no stack frames');
    assert.ok(Error.stackTraceLimit > 0, 'the global stack limit is restored');
  });
});
