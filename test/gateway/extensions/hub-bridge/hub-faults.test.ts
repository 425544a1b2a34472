/**
 * The hub bridge when the hub misbehaves: the connection dropped mid-stream (both directions, including a hard
 * terminate that loses frames in flight) and the hub down altogether for a while. Nothing may be lost and nothing
 * doubled: every mesh message is one hub message, every hub message reaches its mesh recipient once, and no mesh
 * ACK goes out while the hub cannot have the message.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ackTarget, isAck } from '../../../../lib/mesh/ack';
import { toCrockfordBase32 } from '../../../../lib/bytes';
import type { MeshMessage } from '../../../../lib/mesh/message';
import { startDevHub, type DevHub } from '../../../../devhub';
import type { HubBridge } from '../../../../gateway/extensions/hub-bridge/hub-bridge';
import type { VirtualPeer } from '../../../../gateway/radios';
import { Writable } from 'node:stream';
import { Gateway } from '../../../../gateway/gateway';
import { createLogger } from '../../../../gateway/logger';
import { eventually } from '../../support/broker';
import { testConfig } from '../../support/config';
import { TWO_RADIOS, startGateway, type Running } from '../../support/gateway';
import { CHAT, GATEWAY_TOKEN, GATEWAY_USER, TESTER, TESTER_TOKEN, Tester, hubSection } from './support/hub-site';

const hubIdOf = (m: MeshMessage): string => `msg-${toCrockfordBase32(m.id.bytes)}`;

function hubOptions(port = 0, stateFile?: string) {
  return {
    port,
    users: [
      { id: GATEWAY_USER, token: GATEWAY_TOKEN },
      { id: TESTER, token: TESTER_TOKEN },
    ],
    chats: [{ id: CHAT, members: [GATEWAY_USER, TESTER] }],
    ...(stateFile ? { state_file: stateFile } : {}),
  };
}

/** Every ACK a peer received, by the id it settles. */
function acksOf(peer: VirtualPeer): Set<string> {
  const out = new Set<string>();
  for (const m of peer.received()) if (isAck(m)) out.add(ackTarget(m)!);
  return out;
}

