/**
 * The gateway-daemon v1 contract as a phone on the LAN sees it: a real gateway with simulated radios, its daemon on
 * 127.0.0.1, and the chapter-written client of test/support. Every case of issue 25 §3.
 */
import assert from 'node:assert/strict';
import { sign } from 'node:crypto';
import fs from 'node:fs';
import { systemClock, type Clock, type TimerHandle } from '../../../lib/clock';
import { ackTarget, buildAck, isAck } from '../../../lib/mesh/ack';
import { generateControlIdentity, type ControlIdentity } from '../../../lib/mesh/control-signature';
import { decodeFrame, encodeFrame } from '../../../lib/mesh/frame';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import type { GatewayDaemon } from '../../../gateway/extensions/daemon';
import { DaemonClient, proofBytes, type DaemonMessage } from '../../support/gateway-daemon-client';
import { Recorder, eventually, startBroker, type TestBroker } from '../support/broker';
import { BASE, startGateway, type Running } from '../support/gateway';

function frameTo(from: ControlIdentity | { address: string }, to: string, content: string): { message: MeshMessage; frame: Uint8Array } {
  const message = createMessage({
    id: MessageId.random(),
    sender: from.address,
    recipient: to,
    app_id: 'daemon-e2e',
    priority: 'medium',
    ttl: 8,
    hop_count: 0,
    timestamp: BigInt(Date.now()),
    content,
    requires_ack: true,
  });
  return { message, frame: encodeFrame(message, 'json') };
}

function daemonOf(gw: Running): GatewayDaemon {
  const d = gw.gateway.extension<GatewayDaemon>('daemon');
  assert.ok(d, 'the daemon extension runs');
  return d;
}

async function connect(gw: Running): Promise<DaemonClient> {
  return DaemonClient.connect(daemonOf(gw).address!.port);
}

const UNKNOWN = generateControlIdentity().address;

/** The system clock, except that long timers (the ≥ 10 s attach grace) fire when the test says. */
class GraceClock implements Clock {
  private readonly long = new Map<object, () => void>();
  now(): number {
    return Date.now();
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    if (ms < 10_000) return systemClock.setTimeout(fn, ms);
    const handle = {};
    this.long.set(handle, fn);
    return handle;
  }
  clearTimeout(handle: TimerHandle | undefined): void {
    if (typeof handle === 'object' && handle !== null && this.long.delete(handle)) return;
    systemClock.clearTimeout(handle);
  }
  fireLong(): number {
    const fns = [...this.long.values()];
    this.long.clear();
    for (const fn of fns) fn();
    return fns.length;
  }
}

