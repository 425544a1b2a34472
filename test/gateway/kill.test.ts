/**
 * The gateway killed with SIGKILL 10 times during a 5 000-message flow (a child process with a state folder on disk).
 *
 * The sender (this test, playing the phone) resends every message it has no ACK for, as a mesh node does. The
 * gateway ACKs a message only after the broker's PUBACK and records every id it queued in the same transaction as
 * the queue entry. What must hold afterwards:
 * - every message reached the broker (none lost), and every ACK arrived only once its message was at the broker;
 * - by id, each message is there exactly once once a subscriber dedups by the id it carries; the raw repeats are
 *   only the publishes in flight at a kill (bounded by kills × `mqtt.inflight`), never a mesh resend queued twice.
 */
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { encodeFrame } from '../../lib/mesh/frame';
import { createMessage } from '../../lib/mesh/message';
import { MessageId } from '../../lib/mesh/message-id';
import { identityFromSeed } from '../../gateway/radios';
import { startBroker, type TestBroker } from './support/broker';
import { BASE, tempDir } from './support/gateway';

const TOTAL = 5000;
const KILLS = 10;
const WINDOW = 400;
const INFLIGHT = 32;
const RESEND_AFTER_MS = 700;

function idFor(i: number): string {
  const bytes = Buffer.alloc(16);
  bytes.writeUInt32BE(0x6b696c6c, 0);
  bytes.writeUInt32BE(i, 12);
  bytes[6] = 0x40 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  return MessageId.fromBytes(bytes).toString();
}

describe('gateway under SIGKILL (child process, state folder, aedes)', function () {
  this.timeout(120000);
  let broker: TestBroker;
  let dir: string;
  let child: ChildProcess | undefined;

  before(async () => {
    broker = await startBroker();
    dir = tempDir('gw-kill-');
  });
  after(async () => {
    child?.kill('SIGKILL');
    await broker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`delivers ${TOTAL} messages to MQTT, none lost and each once by id, through ${KILLS} kills`, async () => {
    const configFile = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(
      configFile,
      YAML.stringify({
        gateway: { id: 'gw-test', state_dir: path.join(dir, 'state') },
        log: { level: 'silent' },
        radios: [{ id: 'sim0', kind: 'simulated', queue_limit: 4096, peers: [{ id: 'src', wire_versions: [1], auto_ack: false }] }],
        mesh: { forward: false },
        mqtt: { url: broker.url, reconnect_min_ms: 20, reconnect_max_ms: 100, inflight: INFLIGHT, homeassistant: { enabled: false } },
        http: { enabled: false },
      }),
    );
    const sender = identityFromSeed('clawling-sim:sim0:src').address;
    const script = path.join(__dirname, 'support', 'kill-child.js');
    // The broker's log, read incrementally.
    const counts = new Map<string, number>();
    let read = 0;
    const published = (): Map<string, number> => {
      for (; read < broker.published.length; read += 1) {
        const p = broker.published[read]!;
        if (p.topic !== `${BASE}/messages`) continue;
        const id = (JSON.parse(p.payload.toString()) as { id: string }).id;
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    };
    const early: string[] = [];

    let address = '';
    const frames = new Map<number, string>();
    const acked = new Set<number>();
    const sentAt = new Map<number, number>();
    let ackedBeforePublish = 0;
    let next = 0;
    let kills = 0;
    const killAt = Array.from({ length: KILLS }, (_, k) => Math.round(((k + 1) * TOTAL) / (KILLS + 1)) + ((k * 37) % 90));
    let done: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (done = resolve));
    let ready = false;

    const frameFor = (i: number): string => {
      let f = frames.get(i);
      if (!f) {
        const m = createMessage({
          id: idFor(i),
          sender,
          recipient: address,
          app_id: 'kill-test',
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

    // The phone's outbox: keep WINDOW messages outstanding, resend what waited too long.
    const pump = (): void => {
      if (!ready || !child) return;
      const now = Date.now();
      const batch: string[] = [];
      for (const [i, at] of sentAt) if (now - at > RESEND_AFTER_MS) {
        batch.push(frameFor(i));
        sentAt.set(i, now);
      }
      while (sentAt.size < WINDOW && next < TOTAL) {
        batch.push(frameFor(next));
        sentAt.set(next, now);
        next += 1;
      }
      if (batch.length) child.send({ type: 'frames', frames: batch });
    };

    const spawn = (): void => {
      ready = false;
      const c = fork(script, [configFile], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      child = c;
      c.on('message', (m: { type: string; address?: string; ids?: string[] }) => {
        if (m.type === 'ready') {
          address = m.address!;
          ready = true;
          // A restarted gateway knows nothing of what it was sent before: resend everything outstanding now.
          for (const i of sentAt.keys()) sentAt.set(i, 0);
          pump();
          return;
        }
        if (m.type !== 'acks') return;
        const atBroker = published();
        for (const id of m.ids!) {
          const i = Number.parseInt(id.slice(-8), 16);
          if (!atBroker.has(id)) {
            ackedBeforePublish += 1;
            early.push(`${id}@kill${kills}`);
          }
          acked.add(i);
          sentAt.delete(i);
        }
        if (acked.size === TOTAL) {
          done();
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
    published();
    if (early.length) console.log('early', early.slice(0, 10));
    const missing = Array.from({ length: TOTAL }, (_, i) => idFor(i)).filter((id) => !counts.has(id));
    assert.deepEqual(missing, [], 'every message reached the broker');
    assert.equal(counts.size, TOTAL, 'nothing but these messages');
    assert.equal(ackedBeforePublish, 0, 'no ACK before the broker had the message');
    const repeats = [...counts.values()].reduce((a, n) => a + n - 1, 0);
    assert.ok(repeats <= KILLS * INFLIGHT, `${repeats} repeated publishes for ${KILLS} kills × ${INFLIGHT} in flight`);
    console.log(`      kill test: ${TOTAL} messages, ${kills} SIGKILLs, ${repeats} in-flight repeats at the broker, 0 lost, ${counts.size} distinct ids`);
  });
});
