/**
 * The hub bridge end to end: a real gateway (simulated radios with BLE fragmentation, sqlite state), a real aedes
 * broker, a real dev hub with its media service, and a tester on the hub side with the real client.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { ackTarget, isAck } from '../../../../lib/mesh/ack';
import { chunkFile, FileReassembler } from '../../../../lib/mesh/chunked-file';
import { createMessage, type MeshMessage } from '../../../../lib/mesh/message';
import { MessageId } from '../../../../lib/mesh/message-id';
import { toCrockfordBase32 } from '../../../../lib/bytes';
import { uploadMedia } from '../../../../lib/media';
import type { DevHub } from '../../../../devhub';
import type { HubBridge } from '../../../../gateway/extensions/hub-bridge/hub-bridge';
import type { VirtualPeer, VirtualReceipt } from '../../../../gateway/radios';
import { Recorder, eventually, startBroker, type TestBroker } from '../../support/broker';
import { BASE, startGateway, type Running } from '../../support/gateway';
import { ALICE, BOB, CAROL, CHAT, GATEWAY_TOKEN, GATEWAY_USER, TESTER_TOKEN, Tester, hubSection, startHub } from './support/hub-site';

function ackFor(id: string) {
  return (r: VirtualReceipt): boolean => r.message !== undefined && isAck(r.message) && ackTarget(r.message) === id;
}

function hubIdOf(m: MeshMessage): string {
  return `msg-${toCrockfordBase32(m.id.bytes)}`;
}

function text(from: VirtualPeer, to: string, content: string, extra: Partial<Parameters<typeof createMessage>[0]> = {}): MeshMessage {
  return createMessage({
    id: MessageId.random(),
    sender: from.address,
    recipient: to,
    app_id: 'e2e',
    priority: 'medium',
    ttl: 8,
    hop_count: 0,
    timestamp: BigInt(Date.now()),
    content,
    ...extra,
  });
}

describe('hub bridge end to end (simulated radios, aedes, dev hub, sqlite)', function () {
  this.timeout(30000);
  let broker: TestBroker;
  let hub: DevHub;
  let tester: Tester;
  let rec: Recorder;
  let gw: Running;

  beforeEach(async () => {
    broker = await startBroker();
    hub = await startHub();
    tester = await Tester.connect(hub);
    rec = await Recorder.connect(broker.url, [`${BASE}/messages`]);
    gw = await startGateway(broker, { hub: hubSection(hub), mqtt: { enabled: true, url: broker.url, homeassistant: { enabled: false } } });
    await eventually(() => bridge().client.state === 'connected', 10000, 'the bridge connected to the hub');
  });
  afterEach(async () => {
    await gw.stop();
    await tester.stop();
    await rec.close();
    await hub.stop();
    await broker.stop();
    fs.rmSync(gw.dir, { recursive: true, force: true });
  });

  const bridge = (): HubBridge => gw.gateway.extension<HubBridge>('hub-bridge')!;

  it('brings a mesh text to the hub chat under msg- + its id in Crockford base32, to MQTT too, then ACKs it', async () => {
    const alice = gw.peer('sim0', 'alice');
    const m = text(alice, gw.gateway.info.address, 'the kitchen is 21.5 °C');
    const hubId = hubIdOf(m);
    assert.match(hubId, /^msg-[0-7][0-9A-HJ-NP-Z]{25}$/);
    let inboxAtAck: number | undefined;
    const acked = alice.waitFor(ackFor(m.id.toString())).then(() => {
      inboxAtAck = hub.admin.inbox('usr_tester').filter((r) => r.message_id === hubId).length;
    });
    await alice.send(m);
    const got = await tester.waitFor((x) => x.messageId === hubId, 'the message at the tester');
    assert.equal(got.text, 'Alice: the kitchen is 21.5 °C');
    assert.equal(got.chatId, CHAT);
    assert.equal(got.sender.id, GATEWAY_USER);
    await acked;
    assert.equal(inboxAtAck, 1, 'the hub held the message when the mesh ACK arrived');
    await rec.until(() => rec.json<{ id: string }>(`${BASE}/messages`).some((p) => p.id === m.id.toString()), 5000, 'the message on MQTT');
  });

  it('marks a sender the mesh did not prove: a relayed claim, or a neighbour speaking for another node', async () => {
    const alice = gw.peer('sim0', 'alice');
    const relayed = text(alice, gw.gateway.info.address, 'relayed from alice', { hop_count: 1 });
    const forged = { ...text(alice, gw.gateway.info.address, 'alice speaks for bob'), sender: gw.peer('sim0', 'bob').address };
    await alice.send(relayed);
    await alice.send(forged);
    const a = await tester.waitFor((x) => x.messageId === hubIdOf(relayed), 'the relayed one');
    const b = await tester.waitFor((x) => x.messageId === hubIdOf(forged), 'the forged one');
    assert.equal(a.text, 'Alice (unverified): relayed from alice');
    assert.match(b.text, / \(unverified\): alice speaks for bob$/);
    const ours = () => rec.json<{ id: string; sender_verified: boolean }>(`${BASE}/messages`).filter((p) => p.id === relayed.id.toString() || p.id === forged.id.toString());
    await rec.until(() => ours().length === 2, 5000, 'both on MQTT');
    assert.deepEqual(ours().map((p) => p.sender_verified), [false, false]);
  });

  it('holds the mesh ACK until the hub answers message.ack (a withheld ack delays it to the resend)', async () => {
    const alice = gw.peer('sim0', 'alice');
    const m = text(alice, gw.gateway.info.address, 'wait for the hub');
    const hubId = hubIdOf(m);
    const log: string[] = [];
    hub.admin.withholdAcks({ user_id: GATEWAY_USER, count: 1 });
    const onUplink = (u: { event: string; frame?: Record<string, unknown> }): void => {
      if (u.event === 'message.send' && (u.frame?.payload as { message_id?: string } | undefined)?.message_id === hubId) log.push('uplink');
    };
    hub.admin.on('uplink', onUplink);
    alice.on('received', (r) => {
      if (ackFor(m.id.toString())(r)) log.push('mesh-ack');
    });
    await alice.send(m);
    await alice.waitFor(ackFor(m.id.toString()));
    hub.admin.off('uplink', onUplink);
    // The first send got no message.ack; the client sent the same id again after ack_timeout_ms; only that one was answered.
    assert.deepEqual(log.slice(0, 3), ['uplink', 'uplink', 'mesh-ack']);
    assert.equal(tester.byId(hubId).length, 1, 'the resend of one id is one message for the tester');
  });

  it('sends a hub message of the chat into the mesh to the rule recipient, marked with its hub origin, until ACKed', async () => {
    const alice = gw.peer('sim0', 'alice');
    const ack = await tester.client.send({ chatId: CHAT, text: 'lights off, please' });
    const r = await alice.waitFor((x) => x.message !== undefined && !isAck(x.message) && x.message.content === 'lights off, please');
    const m = r.message!;
    assert.equal(m.sender, gw.gateway.info.address);
    assert.equal(m.recipient, ALICE);
    assert.equal(m.requires_ack, true);
    assert.equal(m.metadata.get('hub_message_id'), ack.messageId);
    assert.equal(m.metadata.get('hub_chat_id'), CHAT);
    assert.equal(m.metadata.get('hub_sender'), 'usr_tester');
    await bridge().whenToMeshEmpty();
    assert.equal(gw.peer('sim0', 'bob').received().filter((x) => !isAck(x)).length, 0, 'only the rule recipient got it');
  });

  it('keeps a hub message whose text begins with a reserved mesh prefix off the mesh, and goes on with the next', async () => {
    const alice = gw.peer('sim0', 'alice');
    await tester.client.send({ chatId: CHAT, text: '__CUSTODY_RECEIPT__{"v":1}' });
    await tester.client.send({ chatId: CHAT, text: '__CONN_REQ__{"from":"a hub user"}' });
    await tester.client.send({ chatId: CHAT, text: 'plain words after them' });
    await alice.waitFor((x) => x.message?.content === 'plain words after them');
    await bridge().whenToMeshEmpty();
    assert.ok(!alice.received().some((x) => x.content.startsWith('__')), 'no reserved-prefix text reached the node');
  });

  it('routes a hub reply to a bridged mesh message back to that message’s sender', async () => {
    const bob = gw.peer('sim0', 'bob');
    const question = await bob.say('anyone home?');
    const hubId = hubIdOf(question);
    await tester.waitFor((x) => x.messageId === hubId, 'bob’s message at the tester');
    await tester.client.reply({ chatId: CHAT, text: 'yes, I am', replyTo: { messageId: hubId } });
    const r = await bob.waitFor((x) => x.message !== undefined && x.message.content === 'yes, I am');
    assert.equal(r.message!.recipient, BOB);
    assert.equal(r.message!.reply_to_msg?.toString(), question.id.toString(), 'the reply refers to the mesh id');
    await bridge().whenToMeshEmpty();
    assert.ok(!gw.peer('sim0', 'alice').received().some((x) => x.content === 'yes, I am'), 'not to the rule recipient');
  });

  it('brings a chunked file from the mesh to the hub as uploaded media, ACKing its last chunk after message.ack', async () => {
    const alice = gw.peer('sim0', 'alice');
    const data = randomBytes(10_000);
    const chunks = chunkFile(data, { sender: alice.address, recipient: gw.gateway.info.address, appId: 'e2e', fileName: 'reading.bin', transport: 'ble', mimeType: 'application/octet-stream' });
    assert.equal(chunks.length, 3);
    const hubId = hubIdOf(chunks[0]!);
    for (const c of chunks.slice(0, -1)) {
      await alice.send(c);
      await alice.waitFor(ackFor(c.id.toString()));
    }
    const last = chunks[chunks.length - 1]!;
    let atHub = -1;
    const lastAck = alice.waitFor(ackFor(last.id.toString())).then(() => {
      atHub = hub.admin.inbox('usr_tester').filter((r) => r.message_id === hubId).length;
    });
    await alice.send(last);
    const got = await tester.waitFor((x) => x.messageId === hubId, 'the file at the tester');
    await lastAck;
    assert.equal(atHub, 1, 'the last chunk was ACKed once the hub had the file');
    const file = got.fragments.find((f) => f.kind === 'file');
    assert.ok(file?.url, 'a file fragment with a URL');
    assert.equal(file.name, 'reading.bin');
    assert.equal(file.size, data.length);
    const body = Buffer.from(await (await fetch(file.url)).arrayBuffer());
    assert.ok(body.equals(data), 'the uploaded bytes are the file');
    assert.equal(got.text, 'Alice (unverified):', 'a file is made of many frames whose proofs are not kept');
  });

  it('sends hub media into the mesh as a chunked file the recipient reassembles byte for byte', async () => {
    const alice = gw.peer('sim0', 'alice');
    const image = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(9000)]);
    const fragment = await uploadMedia(image, { url: hub.mediaUrl, token: TESTER_TOKEN, name: 'porch.png', mime: 'image/png', enrich: false });
    await tester.client.send({ chatId: CHAT, fragments: [{ ...fragment }] });
    const files = new FileReassembler();
    let whole: { data: Uint8Array; fileName: string; originalContentType?: string; mediaMetadata?: { mime_type: string } } | undefined;
    const done = new Promise<void>((resolve) => {
      const feed = (r: VirtualReceipt): void => {
        if (r.message?.content_type !== 'file_chunk') return;
        const out = files.push(r.message);
        if (out.status === 'complete') {
          whole = out;
          alice.off('received', feed);
          resolve();
        }
      };
      for (const r of alice.receipts()) feed(r);
      alice.on('received', feed);
    });
    await done;
    assert.ok(Buffer.from(whole!.data).equals(image));
    assert.equal(whole!.fileName, 'porch.png');
    assert.equal(whole!.originalContentType, 'image');
    assert.equal(whole!.mediaMetadata?.mime_type, 'image/png');
    await bridge().whenToMeshEmpty();
    assert.ok(alice.received().filter((m) => m.content_type === 'file_chunk').every((m) => m.metadata.has('hub_message_id')), 'every chunk carries its hub origin');
  });

  it('cuts loops: a re-originated mesh message is not taken back to the hub, nor the bridge’s own account into the mesh', async () => {
    const alice = gw.peer('sim0', 'alice');
    const echo = text(alice, gw.gateway.info.address, 'came from a hub', { metadata: { hub_message_id: 'msg-01J0000000000000000000000X' } });
    const normal = text(alice, gw.gateway.info.address, 'a fresh one');
    await alice.send(echo);
    await alice.waitFor(ackFor(echo.id.toString()));
    await alice.send(normal);
    await tester.waitFor((x) => x.messageId === hubIdOf(normal), 'the fresh message');
    assert.equal(tester.byId(hubIdOf(echo)).length, 0, 'the re-originated message stayed off the hub');

    // The bridge account writing from another device (a second gateway on it): never back into the mesh.
    const sibling = await Tester.connect(hub, GATEWAY_USER, GATEWAY_TOKEN, 'other-gateway');
    try {
      await sibling.client.send({ chatId: CHAT, text: 'from the bridge account' });
      await tester.client.send({ chatId: CHAT, text: 'after it' });
      await alice.waitFor((x) => x.message?.content === 'after it');
      await bridge().whenToMeshEmpty();
      assert.ok(!alice.received().some((x) => x.content === 'from the bridge account'));
    } finally {
      await sibling.stop();
    }
  });

  it('makes one hub message of one mesh message that two gateways bridge', async () => {
    const dir2 = `${gw.dir}-2`;
    const gw2 = await startGateway(undefined, { hub: hubSection(hub, { mesh_to_hub: [{ chat_id: CHAT, recipient: '*' }] }), gateway: { id: 'gw-two' } }, (fs.mkdirSync(dir2), dir2));
    try {
      const b2 = gw2.gateway.extension<HubBridge>('hub-bridge')!;
      await eventually(() => b2.client.state === 'connected', 10000, 'the second bridge connected');
      // First gateway: also take what it sees in passing.
      await gw.stop();
      gw = await startGateway(undefined, { hub: hubSection(hub, { mesh_to_hub: [{ chat_id: CHAT, recipient: '*' }] }) }, gw.dir);
      await eventually(() => bridge().client.state === 'connected', 10000, 'the first bridge connected again');
      assert.notEqual(bridge().client.deviceId, b2.client.deviceId);
      // The same frame (same id, same sender) heard by both gateways, addressed to carol (not a gateway).
      const m = text(gw.peer('sim0', 'alice'), CAROL, 'seen by two gateways');
      const hubId = hubIdOf(m);
      const uplinks: string[] = [];
      const onUplink = (u: { event: string; user_id: string; device_id: string; frame?: Record<string, unknown> }): void => {
        // Only the sends: the tester's delivery receipts name the same message id.
        if (u.event !== 'message.send' || u.user_id !== GATEWAY_USER) return;
        if ((u.frame?.payload as { message_id?: string } | undefined)?.message_id === hubId) uplinks.push(u.device_id);
      };
      hub.admin.on('uplink', onUplink);
      await gw.peer('sim0', 'alice').send(m);
      await gw2.peer('sim0', 'alice').send(m);
      await eventually(() => uplinks.length >= 2, 10000, 'both gateways sent it');
      hub.admin.off('uplink', onUplink);
      assert.equal(new Set(uplinks).size, 2, 'from two devices');
      await tester.waitFor((x) => x.messageId === hubId, 'the message at the tester');
      // A message sent after both uplinks arrives after them: by then any second copy would have been reported.
      const marker = await gw.peer('sim0', 'alice').say('marker', { recipient: CAROL });
      await tester.waitFor((x) => x.messageId === hubIdOf(marker), 'the marker');
      await tester.client.idle();
      assert.equal(tester.byId(hubId).length, 1, 'one message for the tester');
      assert.equal(hub.admin.inbox('usr_tester').filter((r) => r.message_id === hubId).length, 1, 'one inbox row at the hub');
    } finally {
      await gw2.stop();
      fs.rmSync(dir2, { recursive: true, force: true });
    }
  });
});
