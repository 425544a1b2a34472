import assert from 'node:assert/strict';
import { createRadio, type Radio } from '../../../../gateway/radios';
import type { SimulatedRadioConfig } from '../../../../gateway/radios/radio-config';
import { RadioError } from '../../../../gateway/radios/radio';
import type { SimulatedRadio } from '../../../../gateway/radios/simulated/simulated-radio';
import { ackTarget, isAck } from '../../../../lib/mesh/ack';
import { isAddress } from '../../../../lib/mesh/address';
import { decodeFrameWithFormat, encodeFrame } from '../../../../lib/mesh/frame';
import { bigFrame, hexOf, textMessage } from '../support/frames';
import { ManualClock, settle } from '../support/manual-clock';
import { nextEvent } from '../support/radio-suite';
import { TestLogger } from '../support/test-logger';

const GATEWAY = 'off1qysluvwl5922yctzd0u9gpr06gn3k7ldfvgtwgvn';
const radios: Radio[] = [];

function setup(config: Partial<SimulatedRadioConfig> = {}): { radio: SimulatedRadio; clock: ManualClock } {
  const clock = new ManualClock();
  const radio = createRadio(
    { id: 'sim0', kind: 'simulated', peers: [{ id: 'phone' }, { id: 'sensor', wire_versions: [] }], ...config },
    { logger: new TestLogger(), clock, stateDir: '/tmp/radios-test-state', localAddress: GATEWAY },
  ) as SimulatedRadio;
  radios.push(radio);
  return { radio, clock };
}

function frames(radio: Radio): Array<{ peerId: string; frame: Uint8Array }> {
  const out: Array<{ peerId: string; frame: Uint8Array }> = [];
  radio.on('frame', (f) => out.push(f));
  return out;
}

