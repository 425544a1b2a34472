import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevHub } from '../../devhub';
import { BASE_OPTIONS, login, sendMessage, textOf } from './support';

describe('devhub state file', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'devhub-state-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps inboxes, cursors and watermarks across a restart of the hub', async () => {
    const options = { ...BASE_OPTIONS, state_file: path.join(dir, 'state.json') };
    const first = await startDevHub(options);
    const alice = await login(first, 'ta', { device_id: 'phone' });
    const bob = await login(first, 'tb', { device_id: 'p' });
    sendMessage(alice, 'chat-ab', 'seen');
    await bob.event('message.send');
    await bob.barrier();
    bob.ws.terminate();
    sendMessage(alice, 'chat-ab', 'while bob was away');
    await alice.event('message.ack');
    await alice.event('message.ack');
    alice.send({ version: '2', event: 'message.read', trace_id: 'r', emitted_at: 1, chat_id: 'chat-ab', payload: { last_read_emitted_at: Date.now() } });
    await alice.barrier();
    alice.ws.terminate();
    await first.stop();

    const second = await startDevHub(options);
    try {
      assert.deepEqual(second.admin.inbox('usr_b').map((r) => textOf(r.frame)), ['seen', 'while bob was away']);
      const again = await login(second, 'tb', { device_id: 'p' });
      assert.deepEqual(again.replay.filter((f) => f.event === 'message.send').map(textOf), ['while bob was away']);
      assert.ok(second.admin.readWatermarks('usr_a')['chat-ab'] > 0);
      again.ws.terminate();
      const fresh = await login(second, 'ta', { device_id: 'tablet' });
      sendMessage(fresh, 'chat-ab', 'after restart');
      const ack = await fresh.event('message.ack');
      const rows = second.admin.inbox('usr_b');
      assert.equal(rows.at(-1)!.message_id, ack.payload.message_id);
      assert.ok(rows.at(-1)!.seq > rows[0].seq, 'the seq counter continues after the restart');
      fresh.ws.terminate();
    } finally {
      await second.stop();
    }
  });

  it('refuses a file that is not a dev hub state file', async () => {
    fs.writeFileSync(path.join(dir, 'state.json'), '{"format":"other"}');
    await assert.rejects(startDevHub({ state_file: path.join(dir, 'state.json') }), { code: 'DEVHUB_STATE_INVALID' });
  });
});
