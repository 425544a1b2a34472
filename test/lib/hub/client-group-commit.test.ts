/**
 * The outbox's group commit: sends are committed without waiting for the disk and synced off the event loop; a
 * send goes on the wire at once (the fsync and the hub's round trip overlap) but is reported `queued`, and its
 * answer, only once its fsync ended; a failed fsync refuses the sends the hub has not answered yet; rows of answered sends leave with a later commit, and one
 * whose removal a crash lost is sent again with the same ids. Real sqlite files, the dev hub over real sockets; the
 * store's `sync()` is held back by the test where it needs to see the moment before the disk answered.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HubError, OUTBOX_QUEUE } from '../../../lib/hub';
import { openStore, type Store } from '../../../lib/store';
import { ALICE, BOB, CHAT, collect, eventually, Harness, uplinks, when } from './support/harness';

/** Holds every `sync()` of `store` until the test lets it go on (to the real fsync) or fails it. */
function holdSyncs(store: Store): { calls(): number; release(): void; fail(err: Error): void } {
  const real = store.sync.bind(store);
  let calls = 0;
  let held: Array<{ resolve(): void; reject(err: Error): void }> = [];
  store.sync = () => {
    calls += 1;
    return new Promise<void>((resolve, reject) => held.push({ resolve: () => void real().then(resolve, reject), reject }));
  };
  return {
    calls: () => calls,
    release() {
      const now = held;
      held = [];
      for (const h of now) h.resolve();
    },
    fail(err) {
      const now = held;
      held = [];
      for (const h of now) h.reject(err);
    },
  };
}

