/**
 * The HCI user channel (`adapter: hciN` with `hci_channel: user`): how a failed bind reads (each kernel refusal a
 * coded error carrying its remedy), what the package's real native socket does on this machine, and both roles of
 * the radio through the HCI multiplexer over a user-channel transport whose socket is a devble controller at the
 * byte level (this machine has no Bluetooth sockets; the kernel's side of the bind is the one part not run here).
 */
import assert from 'node:assert/strict';
import { createRadio } from '../../../../gateway/radios';
import type { BleRadio } from '../../../../gateway/radios/ble/ble-radio';
import { BleTransportError } from '../../../../gateway/radios/ble/errors';
import { HciController } from '../../../../gateway/radios/ble/hci-controller';
import { userChannelOpenError } from '../../../../gateway/radios/ble/hci-user-channel';
import { probeUserChannelController } from '../../../../gateway/radios/ble/controller-probe';
import { checkRadioReadiness } from '../../../../gateway/radios/readiness';
import { resolveRadioConfig } from '../../../../gateway/radios/radio-config';
import { identityFromSeed } from '../../../../gateway/radios/mesh-identity';
import { VirtualBle } from '../../../../devble/virtual-ble';
import { BlenoPhone } from '../../../../demo/ble-phone';
import { blenoOnUart, nobleOnUart } from '../../../../demo/ble-hosts';
import { bigFrame, frameOf, hexOf } from '../support/frames';
import { nextEvent, peerConnected } from '../support/radio-suite';
import { TestLogger } from '../support/test-logger';
import { NoblePhoneCentral } from '../support/noble-phone-central';
import { VirtualUserChannel } from './support/virtual-user-channel';

const GATEWAY = identityFromSeed('user-channel-gateway');