describe('gateway/radios SimulatedRadio', () => {
  afterEach(async () => {
    for (const r of radios.splice(0)) await r.close();
  });

  it('gives each virtual peer a real, stable address derived from its radio and name', async () => {
    const one = setup().radio;
    const two = setup().radio;
    const other = createRadio({ id: 'sim1', kind: 'simulated', peers: [{ id: 'phone' }] }, { logger: new TestLogger(), stateDir: '/tmp' }) as SimulatedRadio;
    radios.push(other);
    const a = one.virtualPeer('phone')!.address;
    assert.ok(isAddress(a));
    assert.equal(two.virtualPeer('phone')!.address, a, 'same radio id and peer id: same address on every run');
    assert.notEqual(one.virtualPeer('sensor')!.address, a);
    assert.notEqual(other.virtualPeer('phone')!.address, a);
  });

  it('speaks binary v1 for a peer that advertises wire v1 and the JSON floor otherwise', async () => {
    const { radio } = setup();
    const got = frames(radio);
    await radio.open();
    await radio.virtualPeer('phone')!.say('binary please');
    await radio.virtualPeer('sensor')!.say('json please');
    await settle();
    const decoded = got.map((f) => decodeFrameWithFormat(f.frame));
    assert.deepEqual(decoded.map((d) => [d.format, d.message.content, d.message.recipient]), [
      ['binary', 'binary please', GATEWAY],
      ['json', 'json please', GATEWAY],
    ]);
    assert.deepEqual(radio.peers().map((p) => p.wireVersions), [[1], []]);
  });

  it('answers a message addressed to it with a reference-shaped ACK, and can be told not to', async () => {
    const { radio } = setup();
    const got = frames(radio);
    await radio.open();
    const phone = radio.virtualPeer('phone')!;
    const message = textMessage('are you there?', { sender: GATEWAY, recipient: phone.address, requiresAck: true });
    await radio.send('phone', encodeFrame(message, 'binary'));
    await settle();
    assert.equal(phone.received()[0].content, 'are you there?');
    assert.equal(got.length, 1);
    const ack = decodeFrameWithFormat(got[0].frame);
    assert.equal(ack.format, 'binary');
    assert.ok(isAck(ack.message));
    assert.equal(ackTarget(ack.message), message.id.toString());
    assert.equal(ack.message.sender, phone.address);
    assert.equal(ack.message.recipient, GATEWAY);
    assert.equal(ack.message.metadata.get('ack_transport'), 'ble');

    phone.setAutoAck(false);
    await radio.send('phone', encodeFrame(textMessage('again', { sender: GATEWAY, recipient: phone.address, requiresAck: true }), 'json'));
    await settle();
    assert.equal(got.length, 1, 'no second ACK');
    // Not addressed to it, or an ACK itself: never acknowledged.
    phone.setAutoAck(true);
    await radio.send('phone', encodeFrame(textMessage('for someone else', { sender: GATEWAY, requiresAck: true }), 'json'));
    await settle();
    assert.equal(got.length, 1);
  });

  it('records frames it cannot decode with the decoder code', async () => {
    const { radio } = setup();
    await radio.open();
    await radio.send('phone', Uint8Array.of(0xf5, 0x01));
    const receipt = radio.virtualPeer('phone')!.receipts()[0];
    assert.equal(receipt.message, undefined);
    assert.equal(typeof receipt.error, 'string');
    assert.notEqual(receipt.error, '');
  });

  it('moves frames as BLE fragments sized by the peer MTU (limits prove it), or whole when fragment is off', async () => {
    const small = setup({ peers: [{ id: 'old-phone', mtu: 185 }, { id: 'new-phone', mtu: 512 }] }).radio;
    await small.open();
    const between = bigFrame(100_000); // over 512 × 139 bytes, under 512 × 466
    await assert.rejects(small.send('old-phone', between), (e: unknown) => e instanceof RadioError && e.code === 'FRAME_TOO_LARGE');
    await small.send('new-phone', between);
    assert.equal(hexOf(small.virtualPeer('new-phone')!.receipts()[0].frame), hexOf(between));

    const whole = setup({ fragment: false, peers: [{ id: 'wired', mtu: 185 }] }).radio;
    await whole.open();
    const large = bigFrame(500_000);
    await whole.send('wired', large);
    assert.equal(hexOf(whole.virtualPeer('wired')!.receipts()[0].frame), hexOf(large));
  });

  it('talks on a timer for the demo', async () => {
    const { radio, clock } = setup({ peers: [{ id: 'chatty', talk: { every_ms: 1000, text: 'tick', app_id: 'demo-app' } }] });
    const got = frames(radio);
    await radio.open();
    await clock.tick(999);
    assert.equal(got.length, 0);
    await clock.tick(1);
    await settle();
    await clock.tick(1000);
    await settle();
    assert.equal(got.length, 2);
    const m = decodeFrameWithFormat(got[0].frame).message;
    assert.deepEqual([m.content, m.app_id, m.recipient, m.requires_ack], ['tick', 'demo-app', GATEWAY, true]);
    radio.virtualPeer('chatty')!.vanish();
    await clock.tick(5000);
    assert.equal(got.length, 2, 'a peer out of range is silent');
  });

  it('delays the virtual link by latency_ms', async () => {
    const { radio, clock } = setup({ latency_ms: 50 });
    const got = frames(radio);
    await radio.open();
    const said = radio.virtualPeer('phone')!.say('slow link', { requiresAck: false });
    await settle();
    assert.equal(got.length, 0);
    await clock.tick(50);
    await said;
    assert.equal(got.length, 1);
  });

  it('names its peer count in English in its status detail ("1 virtual peer", "2 virtual peers")', async () => {
    const one = setup({ id: 'sim1', peers: [{ id: 'garden' }] }).radio;
    const two = setup().radio;
    await one.open();
    await two.open();
    assert.deepEqual([one.status().detail, two.status().detail], ['1 virtual peer', '2 virtual peers']);
  });

  it('adds and removes virtual peers at run time', async () => {
    const { radio } = setup();
    await radio.open();
    const up = nextEvent(radio, 'peer', (p) => p.id === 'newcomer' && p.change === 'up');
    const newcomer = radio.addPeer({ id: 'newcomer', wire_versions: [], rssi: -71, mtu: 300 });
    const event = await up;
    assert.deepEqual([event.address, event.rssi, event.mtu, event.wireVersions], [newcomer.address, -71, 300, []]);
    assert.throws(() => radio.addPeer({ id: 'newcomer' }), (e: unknown) => e instanceof RadioError && e.code === 'BAD_CONFIG');
    const down = nextEvent(radio, 'peer', (p) => p.id === 'newcomer' && p.change === 'down');
    radio.removePeer('newcomer');
    await down;
    assert.equal(radio.peers().some((p) => p.id === 'newcomer'), false);
    await assert.rejects(radio.send('newcomer', bigFrame(400)), (e: unknown) => e instanceof RadioError && e.code === 'PEER_UNKNOWN');
  });

  it('waits for what a peer receives', async () => {
    const { radio } = setup();
    await radio.open();
    const phone = radio.virtualPeer('phone')!;
    const waiting = phone.waitFor((r) => r.message?.content === 'second');
    await radio.send('phone', encodeFrame(textMessage('first'), 'json'));
    await radio.send('phone', encodeFrame(textMessage('second'), 'json'));
    assert.equal((await waiting).message?.content, 'second');
  });
});
