/**
 * `clawling hub tail` against a hub that floods it (`npm run test:flood`; its own suite because it moves 200 000
 * messages): a dev hub told to ignore its own flow control (no replay throttle, no send-buffer limit, no unacked
 * window) holds FLOOD_MESSAGES messages (default 200 000) for the tail's device, put there by a real second client, and
 * writes them all at once when the tail connects. The tail runs as its own process with the Node flags of the
 * shipped systemd unit (48 MB old space). What must hold: the process lives, its peak RSS (VmHWM) stays under
 * 160 MB, it prints every message, and the hub's cursor for the device says every one was acked.
 */
import assert from 'node:assert/strict';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { shippedNodeFlags } from '../support/systemd-unit';
import { askChild } from '../support/child-ask';
import { vmHwmMb } from '../support/peak-rss';

const COUNT = Number(process.env.FLOOD_MESSAGES ?? 200_000);
const RSS_LIMIT_MB = 160;
const TAIL = { id: 'usr_flood_tail', token: 'flood-tail-token' };
const SENDER = { id: 'usr_flood_sender', token: 'flood-sender-token' };
const CHAT = 'cnv_flood';
const DEVICE = 'dev-flood-tail';

interface HubChild {
  child: ChildProcess;
  ask<T>(message: Record<string, unknown>, answer: string): Promise<T>;
}

async function startHub(): Promise<HubChild & { url: string }> {
  const options = {
    users: [TAIL, SENDER],
    chats: [{ id: CHAT, members: [TAIL.id, SENDER.id] }],
    // A hostile hub: everything it holds goes out as fast as the socket takes it, however far the client is behind.
    settings: {
      replay_throttle: 100_000_000,
      unacked_window_max: 100_000_000,
      send_buffer_max_bytes: 2 ** 40,
      retention: { max_rows_per_user: COUNT * 2 },
    },
  };
  const child = fork(path.join(__dirname, '..', 'support', 'flood-hub-child.js'), [JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const asked = askChild(() => child);
  const ask = <T>(message: Record<string, unknown>, answer: string): Promise<T> => asked<T>(Object.keys(message).length > 0 ? message : undefined, answer);
  const { url } = await ask<{ url: string }>({}, 'ready');
  return { child, url, ask };
}

describe(`clawling hub tail flooded with ${COUNT} messages by a hostile hub, at the systemd unit's Node flags`, function () {
  this.timeout(15 * 60_000);
  let hub: HubChild & { url: string };
  let tail: ChildProcess | undefined;

  before(async () => {
    hub = await startHub();
  });
  after(async () => {
    tail?.kill('SIGKILL');
    hub.child.send({ type: 'stop' });
    await new Promise((r) => hub.child.once('exit', r));
  });

  it('lives, stays under 160 MB of RSS, prints every message and acks every one', async () => {
    const seeded = await hub.ask<{ acked: number; ms: number; lastSeq: number; error?: string }>(
      { type: 'seed', token: SENDER.token, deviceId: 'dev-flood-sender', chatId: CHAT, count: COUNT, recipient: TAIL.id },
      'seeded',
    );
    assert.equal(seeded.error, undefined);
    assert.equal(seeded.acked, COUNT);
    console.log(`      seeded ${COUNT} messages through a second client in ${(seeded.ms / 1000).toFixed(1)} s`);

    const flags = shippedNodeFlags();
    const script = path.join(__dirname, '..', '..', 'cli', 'clawling.js');
    const t0 = Date.now();
    tail = spawn(process.execPath, [...flags, script, 'hub', 'tail', '--url', hub.url, '--token-env', 'FLOOD_TOKEN', '--user-id', TAIL.id, '--device-id', DEVICE], {
      env: { PATH: process.env.PATH ?? '', FLOOD_TOKEN: TAIL.token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pid = tail.pid!;
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => tail!.once('exit', (code, signal) => resolve({ code, signal })));
    let ended = false;
    void exit.then(() => (ended = true));
    let stderr = '';
    tail.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const ids = new Set<string>();
    let rest = '';
    tail.stdout!.on('data', (c: Buffer) => {
      const text = rest + c.toString();
      const lines = text.split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{"event":"message.send"')) continue;
        const m = /"message_id":"(msg-flood-[^"]+)"/.exec(line);
        if (m) ids.add(m[1]!);
      }
    });
    let peak = 0;
    let cursor = 0;
    while (!ended) {
      peak = Math.max(peak, vmHwmMb(pid) || 0);
      ({ cursor } = await hub.ask<{ cursor: number }>({ type: 'cursor', userId: TAIL.id, deviceId: DEVICE }, 'cursor'));
      if (ids.size === COUNT && cursor >= seeded.lastSeq) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = (Date.now() - t0) / 1000;
    peak = Math.max(peak, vmHwmMb(pid) || 0);
    assert.equal(ended, false, `the tail process ended: ${stderr}`);
    tail.kill('SIGTERM');
    const result = await exit;
    tail = undefined;
    console.log(
      `      tail: ${ids.size} messages printed and acked in ${seconds.toFixed(1)} s (${(COUNT / seconds).toFixed(0)} msg/s), peak RSS ${peak.toFixed(1)} MB, flags ${flags.join(' ')}`,
    );
    assert.deepEqual(result, { code: 0, signal: null }, stderr);
    assert.equal(ids.size, COUNT, 'every message printed');
    assert.ok(cursor >= seeded.lastSeq, `the hub's cursor ${cursor} reached the last seq ${seeded.lastSeq}`);
    assert.ok(peak < RSS_LIMIT_MB, `peak RSS ${peak.toFixed(1)} MB < ${RSS_LIMIT_MB} MB`);
  });
});