describe('gateway/radios/ble the HCI user channel', function () {
  this.timeout(60_000);
  const cleanup: Array<() => Promise<void> | void> = [];

  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  describe('userChannelOpenError', () => {
    // The native code throws strerror(errno) text for a failed bind, and emits the socket() failure with errno only.
    const cases: Array<{ kernel: string; code: string; remedy: RegExp }> = [
      { kernel: 'Device or resource busy', code: 'HELD_BY_BLUEZ', remedy: /sudo btmgmt --index 1 power off.*sudo hciconfig hci1 down/ },
      { kernel: 'Too many users', code: 'IN_USE', remedy: /another process on the user channel/ },
      { kernel: 'Operation not permitted', code: 'PERMISSION', remedy: /CAP_NET_ADMIN.*AmbientCapabilities=CAP_NET_ADMIN.*setcap cap_net_admin\+eip/ },
      { kernel: 'No such device', code: 'NO_DEVICE', remedy: /no such adapter \(btmgmt info/ },
      { kernel: 'Address family not supported by protocol', code: 'UNSUPPORTED', remedy: /no HCI user channel.*use adapter: uart:<path>/ },
      { kernel: 'Invalid argument', code: 'UNSUPPORTED', remedy: /older than 3\.13/ },
    ];
    for (const { kernel, code, remedy } of cases) {
      it(`"${kernel}" is ${code}, naming the adapter and the remedy`, () => {
        const cause = new Error(kernel);
        const err = userChannelOpenError(1, cause);
        assert.ok(err instanceof BleTransportError);
        assert.equal(err.code, code);
        assert.match(err.message, /^hci1: /);
        assert.match(err.message, remedy);
        assert.equal(err.cause, cause);
      });
    }

    it('an error it does not know keeps the kernel\'s words', () => {
      const err = userChannelOpenError(2, new Error('Network is down'));
      assert.equal(err.code, 'NO_DEVICE');
      assert.equal(err.message, 'hci2: cannot open the HCI user channel: Network is down');
    });
  });

  it('the package\'s real native socket on this machine: the open fails with a coded error naming the adapter, never a bare one', async () => {
    const controller = new HciController({ index: 15 });
    cleanup.push(() => controller.close());
    await assert.rejects(controller.open(), (err: unknown) => {
      assert.ok(err instanceof BleTransportError, String(err));
      // A machine without Bluetooth sockets says UNSUPPORTED; one with them has no hci15 or no CAP_NET_ADMIN here.
      assert.ok(['UNSUPPORTED', 'NO_DEVICE', 'PERMISSION'].includes(err.code), err.code);
      assert.match(err.message, /^hci15: /);
      return true;
    });
  });

  describe('--check on a user-channel adapter', () => {
    it('prints manufacturer, HCI version and address, and gives the adapter back (a second check binds it again)', async () => {
      const ble = new VirtualBle();
      cleanup.push(() => ble.close());
      const adapter = new VirtualUserChannel(ble.air);
      cleanup.push(() => adapter.close());
      const ref = { index: 1, label: 'hci1' };
      const first = await probeUserChannelController(ref, 'radios[0]', () => adapter.socket());
      assert.equal(first.ok, true, first.detail);
      assert.match(first.detail, /^hci1: The Linux Foundation, HCI 5\.0, address [0-9a-f:]{17}$/);
      assert.ok(first.detail.endsWith(adapter.controller.address.toLowerCase()), first.detail);
      const second = await probeUserChannelController(ref, 'radios[0]', () => adapter.socket());
      assert.equal(second.ok, true, second.detail);
    });

    it('an adapter BlueZ holds: the failure and the command that frees it', async () => {
      const ble = new VirtualBle();
      cleanup.push(() => ble.close());
      const adapter = new VirtualUserChannel(ble.air);
      cleanup.push(() => adapter.close());
      const busy = adapter.socket();
      busy.bindUser = () => {
        throw new Error('Device or resource busy');
      };
      const r = await probeUserChannelController({ index: 2, label: 'hci2' }, 'radios[0]', () => busy);
      assert.equal(r.ok, false);
      assert.equal(r.code, 'HELD_BY_BLUEZ');
      assert.match(r.detail, /^hci2: held by BlueZ/);
      assert.match(r.remedy ?? '', /^sudo btmgmt --index 2 power off \(or sudo hciconfig hci2 down\)/);
    });

    it('through the readiness check with the real native socket on this machine: not ready, the controller\'s failure a problem naming hci15', async () => {
      const r = await checkRadioReadiness(resolveRadioConfig({ id: 'ble0', kind: 'ble', adapter: 'hci15', hci_channel: 'user' }, 'radios[0]'), 'radios[0]');
      assert.equal(r.ready, false);
      const failed = r.problems.find((p) => p.code === 'CONTROLLER_FAILED');
      assert.ok(failed !== undefined, JSON.stringify(r.problems));
      assert.match(failed.problem, /^hci15: /);
      assert.ok(failed.remedy.length > 0);
    });
  });

  it('a radio on a user-channel adapter BlueZ still holds: error with the command that frees it', async () => {
    const busy = Object.assign(new Error('Device or resource busy'), { errno: 16 });
    const ble = new VirtualBle();
    cleanup.push(() => ble.close());
    const logger = new TestLogger();
    const radio = createRadio(
      { id: 'ble0', kind: 'ble', adapter: 'hci1', hci_channel: 'user', peripheral: { enabled: true } },
      {
        logger,
        stateDir: '/tmp/radios-test-state',
        identity: GATEWAY,
        hciSocket: () => {
          const channel = new VirtualUserChannel(ble.air);
          cleanup.push(() => channel.close());
          const socket = channel.socket();
          socket.bindUser = () => {
            throw busy;
          };
          return socket;
        },
      },
    ) as BleRadio;
    cleanup.push(() => radio.close());
    await radio.open();
    assert.equal(radio.status().state, 'error');
    assert.match(radio.status().detail ?? '', /^hci1: held by BlueZ .*sudo btmgmt --index 1 power off/);
  });

  it('both roles on one user-channel adapter through the multiplexer: a phone central on the GATT server and a phone peripheral under the central, frames each way', async () => {
    const ble = new VirtualBle();
    cleanup.push(() => ble.close());
    const adapter = new VirtualUserChannel(ble.air);
    cleanup.push(() => adapter.close());
    const [centralPhoneHost, peripheralPhoneHost] = await Promise.all([ble.host(), ble.host()]);
    const logger = new TestLogger();
    const radio = createRadio(
      { id: 'ble0', kind: 'ble', adapter: 'hci1', hci_channel: 'user', min_write_gap_ms: 0, discovery_window_ms: 0, reconnect: { initial_ms: 100, max_ms: 2_000 }, peripheral: { enabled: true } },
      { logger, stateDir: '/tmp/radios-test-state', identity: GATEWAY, hciSocket: (index) => (index === 1 ? adapter.socket() : assert.fail(`bound hci${index}`)) },
    ) as BleRadio;
    cleanup.push(() => radio.close());
    await radio.open();
    assert.equal(adapter.opened, 1, 'one socket for both stacks');
    const opened = logger.lines.find((l) => l.msg === 'BLE controller opened');
    assert.equal((opened?.obj as { controller?: string; address?: string }).controller, 'hci1');
    assert.equal((opened?.obj as { address?: string }).address, adapter.controller.address.toLowerCase());

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
    assert.deepEqual(radio.peers().filter((p) => p.connected).map((p) => p.id).sort(), [centralId, phoneId].sort(), 'both links up at once');
    const links = [...ble.air.links].filter((l) => l.open).map((l) => `${l.central.controller.address} -> ${l.peripheral.controller.address}`).sort();
    assert.deepEqual(links, [`${centralPhoneHost.controller.address} -> ${adapter.controller.address}`, `${adapter.controller.address} -> ${peripheralPhoneHost.controller.address}`].sort());

    const toCentral = bigFrame(4_096);
    const atCentral = new Promise<Uint8Array>((resolve) => central.once('frame', resolve));
    await radio.send(centralId, toCentral);
    assert.equal(hexOf(await atCentral), hexOf(toCentral));
    const toPhone = frameOf('to the phone peripheral over the user channel');
    const atPhone = new Promise<Uint8Array>((resolve) => phone.once('frame', resolve));
    await radio.send(phoneId, toPhone);
    assert.equal(hexOf(await atPhone), hexOf(toPhone));
    const fromCentral = frameOf('from the phone central over the user channel');
    const inbound = new Promise<Uint8Array>((resolve) => radio.once('frame', (f) => resolve(f.frame)));
    await central.send(fromCentral);
    assert.equal(hexOf(await inbound), hexOf(fromCentral));
    assert.deepEqual([...ble.violations(), ...adapter.controller.violations], []);
  });

  it('a second radio on the same user-channel adapter fails with "in use"; the first keeps running', async () => {
    const ble = new VirtualBle();
    cleanup.push(() => ble.close());
    const adapter = new VirtualUserChannel(ble.air);
    cleanup.push(() => adapter.close());
    const config = { kind: 'ble' as const, adapter: 'hci1', hci_channel: 'user' as const, peripheral: { enabled: false } };
    const deps = { logger: new TestLogger(), stateDir: '/tmp/radios-test-state', hciSocket: () => adapter.socket() };
    const first = createRadio({ ...config, id: 'ble0' }, deps) as BleRadio;
    cleanup.push(() => first.close());
    await first.open();
    assert.notEqual(first.status().state, 'error');
    const second = createRadio({ ...config, id: 'ble1' }, deps) as BleRadio;
    cleanup.push(() => second.close());
    await second.open();
    assert.equal(second.status().state, 'error');
    assert.match(second.status().detail ?? '', /^hci1: in use by another process on the user channel/);
    assert.notEqual(first.status().state, 'error');
    assert.equal(adapter.opened, 2, 'the second radio did try the adapter');
  });
});
