/**
 * A hub backlog replayed into the gateway at the systemd unit's Node flags: a dev hub in its own process holds
 * BENCH_REPLAY_MESSAGES (default 40 000) messages for the gateway's device, put there by a real second client, and
 * ignores its own flow control (no replay throttle, no send-buffer limit), so the whole backlog comes at once when
 * the gateway starts. The gateway is `clawling gateway` as the unit starts it (the words of its `ExecStart=`, read
 * from the unit file), with the hub bridge on and one hub → mesh rule to a simulated phone.
 *
 * Prints how long until the hub's cursor for the gateway's device covered the backlog (received, stored, acked) and
 * until every message reached the mesh ACKed by the phone, the rates, the gateway's peak RSS (VmHWM) and its exit
 * code on SIGTERM. Exits non-zero if the gateway process dies. `bench/gateway.bench.ts` calls it last; alone:
 * `node dist/bench/gateway-hub-replay.bench.js`.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { runWhenMain } from './child-ipc';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { identityFromSeed } from '../gateway/radios/mesh-identity';
import { shippedNodeFlags } from '../test/support/systemd-unit';
import { askChild } from '../test/support/child-ask';
import { vmHwmMb } from '../test/support/peak-rss';

const GATEWAY = { id: 'agt_replay_gateway', token: 'replay-gateway-token' };
const SENDER = { id: 'usr_replay_sender', token: 'replay-sender-token' };
const CHAT = 'cnv_01J0000000000000000000RPLY';
const DEVICE = 'dev-replay-gateway';

export interface ReplayFigures {
  messages: number;
  ackedSeconds: number;
  meshSeconds: number;
  peakRssMb: number;
  exitCode: number | null;
}

function getText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

function metric(text: string, name: string, label: string): number {
  let total = 0;
  for (const line of text.split('\n')) if (line.startsWith(name) && line.includes(label)) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

export async function benchHubReplay(messages = Number(process.env.BENCH_REPLAY_MESSAGES ?? 40_000), print = (line: string) => console.log(line)): Promise<ReplayFigures> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-replay-bench-'));
  const options = {
    users: [GATEWAY, SENDER],
    chats: [{ id: CHAT, members: [GATEWAY.id, SENDER.id] }],
    settings: { replay_throttle: 100_000_000, unacked_window_max: 100_000_000, send_buffer_max_bytes: 2 ** 40, retention: { max_rows_per_user: messages * 2 } },
  };
  const hub = fork(path.join(__dirname, '..', 'test', 'support', 'flood-hub-child.js'), [JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = askChild(() => hub);
  let gw: ChildProcess | undefined;
  try {
    const { url } = await ask<{ url: string }>(undefined, 'ready');
    const seeded = await ask<{ acked: number; lastSeq: number; error?: string }>(
      { type: 'seed', token: SENDER.token, deviceId: 'dev-replay-sender', chatId: CHAT, count: messages, recipient: GATEWAY.id },
      'seeded',
    );
    if (seeded.error) throw new Error(seeded.error);

    const phone = identityFromSeed('clawling-sim:sim0:phone').address;
    const configFile = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(
      configFile,
      YAML.stringify({
        gateway: { id: 'replay-bench', state_dir: path.join(dir, 'state') },
        log: { level: 'info' },
        radios: [{ id: 'sim0', kind: 'simulated', queue_limit: 4096, peers: [{ id: 'phone', wire_versions: [1] }] }],
        mesh: { forward: false },
        mqtt: { enabled: false },
        http: { enabled: true, host: '127.0.0.1', port: 0 },
        hub: { enabled: true, url, token: GATEWAY.token, user_id: GATEWAY.id, device_id: DEVICE, hub_to_mesh: [{ chat_id: CHAT, recipient: phone }] },
      }),
    );
    const flags = shippedNodeFlags();
    const t0 = Date.now();
    const child = spawn(process.execPath, [...flags, path.join(__dirname, '..', 'cli', 'clawling.js'), 'gateway', '--config', configFile], {
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    gw = child;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const exited = new Promise<void>((resolve) =>
      child.once('exit', (code, signal) => {
        exit = { code, signal };
        resolve();
      }),
    );
    const statusUrl = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      child.stdout!.on('data', (c: Buffer) => {
        buffered += c.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'status page listening' && entry.url) resolve(entry.url);
        }
      });
      void exited.then(() => reject(new Error(`the gateway ended before listening: ${JSON.stringify(exit)}`)));
    });
    let peak = 0;
    let ackedAt: number | undefined;
    let meshAt: number | undefined;
    let delivered = 0;
    let failed = 0;
    while (!exit && meshAt === undefined) {
      peak = Math.max(peak, vmHwmMb(child.pid!) || 0);
      const { cursor } = await ask<{ cursor: number }>({ type: 'cursor', userId: GATEWAY.id, deviceId: DEVICE }, 'cursor');
      if (ackedAt === undefined && cursor >= seeded.lastSeq) ackedAt = Date.now();
      const text = await getText(`${statusUrl}/metrics`).catch(() => '');
      delivered = metric(text, 'clawling_gateway_hub_bridged_total', 'direction="hub_to_mesh"');
      failed = metric(text, 'clawling_gateway_hub_to_mesh_failed_total', '');
      if (ackedAt !== undefined && delivered + failed >= messages) meshAt = Date.now();
      else await new Promise((r) => setTimeout(r, 250));
    }
    peak = Math.max(peak, vmHwmMb(child.pid!) || 0);
    if (exit) throw new Error(`the gateway process died during the replay (${JSON.stringify(exit)}), peak RSS ${peak.toFixed(1)} MB`);
    child.kill('SIGTERM');
    await exited;
    gw = undefined;
    const figures: ReplayFigures = { messages, ackedSeconds: (ackedAt! - t0) / 1000, meshSeconds: (meshAt! - t0) / 1000, peakRssMb: peak, exitCode: exit!.code };
    print(`hub replay into the gateway (${messages} messages waiting on a hub that ignores flow control; gateway as the systemd unit starts it: ${flags.join(' ')})`);
    print(`  all received, stored and acked to the hub   ${figures.ackedSeconds.toFixed(1).padStart(6)} s   ${(messages / figures.ackedSeconds).toFixed(0).padStart(6)} msg/s`);
    print(`  all delivered into the mesh (phone ACKs)    ${figures.meshSeconds.toFixed(1).padStart(6)} s   ${(messages / figures.meshSeconds).toFixed(0).padStart(6)} msg/s   (${delivered} delivered, ${failed} given up or dropped)`);
    print(`  gateway peak RSS (VmHWM) ${figures.peakRssMb.toFixed(1)} MB; exit code on SIGTERM ${figures.exitCode}`);
    return figures;
  } finally {
    gw?.kill('SIGKILL');
    hub.send({ type: 'stop' });
    await new Promise((r) => hub.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runWhenMain(module, benchHubReplay);
