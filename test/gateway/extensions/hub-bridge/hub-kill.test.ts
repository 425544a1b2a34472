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
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { toCrockfordBase32 } from '../../../../lib/bytes';
import { startDevHub, type DevHub } from '../../../../devhub';
import { startBroker, type TestBroker } from '../../support/broker';
import { BASE, tempDir } from '../../support/gateway';
import { driveThroughKills, killRunId } from '../../support/kill-driver';
import { CHAT, GATEWAY_TOKEN, GATEWAY_USER, TESTER, TESTER_TOKEN } from './support/hub-site';

const TOTAL = 5000;
const KILLS = 10;
const WINDOW = 400;
const RESEND_AFTER_MS = 1500;

const ID_PREFIX = 'hubkill!';

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
    const hubHas = new Set<string>();
    let uplinks = 0;
    hub.admin.on('uplink', (u) => {
      const id = (u.frame?.payload as { message_id?: unknown } | undefined)?.message_id;
      if (u.event !== 'message.send' || typeof id !== 'string') return;
      uplinks += 1;
      hubHas.add(id);
    });
    const early: number[] = [];
    const { kills } = await driveThroughKills({
      configFile,
      total: TOTAL,
      kills: KILLS,
      window: WINDOW,
      resendAfterMs: RESEND_AFTER_MS,
      idPrefix: ID_PREFIX,
      appId: 'hub-kill-test',
      jitter: (k) => (k * 53) % 120,
      onSpawn: (c) => (child = c),
      onAck: (i, id) => {
        if (!hubHas.has(`msg-${toCrockfordBase32(id.bytes)}`)) early.push(i);
      },
    });
    assert.equal(kills, KILLS);
    assert.deepEqual(early, [], 'no ACK before the hub had the message');
    const rows = hub.admin.inbox(TESTER);
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.message_id, (counts.get(r.message_id) ?? 0) + 1);
    const missing = [...Array(TOTAL).keys()].filter((i) => !counts.has(`msg-${toCrockfordBase32(killRunId(ID_PREFIX, i).bytes)}`));
    assert.deepEqual(missing, [], 'every message reached the hub');
    assert.equal(counts.size, TOTAL, 'nothing but these messages');
    assert.ok([...counts.values()].every((n) => n === 1), 'each exactly once by id');
    const atBroker = new Set<string>();
    for (const p of broker.published) if (p.topic === `${BASE}/messages`) atBroker.add((JSON.parse(p.payload.toString()) as { id: string }).id);
    assert.equal(atBroker.size, TOTAL, 'and every message reached the broker');
    console.log(`      hub kill test: ${TOTAL} messages, ${kills} SIGKILLs, ${uplinks} sends for ${counts.size} hub messages (one row each), 0 lost`);
  });
});
