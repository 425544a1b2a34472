/**
 * The gateway with the hub bridge and MQTT, killed with SIGKILL 10 times during a 5 000-message flow (a child process
 * with its sqlite state folder; the dev hub and aedes live in this process and outlive every kill).
 *
 * This test plays the sending phone: it keeps 400 messages outstanding and resends whatever waited too long without
 * its ACK, across every kill, as a mesh node does. The gateway ACKs a message only once both the broker (PUBACK) and
 * the hub (`message.ack`) have it. Afterwards:
 * - every message is at the hub exactly once by id (one inbox row per `msg-` id, no other rows) and at the broker;
 * - no ACK ever reached the phone before the hub had received the message.
 */
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { toCrockfordBase32 } from '../../../lib/bytes';
import { encodeFrame } from '../../../lib/mesh/frame';
import { createMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { identityFromSeed } from '../../../gateway/radios';
import { startDevHub, type DevHub } from '../../../devhub';
import { startBroker, type TestBroker } from '../support/broker';
import { BASE, tempDir } from '../support/gateway';
import { CHAT, GATEWAY_TOKEN, GATEWAY_USER, TESTER, TESTER_TOKEN } from './support/hub-site';

const TOTAL = 5000;
const KILLS = 10;
const WINDOW = 400;
const RESEND_AFTER_MS = 1500;

function meshId(i: number): MessageId {
  const bytes = Buffer.alloc(16);
  bytes.write('hubkill!', 0, 'latin1');
  bytes.writeUInt32BE(i, 12);
  bytes[6] = 0x40 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  return MessageId.fromBytes(bytes);
}

describe('gateway with the hub bridge under SIGKILL (child process, dev hub, aedes)', function () {
  this.timeout(180000);
  let hub: DevHub;
  let broker: TestBroker;
  let dir: string;
  let child: ChildProcess | undefined;

  before(async () => {
    hub = await startDevHub({
      users: [
        { id: GATEWAY_USER, token: GATEWAY_TOKEN },
        { id: TESTER, token: TESTER_TOKEN },
      ],
      chats: [{ id: CHAT, members: [GATEWAY_USER, TESTER] }],
    });
    broker = await startBroker();
    dir = tempDir('gw-hub-kill-');
  });
  after(async () => {
    child?.kill('SIGKILL');
    await hub.stop();
    await broker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`brings ${TOTAL} messages to the hub exactly once by id, none lost, through ${KILLS} kills`, async () => {
    const configFile = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(
      configFile,
      YAML.stringify({
        gateway: { id: 'gw-test', state_dir: path.join(dir, 'state') },
        log: { level: 'silent' },
        radios: [{ id: 'sim0', kind: 'simulated', queue_limit: 4096, peers: [{ id: 'src', wire_versions: [1], auto_ack: false }] }],
        mesh: { forward: false },
        mqtt: { url: broker.url, reconnect_min_ms: 20, reconnect_max_ms: 100, inflight: 64, homeassistant: { enabled: false } },
        http: { enabled: false },
        hub: {
          enabled: true,
          url: hub.wsUrl,
          token: GATEWAY_TOKEN,
          user_id: GATEWAY_USER,
          reconnect_min_ms: 20,
          reconnect_max_ms: 100,
          mesh_to_hub: [{ chat_id: CHAT, label: 'none' }],
        },
      }),
    );
    const sender = identityFromSeed('clawling-sim:sim0:src').address;
    // The same support child as the MQTT kill test: the real runGateway, its peer `src` driven over IPC.
    const script = path.join(__dirname, '..', 'support', 'kill-child.js');

    const hubHas = new Set<string>();
    let uplinks = 0;
    hub.admin.on('uplink', (u) => {
      const id = (u.frame?.payload as { message_id?: unknown } | undefined)?.message_id;
      if (u.event !== 'message.send' || typeof id !== 'string') return;
      uplinks += 1;
      hubHas.add(id);
    });
    const frames = new Map<number, string>();
    let address = '';
    const frameFor = (i: number): string => {
      let f = frames.get(i);
      if (f === undefined) {
        const m = createMessage({
          id: meshId(i),
          sender,
          recipient: address,
          app_id: 'hub-kill-test',
          priority: 'medium',
          ttl: 8,
          hop_count: 0,
          timestamp: BigInt(1_700_000_000_000 + i),
          content: `message ${i}`,
        });
        f = Buffer.from(encodeFrame(m, 'binary')).toString('base64');
        frames.set(i, f);
      }
      return f;
    };

    const acked = new Set<number>();
    const outstanding = new Map<number, number>();
    const early: number[] = [];
    let next = 0;
    let kills = 0;
    let ready = false;
    const killAt = Array.from({ length: KILLS }, (_, k) => Math.round(((k + 1) * TOTAL) / (KILLS + 1)) + ((k * 53) % 120));
    let finish: () => void = () => undefined;
    let fail: (err: Error) => void = () => undefined;
    const finished = new Promise<void>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });

    const pump = (): void => {
      if (!ready || !child) return;
      const now = Date.now();
      const batch: string[] = [];
      for (const [i, at] of outstanding) {
        if (now - at <= RESEND_AFTER_MS) continue;
        batch.push(frameFor(i));
        outstanding.set(i, now);
      }
      while (outstanding.size < WINDOW && next < TOTAL) {
        batch.push(frameFor(next));
        outstanding.set(next, now);
        next += 1;
      }
      if (batch.length > 0) child.send({ type: 'frames', frames: batch });
    };

    const spawn = (): void => {
      ready = false;
      const c = fork(script, [configFile], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      child = c;
      // A gateway that ends by itself (not by our SIGKILL) is a failure, not something to wait out.
      c.once('exit', (code, signal) => {
        if (signal !== 'SIGKILL') fail(new Error(`the gateway ended by itself (code ${code}, signal ${signal})`));
      });
      c.on('message', (m: { type: string; address?: string; ids?: string[] }) => {
        if (m.type === 'ready') {
          address = m.address!;
          ready = true;
          // A restarted gateway knows nothing of what it was sent: resend everything still outstanding now.
          for (const i of outstanding.keys()) outstanding.set(i, 0);
          pump();
          return;
        }
        if (m.type !== 'acks') return;
        for (const id of m.ids!) {
          const i = Number.parseInt(id.replace(/-/g, '').slice(-8), 16);
          if (!hubHas.has(`msg-${toCrockfordBase32(meshId(i).bytes)}`)) early.push(i);
          acked.add(i);
          outstanding.delete(i);
        }
        if (acked.size === TOTAL) {
          finish();
          return;
        }
        if (kills < KILLS && acked.size >= killAt[kills]!) {
          kills += 1;
          ready = false;
          c.removeAllListeners('message');
          c.once('exit', () => spawn());
          c.kill('SIGKILL');
          return;
        }
        pump();
      });
    };
    const ticker = setInterval(pump, 200);
    spawn();
    try {
      await finished;
    } finally {
      clearInterval(ticker);
    }

    assert.equal(kills, KILLS);
    assert.deepEqual(early, [], 'no ACK before the hub had the message');
    const rows = hub.admin.inbox(TESTER);
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.message_id, (counts.get(r.message_id) ?? 0) + 1);
    const missing = [...Array(TOTAL).keys()].filter((i) => !counts.has(`msg-${toCrockfordBase32(meshId(i).bytes)}`));
    assert.deepEqual(missing, [], 'every message reached the hub');
    assert.equal(counts.size, TOTAL, 'nothing but these messages');
    assert.ok([...counts.values()].every((n) => n === 1), 'each exactly once by id');
    const atBroker = new Set<string>();
    for (const p of broker.published) if (p.topic === `${BASE}/messages`) atBroker.add((JSON.parse(p.payload.toString()) as { id: string }).id);
    assert.equal(atBroker.size, TOTAL, 'and every message reached the broker');
    console.log(`      hub kill test: ${TOTAL} messages, ${kills} SIGKILLs, ${uplinks} sends for ${counts.size} hub messages (one row each), 0 lost`);
  });
});
