/**
 * Both roles of the BLE radio on one virtual controller through the HCI multiplexer: noble's and bleno's own stacks
 * over one pty (devble), a phone central on the gateway's GATT server and a phone peripheral the gateway's central
 * connects to, each on a controller of its own.
 */
import assert from 'node:assert/strict';
import { createRadio } from '../../../../gateway/radios';
import type { BleRadio } from '../../../../gateway/radios/ble/ble-radio';
import { HciController } from '../../../../gateway/radios/ble/hci-controller';
import { BleTransportError } from '../../../../gateway/radios/ble/errors';
import { identityFromSeed } from '../../../../gateway/radios/mesh-identity';
import { VirtualBle, type VirtualHost } from '../../../../devble/virtual-ble';
import { BlenoPhone } from '../../../../demo/ble-phone';
import { blenoOnUart, nobleOnUart } from '../../../../demo/ble-hosts';
import { bigFrame, frameOf, hexOf } from '../support/frames';
import { nextEvent, peerConnected } from '../support/radio-suite';
import { TestLogger } from '../support/test-logger';
import { NoblePhoneCentral } from '../support/noble-phone-central';

const UART = { baudRate: 1_000_000, flowControl: false };
const GATEWAY = identityFromSeed('mux-gateway');

describe('gateway/radios/ble HciController: one controller for noble and bleno', function () {
  this.timeout(60_000);
  const cleanup: Array<() => Promise<void> | void> = [];

  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('opens the controller: Reset, Read Local Version and Read BD_ADDR, and reports what it said', async () => {
    const ble = new VirtualBle();
    cleanup.push(() => ble.close());
    const host = await ble.host();
    const controller = new HciController({ path: host.path, ...UART });
    cleanup.push(() => controller.close());
    const info = await controller.open();
    assert.equal(info.address, host.controller.address.toLowerCase());
    assert.ok(info.hciVersion >= 6, `HCI version ${info.hciVersion}`);
    assert.ok(info.aclBuffers.count > 0 && info.aclBuffers.length >= 27, JSON.stringify(info.aclBuffers));
  });

  it('a second opener of the same UART path fails with IN_USE; the first keeps its controller', async () => {
    const ble = new VirtualBle();
    cleanup.push(() => ble.close());
    const host = await ble.host();
    const first = new HciController({ path: host.path, ...UART });
    cleanup.push(() => first.close());
    await first.open();
    const second = new HciController({ path: host.path, ...UART });
    await assert.rejects(second.open(), (err: unknown) => err instanceof BleTransportError && err.code === 'IN_USE' && /in use/.test(err.message));
    assert.equal(first.mux.ready, true);
  });

  it('a path that does not exist fails with NO_DEVICE naming it', async () => {
    const controller = new HciController({ path: '/dev/does-not-exist-hci', ...UART });
    await assert.rejects(controller.open(), (err: unknown) => err instanceof BleTransportError && err.code === 'NO_DEVICE' && err.message.includes('/dev/does-not-exist-hci'));
  });

  it('a central on the GATT server survives the gateway central connecting to a phone on the same controller, and frames flow on both links', async () => {
    const ble = new VirtualBle();
    cleanup.push(() => ble.close());
    const [gatewayHost, centralPhoneHost, peripheralPhoneHost] = await Promise.all([ble.host(), ble.host(), ble.host()]);
    // The shipped configuration: one UART controller for both roles, nothing injected.
    const radio = createRadio(
      { id: 'ble0', kind: 'ble', adapter: `uart:${gatewayHost.path}`, flow_control: false, min_write_gap_ms: 0, discovery_window_ms: 0, reconnect: { initial_ms: 100, max_ms: 2_000 }, peripheral: { enabled: true } },
      { logger: new TestLogger(), stateDir: '/tmp/radios-test-state', identity: GATEWAY },
    ) as BleRadio;
    cleanup.push(() => radio.close());
    await radio.open();

    // A phone connects to the gateway's GATT server first.
    const central = new NoblePhoneCentral(nobleOnUart(centralPhoneHost.path));
    cleanup.push(() => central.stop());
    const centralId = centralPhoneHost.controller.address.replace(/:/g, '');
    const up = nextEvent(radio, 'peer', (p) => p.id === centralId && p.change !== 'down');
    await central.connect(247);
    await up;

    // Then a phone advertises and the gateway's central connects to it, on the same controller.
    const phone = new BlenoPhone(blenoOnUart(peripheralPhoneHost.path), {});
    cleanup.push(() => phone.stop());
    await phone.start();
    const phoneId = peripheralPhoneHost.controller.address.replace(/:/g, '');
    await peerConnected(radio, phoneId);

    const connected = radio.peers().filter((p) => p.connected).map((p) => p.id).sort();
    assert.deepEqual(connected, [centralId, phoneId].sort(), 'both links are up at once');

    const toCentral = bigFrame(4_096);
    const atCentral = new Promise<Uint8Array>((resolve) => central.once('frame', resolve));
    await radio.send(centralId, toCentral);
    assert.equal(hexOf(await atCentral), hexOf(toCentral));

    const toPhone = frameOf('to the phone peripheral');
    const atPhone = new Promise<Uint8Array>((resolve) => phone.once('frame', resolve));
    await radio.send(phoneId, toPhone);
    assert.equal(hexOf(await atPhone), hexOf(toPhone));

    const fromCentral = frameOf('from the phone central');
    const inbound = new Promise<Uint8Array>((resolve) => radio.once('frame', (f) => resolve(f.frame)));
    await central.send(fromCentral);
    assert.equal(hexOf(await inbound), hexOf(fromCentral));
    assert.deepEqual(ble.violations(), []);
  });

  it('peripheral.adapter names a second UART controller: the GATT server runs on it, the central on the first, each link on its own controller', async () => {
    const ble = new VirtualBle();
    cleanup.push(() => ble.close());
    const [centralHost, serverHost, centralPhoneHost, peripheralPhoneHost] = await Promise.all([ble.host(), ble.host(), ble.host(), ble.host()]);
    const logger = new TestLogger();
    const radio = createRadio(
      {
        id: 'ble0',
        kind: 'ble',
        adapter: `uart:${centralHost.path}`,
        flow_control: false,
        min_write_gap_ms: 0,
        discovery_window_ms: 0,
        reconnect: { initial_ms: 100, max_ms: 2_000 },
        peripheral: { enabled: true, adapter: `uart:${serverHost.path}` },
      },
      { logger, stateDir: '/tmp/radios-test-state', identity: GATEWAY },
    ) as BleRadio;
    cleanup.push(() => radio.close());
    await radio.open();
    const opened = logger.lines.filter((l) => l.msg === 'BLE controller opened').map((l) => (l.obj as { controller?: string }).controller).sort();
    assert.deepEqual(opened, [`uart:${centralHost.path}`, `uart:${serverHost.path}`].sort(), 'each controller opened once');

    const central = new NoblePhoneCentral(nobleOnUart(centralPhoneHost.path));
    cleanup.push(() => central.stop());
    const centralId = centralPhoneHost.controller.address.replace(/:/g, '');
    const up = nextEvent(radio, 'peer', (p) => p.id === centralId && p.change !== 'down');
    await central.connect(247);
    await up;

    const phone = new BlenoPhone(blenoOnUart(peripheralPhoneHost.path), {});
    cleanup.push(() => phone.stop());
    await phone.start();
    const phoneId = peripheralPhoneHost.controller.address.replace(/:/g, '');
    await peerConnected(radio, phoneId);

    const links = [...ble.air.links].filter((l) => l.open).map((l) => `${l.central.controller.address} -> ${l.peripheral.controller.address}`).sort();
    assert.deepEqual(
      links,
      [`${centralPhoneHost.controller.address} -> ${serverHost.controller.address}`, `${centralHost.controller.address} -> ${peripheralPhoneHost.controller.address}`].sort(),
      'the phone central is on the GATT server\'s controller, the gateway central on its own',
    );
    // The gateway's central hears its own GATT server on the other controller and leaves it alone (IDENTITY is its own).
    assert.deepEqual(radio.peers().filter((p) => p.connected).map((p) => p.id).sort(), [centralId, phoneId].sort());

    const toCentral = bigFrame(4_096);
    const atCentral = new Promise<Uint8Array>((resolve) => central.once('frame', resolve));
    await radio.send(centralId, toCentral);
    assert.equal(hexOf(await atCentral), hexOf(toCentral));
    const fromPhone = frameOf('from the phone peripheral');
    const inbound = new Promise<Uint8Array>((resolve) => radio.once('frame', (f) => resolve(f.frame)));
    phone.send(fromPhone);
    assert.equal(hexOf(await inbound), hexOf(fromPhone));
    assert.deepEqual(ble.violations(), []);
  });

  it('a second radio configured with the same UART path fails with "in use"; the first keeps running', async () => {
    const ble = new VirtualBle();
    cleanup.push(() => ble.close());
    const host = await ble.host();
    const config = { id: 'ble0', kind: 'ble' as const, adapter: `uart:${host.path}`, flow_control: false, peripheral: { enabled: false } };
    const first = createRadio(config, { logger: new TestLogger(), stateDir: '/tmp/radios-test-state' }) as BleRadio;
    cleanup.push(() => first.close());
    await first.open();
    assert.notEqual(first.status().state, 'error');
    const logger = new TestLogger();
    const second = createRadio({ ...config, id: 'ble1' }, { logger, stateDir: '/tmp/radios-test-state' }) as BleRadio;
    cleanup.push(() => second.close());
    await second.open();
    assert.equal(second.status().state, 'error');
    assert.match(second.status().detail ?? '', /in use/);
    assert.notEqual(first.status().state, 'error');
  });

  async function twoRadios(): Promise<{ gatewayHost: VirtualHost; radio: BleRadio; other: BleRadio; phone: BlenoPhone; phoneId: string }> {
    const ble = new VirtualBle();
    cleanup.push(() => ble.close());
    const [gatewayHost, otherHost, phoneHost] = await Promise.all([ble.host(), ble.host(), ble.host()]);
    // The other radio must not take the phone while the first one's link is down.
    ble.air.apart(otherHost.controller.address, phoneHost.controller.address);
    const phone = new BlenoPhone(blenoOnUart(phoneHost.path), {});
    cleanup.push(() => phone.stop());
    await phone.start();
    const phoneId = phoneHost.controller.address.replace(/:/g, '');
    const base = { kind: 'ble' as const, flow_control: false, min_write_gap_ms: 0, discovery_window_ms: 0, reconnect: { initial_ms: 100, max_ms: 400 }, peripheral: { enabled: false } };
    const radio = createRadio({ ...base, id: 'ble0', adapter: `uart:${gatewayHost.path}` }, { logger: new TestLogger(), stateDir: '/tmp/radios-test-state' }) as BleRadio;
    const other = createRadio({ ...base, id: 'ble1', adapter: `uart:${otherHost.path}` }, { logger: new TestLogger(), stateDir: '/tmp/radios-test-state' }) as BleRadio;
    cleanup.push(() => radio.close());
    cleanup.push(() => other.close());
    await Promise.all([radio.open(), other.open()]);
    await peerConnected(radio, phoneId);
    return { gatewayHost, radio, other, phone, phoneId };
  }

  it('a controller that sends garbage: the radio goes degraded with the reason, reopens it with backoff and the phone is back; another radio keeps running', async () => {
    const { gatewayHost, radio, other, phone, phoneId } = await twoRadios();
    // Both listeners are in place before the fault: under load the phone may be back before the degraded event's
    // promise has even been read, and a listener added only then would wait for ever.
    let sawDegraded = false;
    const degraded = nextEvent(radio, 'status', (st) => (sawDegraded ||= st.state === 'degraded'));
    const back = nextEvent(radio, 'peer', (p) => sawDegraded && p.id === phoneId && p.change !== 'down');
    gatewayHost.controller.garbage();
    const st = await degraded;
    assert.match(st.detail ?? '', /uart:\/dev\/pts\/\d+: .*H4 packet indicator.*reopening/);
    assert.notEqual(other.status().state, 'degraded', 'the other radio is untouched');
    await back;
    const again = frameOf('after garbage');
    const arrived = new Promise<Uint8Array>((resolve) => phone.once('frame', resolve));
    await radio.send(phoneId, again);
    assert.equal(hexOf(await arrived), hexOf(again));
  });

  it('a controller that is unplugged: the radio goes degraded naming the port and keeps trying; another radio keeps running', async () => {
    const { gatewayHost, radio, other } = await twoRadios();
    const degraded = nextEvent(radio, 'status', (st) => st.state === 'degraded');
    await gatewayHost.close();
    const st = await degraded;
    assert.match(st.detail ?? '', new RegExp(`uart:${gatewayHost.path}`));
    const retried = nextEvent(radio, 'status', (s) => /reopening failed/.test(s.detail ?? ''));
    assert.match((await retried).detail ?? '', /reopening failed/);
    assert.equal(radio.status().state, 'degraded');
    assert.notEqual(other.status().state, 'degraded', 'the other radio is untouched');
  });

  it('a controller that stops answering: the watchdog notices within seconds and the radio goes degraded saying so', async () => {
    const { gatewayHost, radio, other } = await twoRadios();
    const degraded = nextEvent(radio, 'status', (st) => st.state === 'degraded');
    gatewayHost.controller.detach();
    const st = await degraded;
    assert.match(st.detail ?? '', /stopped answering/);
    assert.notEqual(other.status().state, 'degraded', 'the other radio is untouched');
  });

  it('a central at ATT MTU 23 on the GATT server: reported on the peer, in a counter and in a log line naming it, instead of frames vanishing', async () => {
    const ble = new VirtualBle();
    cleanup.push(() => ble.close());
    const [gatewayHost, phoneHost] = await Promise.all([ble.host(), ble.host()]);
    const logger = new TestLogger();
    const radio = createRadio(
      { id: 'ble0', kind: 'ble', adapter: `uart:${gatewayHost.path}`, flow_control: false, min_write_gap_ms: 0, discovery_window_ms: 0, peripheral: { enabled: true } },
      { logger, stateDir: '/tmp/radios-test-state', identity: GATEWAY },
    ) as BleRadio;
    cleanup.push(() => radio.close());
    await radio.open();
    const central = new NoblePhoneCentral(nobleOnUart(phoneHost.path));
    cleanup.push(() => central.stop());
    const centralId = phoneHost.controller.address.replace(/:/g, '');
    const reported = nextEvent(radio, 'peer', (p) => p.id === centralId && p.problem !== undefined);
    await central.connect(23);
    const peer = await reported;
    assert.match(peer.problem ?? '', /ATT MTU 23 cannot carry one fragment header/);
    assert.equal(radio.status().counters?.mtuTooSmall, 1);
    assert.ok(logger.lines.some((l) => l.level === 'warn' && (l.msg ?? '').includes(centralId) && /ATT MTU 23/.test(l.msg ?? '')), 'a warning naming the central');
    await assert.rejects(radio.send(centralId, frameOf('an ACK that cannot fit')), (err: unknown) => (err as { code?: string }).code === 'FRAME_TOO_LARGE');
  });

  it('a phone peripheral at ATT MTU 23 under the gateway central: reported on the peer, in a counter and in a log line naming it, instead of its frames vanishing', async () => {
    const ble = new VirtualBle();
    cleanup.push(() => ble.close());
    const [gatewayHost, phoneHost] = await Promise.all([ble.host(), ble.host()]);
    const phone = new BlenoPhone(blenoOnUart(phoneHost.path), { maxAttMtu: 23 });
    cleanup.push(() => phone.stop());
    await phone.start();
    const logger = new TestLogger();
    const radio = createRadio(
      { id: 'ble0', kind: 'ble', adapter: `uart:${gatewayHost.path}`, flow_control: false, min_write_gap_ms: 0, discovery_window_ms: 0, peripheral: { enabled: false } },
      { logger, stateDir: '/tmp/radios-test-state' },
    ) as BleRadio;
    cleanup.push(() => radio.close());
    const phoneId = phoneHost.controller.address.replace(/:/g, '');
    const reported = nextEvent(radio, 'peer', (p) => p.id === phoneId && p.problem !== undefined);
    const subscribed = new Promise<void>((resolve) => phone.once('subscribed', () => resolve()));
    await radio.open();
    const peer = await reported;
    await subscribed;
    assert.equal(phone.attMtu, 23, 'the MTU both stacks settled on');
    assert.match(peer.problem ?? '', /ATT MTU 23 cannot carry one fragment header .*has 20\).*peripheral must accept a larger MTU/);
    assert.equal(radio.status().counters?.mtuTooSmall, 1);
    assert.ok(logger.lines.some((l) => l.level === 'warn' && (l.msg ?? '').includes(`peripheral ${phoneId}`) && /ATT MTU 23/.test(l.msg ?? '')), 'a warning naming the phone');
    assert.equal(logger.lines.filter((l) => /ATT MTU 23/.test(l.msg ?? '')).length, 1, 'one warning per link');
    // The gateway's own writes still reach the phone (185-byte write commands, which neither stack holds to the MTU).
    const out = frameOf('to the phone at 23');
    const arrived = new Promise<Uint8Array>((resolve) => phone.once('frame', resolve));
    await radio.send(phoneId, out);
    assert.equal(hexOf(await arrived), hexOf(out));
    assert.equal(radio.peers().find((p) => p.id === phoneId)?.problem, peer.problem, 'the problem stays on the peer');
  });
});