describe('hub bridge under hub faults (dev hub faults, restarts)', function () {
  this.timeout(60000);
  let hub: DevHub;
  let tester: Tester;
  let gw: Running;
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-faults-'));
  });
  afterEach(async () => {
    await gw?.stop();
    await tester?.stop();
    await hub?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const bridge = (): HubBridge => gw.gateway.extension<HubBridge>('hub-bridge')!;

  it('loses and doubles nothing when the hub drops the connection mid-stream, either way', async () => {
    hub = await startDevHub(hubOptions());
    tester = await Tester.connect(hub);
    gw = await startGateway(undefined, { hub: hubSection(hub) }, dir);
    await eventually(() => bridge().client.state === 'connected', 10000, 'bridge connected');
    const peers = [gw.peer('sim0', 'alice'), gw.peer('sim0', 'bob'), gw.peer('sim1', 'carol')];

    // Mesh → hub: 300 messages; the hub cuts the bridge off three times as they arrive, once losing frames in flight.
    const drops = new Map<number, 'terminate' | 'end' | 'close'>([
      [40, 'terminate'],
      [130, 'end'],
      [220, 'terminate'],
    ]);
    let uplinks = 0;
    const onUplink = (u: { user_id: string; event: string }): void => {
      if (u.user_id !== GATEWAY_USER || u.event !== 'message.send') return;
      uplinks += 1;
      const mode = drops.get(uplinks);
      if (mode) hub.admin.dropConnection({ user_id: GATEWAY_USER }, { mode });
    };
    hub.admin.on('uplink', onUplink);
    const sent: MeshMessage[] = [];
    for (let i = 0; i < 300; i++) sent.push(await peers[i % 3]!.say(`reading ${i}`));
    await eventually(() => sent.every((m) => acksOf(peers[sent.indexOf(m) % 3]!).has(m.id.toString())), 30000, 'every mesh message ACKed');
    hub.admin.off('uplink', onUplink);
    assert.ok(uplinks > 300, `the drops forced resends (${uplinks} uplinks for 300 messages)`);
    const rows = hub.admin.inbox(TESTER).filter((r) => r.chat_id === CHAT);
    const ids = sent.map(hubIdOf);
    assert.deepEqual(new Set(rows.map((r) => r.message_id)), new Set(ids), 'the hub has exactly these messages');
    assert.equal(rows.length, 300, 'one row each');
    await eventually(() => ids.every((id) => tester.byId(id).length > 0), 10000, 'the tester got them all');
    assert.ok(ids.every((id) => tester.byId(id).length === 1), 'each once at the tester');

    // Hub → mesh: 100 messages from the tester while the hub cuts the bridge off after some downlinks.
    const alice = peers[0]!;
    alice.clearReceived();
    hub.admin.dropConnection({ user_id: GATEWAY_USER }, { after_frames: 25, mode: 'terminate' });
    const hubIds: string[] = [];
    for (let i = 0; i < 100; i++) hubIds.push((await tester.client.send({ chatId: CHAT, text: `command ${i}` })).messageId);
    await eventually(() => new Set(alice.received().map((m) => m.metadata.get('hub_message_id'))).size >= 100, 30000, 'alice got every command');
    await bridge().whenToMeshEmpty();
    const got = alice.received().filter((m) => !isAck(m));
    assert.deepEqual(got.map((m) => m.metadata.get('hub_message_id')).sort(), [...hubIds].sort(), 'each command once, nothing else');
  });

  it('holds every mesh ACK while the hub is down and delivers each message once when it returns', async () => {
    const stateFile = path.join(dir, 'hub-state.json');
    hub = await startDevHub(hubOptions(0, stateFile));
    const port = Number(new URL(hub.wsUrl).port);
    tester = await Tester.connect(hub);
    gw = await startGateway(undefined, { hub: hubSection(hub) }, dir);
    await eventually(() => bridge().client.state === 'connected', 10000, 'bridge connected');
    const alice = gw.peer('sim0', 'alice');

    await hub.stop();
    await eventually(() => bridge().client.state === 'backoff', 10000, 'the bridge noticed');
    const sent: MeshMessage[] = [];
    for (let i = 0; i < 50; i++) sent.push(await alice.say(`while the hub is away ${i}`));
    await eventually(() => bridge().client.stats().outbox === 50, 10000, 'all 50 waiting in the hub outbox');
    assert.equal(sent.filter((m) => acksOf(alice).has(m.id.toString())).length, 0, 'no ACK while the hub cannot have them');

    hub = await startDevHub(hubOptions(port, stateFile));
    await eventually(() => sent.every((m) => acksOf(alice).has(m.id.toString())), 30000, 'every message ACKed once the hub is back');
    const rows = hub.admin.inbox(TESTER).filter((r) => r.chat_id === CHAT);
    assert.deepEqual(new Set(rows.map((r) => r.message_id)), new Set(sent.map(hubIdOf)));
    assert.equal(rows.length, 50);
  });

  it('never writes the token to the log, not even when the hub refuses it', async () => {
    hub = await startDevHub(hubOptions());
    tester = await Tester.connect(hub);
    hub.admin.refuseAuth({ reason: 'authentication failed', user_id: GATEWAY_USER, count: 1 });
    let text = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        text += chunk.toString('utf8');
        done();
      },
    });
    const config = testConfig(path.join(dir, 'state'), { radios: TWO_RADIOS, log: { level: 'trace' }, hub: hubSection(hub) });
    const gateway = new Gateway(config, { logger: createLogger({ level: 'trace', destination: sink }) });
    await gateway.start();
    try {
      const b = gateway.extension<HubBridge>('hub-bridge')!;
      await eventually(() => b.client.state === 'auth_failed', 10000, 'the refusal');
      assert.match(text, /the hub refused the bridge token/);
      assert.ok(!text.includes(GATEWAY_TOKEN), 'the token is not in the log');
    } finally {
      await gateway.stop();
    }
    assert.ok(!text.includes(GATEWAY_TOKEN));
  });
});