describe('HubClient: outbox group commit', () => {
  const h = new Harness();
  let dir: string;
  const stores: Store[] = [];
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawling-group-commit-'));
    await h.start();
  });
  afterEach(async () => {
    await h.cleanup();
    for (const s of stores.splice(0)) s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const fileStore = (name: string): Store => {
    const s = openStore(path.join(dir, name));
    stores.push(s);
    return s;
  };

  it('puts sends on the wire while their fsync runs, but reports them queued, and answered, only once it ended', async () => {
    const store = fileStore('alice.sqlite');
    const gate = holdSyncs(store);
    const bob = await h.connected(h.client(BOB));
    const delivered = collect(bob, 'message');
    const alice = await h.connected(h.client(ALICE, { store }));
    const reported: string[] = [];
    alice.on('queued', (q) => reported.push(`queued ${q.messageId}`));
    alice.on('ack', (a) => reported.push(`ack ${a.messageId}`));
    const first = alice.send({ chatId: CHAT, text: 'one' });
    const second = alice.send({ chatId: CHAT, text: 'two' });
    await eventually(() => gate.calls() === 1, 3000, 'one commit for both');
    assert.equal(store.queue(OUTBOX_QUEUE).size(), 2, 'both rows are written');
    await eventually(() => delivered.length === 2, 5000, 'the hub took both while the fsync runs');
    // The rows of answered sends leave shortly after the answer: the hub's acks came before our disk's.
    await eventually(() => store.queue(OUTBOX_QUEUE).size() === 0, 3000, 'the answers');
    assert.deepEqual(reported, [], 'nothing is reported before the disk has it');
    assert.equal(alice.pendingSends().length, 0);

    const third = alice.send({ chatId: CHAT, text: 'three' });
    await eventually(() => gate.calls() === 2, 3000, 'the next commit');
    gate.release();
    await Promise.all([first, second, third]);
    const ids = [first.messageId, second.messageId, third.messageId];
    assert.deepEqual(reported, ids.flatMap((id) => [`queued ${id}`, `ack ${id}`]), 'queued before its answer, each in order');
    assert.deepEqual(
      uplinks(h, ALICE.id, 'message.send').map((f) => f.payload.message_id),
      ids,
      'on the wire in order, once each',
    );
    assert.deepEqual(delivered.map((m) => m.messageId), ids);
  });

  it('refuses a send whose fsync failed before the hub answered, and keeps one the hub already took', async () => {
    const store = fileStore('alice.sqlite');
    const gate = holdSyncs(store);
    const alice = await h.connected(h.client(ALICE, { store }));
    const warnings = collect(alice, 'warning');
    const acks = collect(alice, 'ack');
    h.hub.admin.withholdAcks({ user_id: ALICE.id, count: 1 });
    const lost = alice.send({ chatId: CHAT, text: 'the disk said no', tag: 'lost' });
    await eventually(() => gate.calls() === 1, 3000, 'the commit');
    await eventually(() => uplinks(h, ALICE.id, 'message.send').length === 1, 3000, 'on the wire');
    gate.fail(new Error('EIO: i/o error, fsync'));
    await assert.rejects(lost, (e: unknown) => e instanceof HubError && e.code === 'STORE_FAILED' && e.details?.durable === false && e.details?.tag === 'lost');
    assert.equal(await lost.queued, undefined);
    assert.deepEqual(warnings.map((w) => w.code), ['STORE_FAILED']);
    assert.equal(alice.pendingSends().length, 0);
    assert.equal(store.queue(OUTBOX_QUEUE).size(), 0, 'its row was dropped');

    // The hub answers this one before the disk fails: the hub has it, which no local failure can undo.
    const kept = alice.send({ chatId: CHAT, text: 'the hub has it' });
    await eventually(() => gate.calls() === 2, 3000, 'the next commit');
    await eventually(() => store.queue(OUTBOX_QUEUE).size() === 0, 3000, 'the answer');
    gate.fail(new Error('EIO: i/o error, fsync'));
    const ack = await kept;
    assert.equal(ack.messageId, kept.messageId);
    assert.equal((await kept.queued)?.messageId, kept.messageId);
    assert.deepEqual(acks.map((a) => a.messageId), [kept.messageId], 'the refused send stays unanswered, whatever the hub says later');
  });

  it('removes the rows of answered sends with the next commit, or shortly on their own', async () => {
    const store = fileStore('alice.sqlite');
    const alice = await h.connected(h.client(ALICE, { store }));
    const outbox = store.queue(OUTBOX_QUEUE);
    const sizeAtAck: number[] = [];
    alice.on('ack', () => sizeAtAck.push(outbox.size()));
    await alice.send({ chatId: CHAT, text: 'first' });
    const second = alice.send({ chatId: CHAT, text: 'second' });
    await second.queued;
    assert.deepEqual(outbox.peek().map((r) => JSON.parse(String(r.value)).messageId), [second.messageId], 'the first row went with the second commit');
    await second;
    assert.deepEqual(sizeAtAck, [1, 1], 'still there when the ack is reported');
    await eventually(() => outbox.size() === 0, 3000, 'the lone removal');
  });

  it('sends an answered send again with the same ids when a crash lost its removal, and hears the answer again', async () => {
    const file = path.join(dir, 'crash.sqlite');
    const bob = await h.connected(h.client(BOB));
    const seen = collect(bob, 'message');
    const child = spawn(process.execPath, [path.join(__dirname, 'support', 'ack-kill-child.js'), h.hub.wsUrl, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', () => resolve());
    });
    assert.equal(child.signalCode, 'SIGKILL');
    const m = /^acked (\S+) (\S+)$/m.exec(out);
    assert.ok(m, `the child reported its ack (${out})`);
    const [, messageId, traceId] = m;

    const store = fileStore('crash.sqlite');
    const revived = h.client(ALICE, { store, deviceId: 'usr_alice-ack-kill' });
    assert.deepEqual(revived.pendingSends().map((e) => [e.messageId, e.traceId]), [[messageId, traceId]], 'the row outlived the crash');
    const acks = collect(revived, 'ack');
    await h.connected(revived);
    await when(revived, ['ack'], () => acks.length === 1);
    assert.deepEqual([acks[0].messageId, acks[0].traceId], [messageId, traceId]);
    const wire = uplinks(h, ALICE.id, 'message.send').filter((f) => f.payload.message_id === messageId);
    assert.equal(wire.length, 2, 'sent twice, byte for byte the same ids');
    assert.ok(wire.every((f) => f.trace_id === traceId));
    await bob.idle();
    assert.equal(seen.filter((x) => x.messageId === messageId).length, 1, 'one message for the recipient');
    await eventually(() => store.queue(OUTBOX_QUEUE).size() === 0, 3000, 'the row removed this time');
  });
});
