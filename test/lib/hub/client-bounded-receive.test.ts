/**
 * The receive path holds at most `receiveMaxFrames` received-but-unhandled frames (plus what the socket had already
 * read when reading paused), against a dev hub in its own process told to ignore its own flow control, so that it
 * writes a whole backlog as fast as the socket takes it. Every message is still reported and acked in the end.
 * The 200 000-message version with RSS at the systemd unit's Node flags is `npm run test:flood`.
 */
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { HubClient } from '../../../lib/hub';
import { MemoryStore } from '../../../lib/store';
import { askChild } from '../../support/child-ask';

const COUNT = 20_000;
const MAX_FRAMES = 64;
/** What ws may still hand over after the socket paused: the rest of the reads already taken from the kernel. */
const READ_SLACK = 1024;
const TAIL = { id: 'usr_bounded_rx', token: 'bounded-rx-token' };
const SENDER = { id: 'usr_bounded_tx', token: 'bounded-tx-token' };
const CHAT = 'cnv_bounded';

describe('HubClient: bounded receive backlog against a hub that ignores flow control', function () {
  this.timeout(120_000);
  let hub: ChildProcess;
  let url: string;
  const ask = askChild(() => hub);
  let client: HubClient | undefined;

  before(async () => {
    const options = {
      users: [TAIL, SENDER],
      chats: [{ id: CHAT, members: [TAIL.id, SENDER.id] }],
      settings: { replay_throttle: 100_000_000, unacked_window_max: 100_000_000, send_buffer_max_bytes: 2 ** 40, retention: { max_rows_per_user: 1_000_000 }, ping_interval_ms: 0 },
    };
    hub = fork(path.join(__dirname, '..', '..', 'support', 'flood-hub-child.js'), [JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    ({ url } = await ask<{ url: string }>(undefined, 'ready'));
  });
  after(async () => {
    await client?.stop();
    hub.send({ type: 'stop' });
    await new Promise((r) => hub.once('exit', r));
  });

  it(`replays ${COUNT} messages with at most ${MAX_FRAMES} frames queued (plus one socket read), all reported and acked`, async () => {
    const seeded = await ask<{ acked: number; lastSeq: number; error?: string }>(
      { type: 'seed', token: SENDER.token, deviceId: 'dev-bounded-tx', chatId: CHAT, count: COUNT, recipient: TAIL.id },
      'seeded',
    );
    assert.equal(seeded.error, undefined);
    const deviceId = 'dev-bounded-rx';
    client = new HubClient({ url, token: TAIL.token, userId: TAIL.id, deviceId, store: new MemoryStore(), receiveMaxFrames: MAX_FRAMES, pingSilenceMs: 0 });
    const ids = new Set<string>();
    client.on('message', (m) => ids.add(m.messageId));
    client.start();
    for (;;) {
      const { cursor } = await ask<{ cursor: number }>({ type: 'cursor', userId: TAIL.id, deviceId }, 'cursor');
      if (ids.size === COUNT && cursor >= seeded.lastSeq) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const stats = client.stats();
    console.log(`      receive backlog peak ${stats.receivePeakBacklog} frames, ${stats.receiveSaturations} pauses`);
    assert.ok(stats.receiveSaturations > 0, 'the flood reached the limit and reading paused');
    assert.ok(stats.receivePeakBacklog <= MAX_FRAMES + READ_SLACK, `peak backlog ${stats.receivePeakBacklog}`);
    assert.equal(ids.size, COUNT);
  });
});