describe('gateway-daemon v1 (a client written from the chapter)', function () {
  this.timeout(30000);
  let gw: Running;
  const clients: DaemonClient[] = [];
  const open = async (): Promise<DaemonClient> => {
    const c = await connect(gw);
    clients.push(c);
    return c;
  };
  const start = async (daemon: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}, broker?: TestBroker, clock?: Clock): Promise<void> => {
    gw = await startGateway(broker, { daemon: { enabled: true, listen: '127.0.0.1:0', ...daemon }, ...overrides }, undefined, clock ? { clock } : {});
  };
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    if (gw) {
      await gw.stop();
      fs.rmSync(gw.dir, { recursive: true, force: true });
    }
  });

  describe('attach', () => {
    beforeEach(() => start());

    it('binds a good proof: AddressDeclared, then Capabilities, then StatusUpdate(connected); the device is a neighbour', async () => {
      const c = await open();
      const me = generateControlIdentity();
      const { capabilities } = await c.attach(me.privateKey);
      assert.deepEqual(capabilities, ['gateway_v1']);
      const types = c.received.map((m) => m.type);
      assert.deepEqual(types, ['Challenge', 'AddressDeclared', 'Capabilities', 'StatusUpdate']);
      const challenge = Buffer.from(String(c.received[0].challenge), 'base64');
      assert.equal(challenge.length, 32);
      assert.equal(c.received[0].protocol_version, 1);
      await eventually(() => gw.gateway.router.neighbours().some((n) => n.radioId === 'daemon' && n.peer.address === me.address), 5000, 'device as a neighbour');
      const snap = gw.gateway.snapshot();
      assert.ok(snap.radios.some((r) => r.id === 'daemon' && r.kind === 'daemon' && r.peers === 1));
      assert.ok(snap.neighbours.some((n) => n.radio === 'daemon' && n.address === me.address));
      const page = await (await fetch(`${gw.gateway.statusUrl}/status.json`)).json() as { neighbours: Array<{ radio: string; address?: string }> };
      assert.ok(page.neighbours.some((n) => n.radio === 'daemon' && n.address === me.address), 'the status page lists the device');
    });

    it('refuses a signature made with another key', async () => {
      const c = await open();
      const me = generateControlIdentity();
      const thief = generateControlIdentity();
      const challenge = await c.challenge();
      const answer = await c.declare({ address: me.address, publicKey: me.publicKey, signature: sign(null, proofBytes(me.address, challenge), thief.privateKey) });
      assert.equal(answer.type, 'AddressError');
      assert.equal(c.received.some((m) => m.type === 'StatusUpdate'), false);
    });

    it('refuses an address that is not derived from the key', async () => {
      const c = await open();
      const me = generateControlIdentity();
      const challenge = await c.challenge();
      const victim = generateControlIdentity().address;
      const answer = await c.declare({ address: victim, publicKey: me.publicKey, signature: sign(null, proofBytes(victim, challenge), me.privateKey) });
      assert.equal(answer.type, 'AddressError');
    });

    it('refuses a replayed challenge, on another connection and on the same one', async () => {
      const a = await open();
      const me = generateControlIdentity();
      const challenge = await a.challenge();
      const proof = { address: me.address, publicKey: me.publicKey, signature: sign(null, proofBytes(me.address, challenge), me.privateKey) };
      assert.equal((await a.declare(proof)).type, 'AddressDeclared');
      const b = await open();
      await b.challenge();
      assert.equal((await b.declare(proof)).type, 'AddressError', 'a captured declaration is no credential elsewhere');
      const c = await open();
      assert.equal((await c.declare(proof)).type, 'AddressError', 'nor without a challenge of its own');
      assert.equal((await a.declare(proof)).type, 'AddressError', 'nor twice on its own connection');
    });

    it('refuses the layout with a length-prefixed challenge', async () => {
      const c = await open();
      const me = generateControlIdentity();
      const challenge = await c.challenge();
      const prefixed = Buffer.concat([Buffer.from([0, 0, 0, 32]), challenge]);
      const answer = await c.declare({ address: me.address, publicKey: me.publicKey, signature: sign(null, proofBytes(me.address, prefixed), me.privateKey) });
      assert.equal(answer.type, 'AddressError');
    });

    it('ignores unknown types and lines that are not objects, and keeps the connection', async () => {
      const c = await open();
      c.send({ type: 'SomethingFromV2', x: 1 });
      c.writeRaw('not json\n[1,2]\n{"no_type":true}\n');
      const me = generateControlIdentity();
      await c.attach(me.privateKey);
      assert.equal(c.closed, false);
    });

    it('a second session for the same address replaces the first (the newest proof wins)', async () => {
      const me = generateControlIdentity();
      const first = await open();
      await first.attach(me.privateKey);
      const second = await open();
      await second.attach(me.privateKey);
      const bye = await first.nextOfType('StatusUpdate', 4);
      assert.equal(bye.status, 'disconnected');
      await first.whenClosed();
      const alice = gw.peer('sim0', 'alice');
      await alice.say('to the device', { recipient: me.address });
      const got = await second.nextOfType('MessageReceived');
      assert.equal(decodeFrame(Buffer.from(String(got.content), 'base64')).content, 'to the device');
    });
  });

  describe('submit, verdict, deliver', () => {
    beforeEach(() => start({ submit_burst: 2000, submit_rate_per_s: 2000 }));

    it('a frame to a neighbour on a radio arrives in the mesh; the verdict is MessageSent with the id echoed', async () => {
      const c = await open();
      const { identity } = await c.attach(generateControlIdentity().privateKey);
      const alice = gw.peer('sim0', 'alice');
      const { message, frame } = frameTo(identity, alice.address, 'hello alice');
      const verdict = await c.submit(alice.address, frame, 'my-id.1');
      assert.deepEqual(verdict, { type: 'MessageSent', message_id: 'my-id.1', recipient: alice.address, pushed: false, stored: false });
      const got = await alice.waitFor((r) => r.message?.id.toString() === message.id.toString());
      assert.equal(got.message!.content, 'hello alice');
      // alice ACKs; the ACK comes back to the device over the daemon (the device is her route).
      const ack = await c.next((m) => m.type === 'MessageReceived' && isAck(decodeFrame(Buffer.from(String(m.content), 'base64'))));
      const ackMsg = decodeFrame(Buffer.from(String(ack.content), 'base64'));
      assert.equal(ackTarget(ackMsg), message.id.toString());
      assert.equal(ack.sender, alice.address);
    });

    it('an unknown recipient gets DeliveryError recipient_unreachable; a bad id is replaced by a minted one', async () => {
      const c = await open();
      const { identity } = await c.attach(generateControlIdentity().privateKey);
      const { frame } = frameTo(identity, UNKNOWN, 'into the void');
      const mark = c.received.length;
      c.send({ type: 'SendMessage', recipient: UNKNOWN, content: Buffer.from(frame).toString('base64'), encoding: 'base64', message_id: 'has space' });
      const v = await c.next((m) => m.type === 'DeliveryError', mark);
      assert.match(String(v.reason), /^recipient_unreachable/);
      assert.equal(v.recipient, UNKNOWN);
      assert.notEqual(v.message_id, 'has space');
      assert.match(String(v.message_id), /^[A-Za-z0-9._-]{1,64}$/);
    });

    it('a frame whose recipient is not the named one is a plain failure, never recipient_unreachable', async () => {
      const c = await open();
      const { identity } = await c.attach(generateControlIdentity().privateKey);
      const alice = gw.peer('sim0', 'alice');
      const { frame } = frameTo(identity, UNKNOWN, 'mislabelled');
      const v = await c.submit(alice.address, frame, 'm1');
      assert.equal(v.type, 'DeliveryError');
      assert.match(String(v.reason), /^malformed_request/);
    });

    it('a mesh message for the attached device arrives as MessageReceived; the gateway does not ACK it', async () => {
      const c = await open();
      const { identity } = await c.attach(generateControlIdentity().privateKey);
      const alice = gw.peer('sim0', 'alice');
      const sent = await alice.say('for the phone', { recipient: identity.address });
      const got = await c.nextOfType('MessageReceived');
      assert.equal(got.sender, alice.address);
      assert.equal(got.encoding, 'base64');
      const m = decodeFrame(Buffer.from(String(got.content), 'base64'));
      assert.equal(m.content, 'for the phone');
      assert.equal(m.id.toString(), sent.id.toString());
      // Only the recipient settles: the device sends its own ACK through the daemon, and alice gets it.
      const ack = buildAck(m, { localId: identity.address, appId: 'daemon-e2e', transport: 'ble' });
      const verdict = await c.submit(alice.address, encodeFrame(ack, 'json'), 'ack-1');
      assert.equal(verdict.type, 'MessageSent');
      const back = await alice.waitFor((r) => r.message !== undefined && isAck(r.message) && ackTarget(r.message) === sent.id.toString());
      assert.equal(back.message!.sender, identity.address, 'the ACK is the device’s, not the gateway’s');
      const gatewayAcks = alice.received().filter((r) => isAck(r) && ackTarget(r) === sent.id.toString() && r.sender === gw.gateway.info.address);
      assert.equal(gatewayAcks.length, 0, 'the gateway settles nothing for the device');
    });

    it('a device is no relay: frames for others are not handed to it', async () => {
      const c = await open();
      await c.attach(generateControlIdentity().privateKey);
      const alice = gw.peer('sim0', 'alice');
      const bob = gw.peer('sim0', 'bob');
      const carol = gw.peer('sim1', 'carol');
      const sent = await alice.say('for someone far away', { recipient: UNKNOWN });
      const relayed = (r: { message?: MeshMessage }): boolean => r.message?.id.toString() === sent.id.toString();
      await Promise.race([bob.waitFor(relayed), carol.waitFor(relayed)]);
      // A round trip on the same stream: anything written to the device before it would have arrived first.
      const mark = c.received.length;
      c.send({ type: 'CheckPresence', peers: [UNKNOWN] });
      await c.nextOfType('PresenceStatus', mark);
      assert.equal(c.received.some((m) => m.type === 'MessageReceived'), false);
    });

    it('one attached device reaches another', async () => {
      const a = await open();
      const b = await open();
      const { identity: ia } = await a.attach(generateControlIdentity().privateKey);
      const { identity: ib } = await b.attach(generateControlIdentity().privateKey);
      const { frame } = frameTo(ia, ib.address, 'a to b');
      assert.equal((await a.submit(ib.address, frame, 'ab')).type, 'MessageSent');
      const got = await b.nextOfType('MessageReceived');
      assert.equal(got.sender, ia.address);
    });
  });

  describe('500 submissions answered out of order', () => {
    // Forwarding waits a random 0–40 ms (the mesh's anti-collision jitter), unreachable answers at once.
    beforeEach(() => start({ submit_burst: 2000, submit_rate_per_s: 2000 }, { mesh: { forward_jitter_min_ms: 0, forward_jitter_max_ms: 40 } }));

    it('every verdict matches its submission by id', async () => {
      const c = await open();
      const { identity } = await c.attach(generateControlIdentity().privateKey);
      const alice = gw.peer('sim0', 'alice');
      alice.setAutoAck(false);
      const expected = new Map<string, { recipient: string; type: string }>();
      const order: string[] = [];
      for (let i = 0; i < 500; i++) {
        const recipient = i % 2 === 0 ? alice.address : UNKNOWN;
        const id = `sub-${i}`;
        const { frame } = frameTo(identity, recipient, `n${i}`);
        expected.set(id, { recipient, type: recipient === UNKNOWN ? 'DeliveryError' : 'MessageSent' });
        order.push(id);
        c.send({ type: 'SendMessage', recipient, content: Buffer.from(frame).toString('base64'), encoding: 'base64', message_id: id });
      }
      await eventually(() => c.received.filter((m) => m.type === 'MessageSent' || m.type === 'DeliveryError').length >= 500, 20000, '500 verdicts');
      const verdicts = c.received.filter((m): m is DaemonMessage => m.type === 'MessageSent' || m.type === 'DeliveryError');
      assert.equal(verdicts.length, 500);
      const seen = new Set<string>();
      for (const v of verdicts) {
        const id = String(v.message_id);
        const want = expected.get(id);
        assert.ok(want, `verdict for an id that was sent: ${id}`);
        assert.ok(!seen.has(id), `one verdict per id: ${id}`);
        seen.add(id);
        assert.equal(v.type, want.type, id);
        assert.equal(v.recipient, want.recipient, id);
        if (v.type === 'DeliveryError') assert.match(String(v.reason), /^recipient_unreachable/);
      }
      assert.notDeepEqual(verdicts.map((v) => v.message_id), order, 'the verdicts did not come in submission order');
      await eventually(() => alice.received().filter((m) => String(m.content).startsWith('n')).length === 250, 10000, 'alice got every frame');
    });
  });

  describe('presence', () => {
    beforeEach(() => start({ presence_ttl_s: 1 }));

    it('answers for a neighbour, then tells a watcher unsolicited when it leaves, and decays a heard node', async () => {
      const c = await open();
      await c.attach(generateControlIdentity().privateKey);
      const alice = gw.peer('sim0', 'alice');
      const bob = gw.peer('sim0', 'bob');
      let mark = c.received.length;
      c.send({ type: 'CheckPresence', peers: [alice.address, UNKNOWN] });
      const pa = await c.next((m) => m.type === 'PresenceStatus' && m.peer === alice.address, mark);
      const pu = await c.next((m) => m.type === 'PresenceStatus' && m.peer === UNKNOWN, mark);
      assert.equal(pa.online, true);
      assert.equal(typeof pa.last_seen_ms, 'number');
      assert.equal(pu.online, false);
      mark = c.received.length;
      alice.vanish();
      const gone = await c.next((m) => m.type === 'PresenceStatus' && m.peer === alice.address, mark);
      assert.equal(gone.online, false, 'unsolicited: the watched neighbour left');
      // bob speaks, then leaves: heard recently he is online, and the answer decays after presence_ttl_s.
      c.send({ type: 'CheckPresence', peers: [bob.address] });
      await bob.say('hi', { requiresAck: false });
      bob.vanish();
      mark = c.received.length;
      c.send({ type: 'CheckPresence', peers: [bob.address] });
      const heard = await c.next((m) => m.type === 'PresenceStatus' && m.peer === bob.address, mark);
      assert.equal(heard.online, true, 'heard within the presence TTL');
      mark = c.received.length;
      const decayed = await c.next((m) => m.type === 'PresenceStatus' && m.peer === bob.address && m.online === false, mark);
      assert.ok(Number(decayed.last_seen_ms) > 0);
    });
  });

  describe('bounds and abuse', () => {
    it('a line over 1 MiB closes that connection only', async () => {
      await start();
      const good = await open();
      await good.attach(generateControlIdentity().privateKey);
      const bad = await open();
      bad.writeRaw(Buffer.alloc(1_048_577, 0x61));
      await bad.whenClosed();
      const me = generateControlIdentity();
      assert.equal(good.closed, false);
      const alice = gw.peer('sim0', 'alice');
      const { frame } = frameTo(me, alice.address, 'still here');
      const v = await good.submit(alice.address, frame, 'after');
      assert.equal(v.type, 'MessageSent');
    });

    it('past the session cap a connection is told disconnected and closed; the others keep working', async () => {
      await start({ max_sessions: 2 });
      const a = await open();
      await a.attach(generateControlIdentity().privateKey);
      const b = await open();
      await b.challenge();
      const c = await open();
      const m = await c.nextOfType('StatusUpdate');
      assert.equal(m.status, 'disconnected');
      await c.whenClosed();
      b.close();
      await eventually(() => daemonOf(gw).sessionCountNow === 1, 5000, 'b gone');
      const d = await open();
      await d.attach(generateControlIdentity().privateKey);
    });

    it('token buckets: past the burst a submission is refused budget_exceeded (a plain failure)', async () => {
      await start({ submit_burst: 3, submit_rate_per_s: 1 });
      const c = await open();
      const { identity } = await c.attach(generateControlIdentity().privateKey);
      const alice = gw.peer('sim0', 'alice');
      const verdicts = await Promise.all([0, 1, 2, 3, 4].map((i) => c.submit(alice.address, frameTo(identity, alice.address, `b${i}`).frame, `b${i}`)));
      assert.deepEqual(verdicts.map((v) => v.type), ['MessageSent', 'MessageSent', 'MessageSent', 'DeliveryError', 'DeliveryError']);
      assert.match(String(verdicts[3].reason), /^budget_exceeded/);
      const metrics = await (await fetch(`${gw.gateway.statusUrl}/metrics`)).text();
      assert.match(metrics, /clawling_gateway_daemon_verdicts_total\{outcome="budget_exceeded"\} 2\n/);
      assert.match(metrics, /clawling_gateway_daemon_attached 1\n/);
      const other = await open();
      const { identity: io } = await other.attach(generateControlIdentity().privateKey);
      assert.equal((await other.submit(alice.address, frameTo(io, alice.address, 'x').frame, 'x')).type, 'MessageSent', 'budgets are per device');
    });

    it('a reader that stops reading is disconnected before its buffer passes the bound', async () => {
      await start({ max_write_buffer_bytes: 2_097_152 });
      const c = await open();
      await c.attach(generateControlIdentity().privateKey);
      const keeper = await open();
      await keeper.attach(generateControlIdentity().privateKey);
      c.socket.pause();
      const peers = Array.from({ length: 1024 }, () => generateControlIdentity().address);
      for (let i = 0; i < 200; i++) c.send({ type: 'CheckPresence', peers });
      await eventually(() => daemonOf(gw).sessionCountNow === 1, 20000, 'the slow reader dropped');
      c.socket.resume();
      await c.whenClosed();
      assert.equal(keeper.closed, false);
      const mark = keeper.received.length;
      keeper.send({ type: 'CheckPresence', peers: [UNKNOWN] });
      assert.equal((await keeper.nextOfType('PresenceStatus', mark)).online, false);
    });

    it('an unattached session is refused attach_required, then verdict-only after the ≥ 10 s grace', async () => {
      const clock = new GraceClock();
      await start({}, {}, undefined, clock);
      const c = await open();
      const alice = gw.peer('sim0', 'alice');
      const stranger = generateControlIdentity();
      const before = await c.submit(alice.address, frameTo(stranger, alice.address, 'early').frame, 'early');
      assert.match(String(before.reason), /^attach_required/);
      assert.equal(c.received.some((m) => m.type === 'StatusUpdate'), false);
      assert.ok(clock.fireLong() >= 1, 'the grace is a timer of at least 10 s');
      const caps = await c.nextOfType('Capabilities');
      const status = await c.nextOfType('StatusUpdate');
      assert.equal(status.status, 'connected');
      assert.ok(c.received.indexOf(caps) < c.received.indexOf(status));
      const v = await c.submit(alice.address, frameTo(stranger, alice.address, 'verdict-only').frame, 'late');
      assert.equal(v.type, 'MessageSent');
      assert.equal(gw.gateway.router.neighbours().some((n) => n.radioId === 'daemon'), false, 'never registered as a recipient');
    });
  });

  describe('attached devices appear like other nodes', () => {
    let broker: TestBroker;
    let rec: Recorder;
    beforeEach(async () => {
      broker = await startBroker();
      rec = await Recorder.connect(broker.url, [`${BASE}/#`, 'homeassistant/#']);
      await start({}, {}, broker);
    });
    afterEach(async () => {
      await rec.close();
      await broker.stop();
    });

    it('on MQTT with rx_radio daemon, and as a Home Assistant device', async () => {
      const c = await open();
      const { identity } = await c.attach(generateControlIdentity().privateKey);
      const { message, frame } = frameTo(identity, gw.gateway.info.address, 'to the gateway from a phone');
      assert.equal((await c.submit(gw.gateway.info.address, frame, 'gw-1')).type, 'MessageSent');
      await rec.until(() => rec.json<{ id: string }>(`${BASE}/messages`).some((p) => p.id === message.id.toString()), 10000, 'the message on MQTT');
      const p = rec.json<{ id: string; rx_radio: string; sender: string }>(`${BASE}/messages`).find((x) => x.id === message.id.toString())!;
      assert.equal(p.rx_radio, 'daemon');
      assert.equal(p.sender, identity.address);
      await rec.until(() => rec.messages.some((r) => r.topic.startsWith('homeassistant/') && r.payload.toString().includes(identity.address)), 10000, 'an HA device for the phone');
      // The gateway ACKs a message addressed to itself, over the daemon, like to any neighbour.
      const ack = await c.next((m) => m.type === 'MessageReceived' && isAck(decodeFrame(Buffer.from(String(m.content), 'base64'))));
      assert.equal(ack.sender, gw.gateway.info.address);
    });
  });
});
