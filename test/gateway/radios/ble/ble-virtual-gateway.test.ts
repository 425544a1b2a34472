/**
 * The whole gateway with a BLE radio through the real host stacks (noble and bleno over a virtual LE controller,
 * devble/) and a real aedes broker: what the gateway ACKs over BLE is on MQTT, across link losses and
 * adapter resets.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { BleRadio } from '../../../../gateway/radios/ble/ble-radio';
import { ackTarget, isAck } from '../../../../lib/mesh/ack';
import { decodeFrame, encodeFrame } from '../../../../lib/mesh/frame';
import { createMessage, type MeshMessage } from '../../../../lib/mesh/message';
import { MessageId } from '../../../../lib/mesh/message-id';
import { VirtualBle, type VirtualHost } from '../../../../devble/virtual-ble';
import { Recorder, startBroker, type TestBroker } from '../../support/broker';
import { BASE, startGateway, tempDir, type Running } from '../../support/gateway';
import { nextEvent, peerConnected } from '../support/radio-suite';
import { BlenoPhone } from '../../../../demo/ble-phone';
import { blenoOnUart } from '../../../../demo/ble-hosts';

interface World {
  ble: VirtualBle;
  gatewayHost: VirtualHost;
  phoneHost: VirtualHost;
  phone: BlenoPhone;
  radio: BleRadio;
  gw: Running;
  peerId: string;
  /** Ids the phone has seen an ACK for, in order. */
  acked: string[];
}

function toGateway(w: World, content: string): MeshMessage {
  return createMessage({
    id: MessageId.random(),
    sender: w.phone.identity.address,
    recipient: w.gw.gateway.info.address,
    app_id: 'ble-e2e',
    priority: 'medium',
    ttl: 8,
    hop_count: 0,
    timestamp: BigInt(Date.now()),
    content,
    requires_ack: true,
  });
}

function subscribed(phone: BlenoPhone): Promise<void> {
  return phone.subscribed ? Promise.resolve() : new Promise<void>((resolve) => phone.once('subscribed', () => resolve()));
}

describe('gateway end to end over BLE through noble and bleno on a virtual LE controller (aedes)', function () {
  this.timeout(60_000);
  let broker: TestBroker;
  let rec: Recorder;
  const worlds: World[] = [];

  beforeEach(async () => {
    broker = await startBroker();
    rec = await Recorder.connect(broker.url, [`${BASE}/messages`]);
  });
  afterEach(async () => {
    for (const w of worlds.splice(0)) {
      await w.gw.stop();
      w.phone.stop();
      await w.ble.close();
      fs.rmSync(w.gw.dir, { recursive: true, force: true });
    }
    await rec.close();
    await broker.stop();
  });

  async function world(otherRadios: unknown[] = []): Promise<World> {
    const ble = new VirtualBle();
    const [gatewayHost, phoneHost] = await Promise.all([ble.host(), ble.host()]);
    const phone = new BlenoPhone(blenoOnUart(phoneHost.path), { maxAttMtu: 247 });
    await phone.start();
    // The shipped route: the gateway's config names the controller, the gateway builds the radio.
    const config = { id: 'ble0', kind: 'ble' as const, adapter: `uart:${gatewayHost.path}`, flow_control: false, min_write_gap_ms: 0, discovery_window_ms: 0, reconnect: { initial_ms: 100, max_ms: 1_000 }, peripheral: { enabled: false } };
    const ready = subscribed(phone);
    const gw = await startGateway(broker, { radios: [config, ...otherRadios] });
    const radio = gw.gateway.radios.find((r) => r.id === 'ble0') as BleRadio;
    const w: World = { ble, gatewayHost, phoneHost, phone, radio, gw, peerId: phoneHost.controller.address.replace(/:/g, ''), acked: [] };
    worlds.push(w);
    phone.on('frame', (frame) => {
      const m = decodeFrame(frame);
      const target = isAck(m) ? ackTarget(m) : undefined;
      if (target !== undefined) w.acked.push(target);
    });
    await peerConnected(radio, w.peerId);
    await ready;
    return w;
  }

  const published = (): string[] => rec.json<{ id: string }>(`${BASE}/messages`).map((p) => p.id);

  function allAcked(w: World, ids: string[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const check = setInterval(() => {
        if (ids.every((id) => w.acked.includes(id))) {
          clearInterval(check);
          resolve();
        }
      }, 20);
      setTimeout(() => {
        clearInterval(check);
        reject(new Error(`ACKs for ${ids.filter((id) => !w.acked.includes(id)).length} messages never came`));
      }, 15_000);
    });
  }

  for (const fault of ['stops answering', 'is unplugged'] as const) {
    it(`the controller ${fault} mid-stream: every message the gateway ACKed is on MQTT, the radio is degraded and retries with backoff, the other radio carries on`, async () => {
      const w = await world([{ id: 'sim0', kind: 'simulated', peers: [{ id: 'alice', wire_versions: [1] }] }]);
      const sim = w.gw.gateway.radios.find((r) => r.id === 'sim0');
      const messages = Array.from({ length: 8 }, (_, i) => toGateway(w, `message ${i} `.padEnd(2_500, '.')));
      const ids = messages.map((m) => m.id.toString());
      let sawDegraded = false;
      const degraded = nextEvent(w.radio, 'status', (st) => (sawDegraded ||= st.state === 'degraded'));
      const retried = nextEvent(w.radio, 'status', (st) => sawDegraded && /reopening failed/.test(st.detail ?? ''));
      // The fault comes once the phone holds its second ACK: some messages ACKed, the rest still on the air.
      const faulted = new Promise<void>((resolve) => {
        const onFrame = (): void => {
          if (w.acked.length < 2) return;
          w.phone.off('frame', onFrame);
          if (fault === 'stops answering') w.gatewayHost.controller.detach();
          else void w.gatewayHost.close();
          resolve();
        };
        w.phone.on('frame', onFrame);
      });
      for (const m of messages) w.phone.send(encodeFrame(m, 'json'));
      await faulted;
      const st = await degraded;
      assert.match(st.detail ?? '', new RegExp(`uart:${w.gatewayHost.path}: .*${fault === 'stops answering' ? 'stopped answering' : 'went away'}`));
      // Reopening is tried again and fails while the controller is silent or gone: the backoff is running.
      await retried;
      assert.equal(w.radio.status().state, 'degraded');

      // Every ACK the phone holds was given before the link died (nothing crosses a dead controller), so this is
      // the whole set the gateway promised to deliver.
      const ackedBeforeTheFault = [...w.acked];
      assert.ok(ackedBeforeTheFault.length >= 2 && ackedBeforeTheFault.length < ids.length, `the fault came between ACKs (${ackedBeforeTheFault.length} of ${ids.length} ACKed)`);
      await rec.until(() => ackedBeforeTheFault.every((id) => published().includes(id)), 15_000, 'every ACKed message on MQTT');

      // The other radio never noticed: its peer's message goes through while BLE is down.
      assert.equal(sim?.status().state, 'ready');
      const fromAlice = await w.gw.peer('sim0', 'alice').say('while the BLE controller is down', { recipient: w.gw.gateway.info.address });
      await rec.until(() => published().includes(fromAlice.id.toString()), 15_000, 'the simulated radio\'s message on MQTT');
      assert.equal(w.radio.status().state, 'degraded');

      if (fault === 'stops answering') {
        // Power-cycled: the controller answers again, the radio reopens it and the phone resends what has no ACK.
        const resubscribed = new Promise<void>((resolve) => w.phone.once('subscribed', () => resolve()));
        w.gatewayHost.controller.reattach();
        await peerConnected(w.radio, w.peerId);
        await resubscribed;
        const resent = messages.filter((m) => !ackedBeforeTheFault.includes(m.id.toString()));
        for (const m of resent) w.phone.send(encodeFrame(m, 'json'));
        await allAcked(w, ids);
        await rec.until(() => ids.every((id) => published().includes(id)), 15_000, 'every message on MQTT');
        // Give a late duplicate the time to show up on MQTT.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const onMqtt = published();
        assert.deepEqual(
          ids.map((id) => onMqtt.filter((x) => x === id).length),
          ids.map(() => 1),
          'each message published exactly once',
        );
      }
      assert.deepEqual(w.ble.violations(), []);
    });
  }

  it('link loss in the middle of a message: every message the gateway ACKed over BLE is on MQTT once, and the resends of the rest too', async () => {
    const w = await world();
    const messages = Array.from({ length: 6 }, (_, i) => toGateway(w, `message ${i} `.padEnd(2_500, '.')));
    const ids = messages.map((m) => m.id.toString());
    // Cut the link in the middle of the third message: each is about a dozen notifications at ATT MTU 247.
    const phoneAddress = w.phoneHost.controller.address;
    let fromPhone = 0;
    const cut = new Promise<void>((resolve) => {
      const onPdu = (pdu: { from: string; llid: string }): void => {
        if (pdu.from !== phoneAddress || pdu.llid !== 'start' || ++fromPhone < 30) return;
        w.ble.air.off('pdu', onPdu);
        w.ble.air.drop([...w.ble.air.links][0]);
        resolve();
      };
      w.ble.air.on('pdu', onPdu);
    });
    const down = nextEvent(w.radio, 'peer', (p) => p.id === w.peerId && p.change === 'down');
    for (const m of messages) w.phone.send(encodeFrame(m, 'json'));
    await cut;
    await down;
    const ackedBeforeTheCut = new Set(w.acked);
    assert.ok(ackedBeforeTheCut.size < ids.length, `the cut came before the last ACK (${ackedBeforeTheCut.size} ACKed)`);

    // The phone resends what it saw no ACK for once the link is back, as the reference does.
    const resubscribed = new Promise<void>((resolve) => w.phone.once('subscribed', () => resolve()));
    await peerConnected(w.radio, w.peerId);
    await resubscribed;
    const resent = messages.filter((m) => !ackedBeforeTheCut.has(m.id.toString()));
    for (const m of resent) w.phone.send(encodeFrame(m, 'json'));
    await rec.until(() => ids.every((id) => published().includes(id)), 15_000, 'every message on MQTT');
    await allAcked(w, ids);
    // Give a late duplicate the time to show up on MQTT.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const onMqtt = published();
    for (const id of w.acked) assert.ok(onMqtt.includes(id), `ACKed ${id} is on MQTT`);
    assert.deepEqual(
      ids.map((id) => onMqtt.filter((x) => x === id).length),
      ids.map(() => 1),
      'each message published exactly once',
    );
    assert.deepEqual(w.ble.violations(), []);
  });

  it('two gateways in one air: a frame for a phone only the second gateway hears is relayed to it by the first', async () => {
    const ble = new VirtualBle();
    const [hostA, hostB, hostP1, hostP2] = await Promise.all([ble.host(), ble.host(), ble.host(), ble.host()]);
    ble.air.apart(hostA.controller.address, hostP2.controller.address);
    ble.air.apart(hostB.controller.address, hostP1.controller.address);
    const p1 = new BlenoPhone(blenoOnUart(hostP1.path), { maxAttMtu: 247, seed: 'phone-one' });
    const p2 = new BlenoPhone(blenoOnUart(hostP2.path), { maxAttMtu: 247, seed: 'phone-two' });
    await Promise.all([p1.start(), p2.start()]);
    const base = { kind: 'ble' as const, min_write_gap_ms: 0, discovery_window_ms: 0, reconnect: { initial_ms: 100, max_ms: 1_000 } };
    // Each gateway names its own controller; B's serves GATT on the same one (HCI multiplexer).
    const configA = { ...base, id: 'ble-a', adapter: `uart:${hostA.path}`, flow_control: false, peripheral: { enabled: false } };
    const configB = { ...base, id: 'ble-b', adapter: `uart:${hostB.path}`, flow_control: false, peripheral: { enabled: true } };
    const dirB = tempDir('gw-e2e-b-');
    const gwA = await startGateway(undefined, { gateway: { id: 'gw-a' }, radios: [configA] });
    const gwB = await startGateway(undefined, { gateway: { id: 'gw-b' }, radios: [configB] }, dirB);
    const radioA = gwA.gateway.radios.find((r) => r.id === 'ble-a') as BleRadio;
    const radioB = gwB.gateway.radios.find((r) => r.id === 'ble-b') as BleRadio;
    const stops = async (): Promise<void> => {
      await gwA.stop();
      await gwB.stop();
      p1.stop();
      p2.stop();
      await ble.close();
      fs.rmSync(gwA.dir, { recursive: true, force: true });
      fs.rmSync(gwB.dir, { recursive: true, force: true });
    };
    try {
      const p1Id = hostP1.controller.address.replace(/:/g, '');
      const p2Id = hostP2.controller.address.replace(/:/g, '');
      const bServerId = hostB.controller.address.replace(/:/g, '');
      await Promise.all([subscribed(p1), subscribed(p2), peerConnected(radioA, p1Id), peerConnected(radioB, p2Id), peerConnected(radioA, bServerId)]);
      assert.equal(radioA.peers().some((p) => p.id === p2Id), false, 'the first gateway never heard the second phone');
      const m = createMessage({
        id: MessageId.random(),
        sender: p1.identity.address,
        recipient: p2.identity.address,
        app_id: 'ble-e2e',
        priority: 'medium',
        ttl: 8,
        hop_count: 0,
        timestamp: BigInt(Date.now()),
        content: 'for the far phone',
      });
      const arrived = new Promise<MeshMessage>((resolve) => p2.on('frame', (f) => resolve(decodeFrame(f))));
      p1.send(encodeFrame(m, 'json'));
      const got = await arrived;
      assert.equal(got.id.toString(), m.id.toString());
      assert.equal(got.content, 'for the far phone');
      assert.equal(got.hop_count, 2, 'two gateways forwarded it');
      assert.deepEqual(ble.violations(), []);
    } finally {
      await stops();
    }
  });
});
