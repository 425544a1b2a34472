/**
 * Radio readiness against real folders: packages that fail to load under a temporary module root, a sysfs tree with
 * or without the adapter, a /proc status file with or without the capabilities, device paths that do or do not exist.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { checkRadioReadiness, formatReadiness, SETCAP_LINE } from '../../../gateway/radios/readiness';
import { resolveRadioConfig, type RadioConfig } from '../../../gateway/radios/radio-config';
import { packageWithNative } from '../support/broken-packages';
import { tempDir } from '../support/gateway';

const HCI = "exports.loadDriver = () => require('./native.node');\n";
const ALL_CAPS = 'Name:\tnode\nCapEff:\t000001ffffffffff\n';
const NO_CAPS = 'Name:\tnode\nCapEff:\t0000000000000000\n';

describe('gateway/radios readiness', () => {
  let dir: string;
  let sysDir: string;
  let procDir: string;
  let devDir: string;
  beforeEach(() => {
    dir = tempDir('gw-ready-');
    sysDir = path.join(dir, 'sys');
    procDir = path.join(dir, 'proc');
    devDir = path.join(dir, 'dev');
    fs.mkdirSync(path.join(procDir, 'self'), { recursive: true });
    fs.mkdirSync(devDir, { recursive: true });
    fs.writeFileSync(path.join(procDir, 'self', 'status'), ALL_CAPS);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const check = (config: RadioConfig, moduleRoot = path.join(dir, 'empty')) =>
    checkRadioReadiness(resolveRadioConfig(config, 'radios[0]'), 'radios[0]', { moduleRoot, sysDir, procDir, devDir, platform: 'linux', user: 'pi' });

  function installBle(root: string, native: Buffer): void {
    for (const name of ['@stoprocent/noble', '@stoprocent/bleno']) {
      fs.mkdirSync(path.join(root, 'node_modules', name), { recursive: true });
      fs.writeFileSync(path.join(root, 'node_modules', name, 'package.json'), JSON.stringify({ name, version: '0.0.0-test' }));
    }
    packageWithNative(root, '@stoprocent/bluetooth-hci-socket', native, HCI);
  }

  it('a simulated radio is always ready', async () => {
    const r = await check({ id: 'sim0', kind: 'simulated' });
    assert.deepEqual([r.ready, r.problems], [true, []]);
    assert.equal(formatReadiness(r), 'radio sim0 (simulated): ready');
  });

  it('BLE without noble: the exact install command, in the gateway folder', async () => {
    fs.mkdirSync(path.join(dir, 'empty'), { recursive: true });
    fs.mkdirSync(path.join(sysDir, 'class', 'bluetooth', 'hci0'), { recursive: true });
    const r = await check({ id: 'ble0', kind: 'ble', peripheral: { enabled: false } });
    assert.equal(r.ready, false);
    assert.deepEqual(r.problems.map((p) => p.code), ['PACKAGE_MISSING']);
    assert.equal(r.problems[0]!.remedy, `cd ${path.join(dir, 'empty')} && npm install @stoprocent/noble`);
  });

  it('BLE whose HCI socket addon does not load: npm rebuild of that package, where it is installed', async () => {
    const root = path.join(dir, 'app');
    installBle(root, Buffer.from('this is not a shared object'));
    fs.mkdirSync(path.join(sysDir, 'class', 'bluetooth', 'hci0'), { recursive: true });
    const r = await check({ id: 'ble0', kind: 'ble' }, root);
    assert.deepEqual(r.problems.map((p) => p.code), ['PACKAGE_UNLOADABLE'], 'noble and bleno share one addon: one problem');
    assert.match(r.problems[0]!.problem, /@stoprocent\/bluetooth-hci-socket is installed but its native module does not load on this system: .*(invalid ELF header|file too short)/);
    assert.equal(r.problems[0]!.remedy, `cd ${root} && npm rebuild @stoprocent/bluetooth-hci-socket`);
  });

  it('BLE with the package but no adapter and no capabilities: both, with ls /sys/class/bluetooth and the setcap line', async () => {
    const root = path.join(dir, 'app');
    // A loadable "addon": the real one of this machine is not needed, only something require() accepts.
    packageWithNative(root, '@stoprocent/bluetooth-hci-socket', Buffer.alloc(0), 'exports.loadDriver = () => ({});\n');
    for (const name of ['@stoprocent/noble']) {
      fs.mkdirSync(path.join(root, 'node_modules', name), { recursive: true });
      fs.writeFileSync(path.join(root, 'node_modules', name, 'package.json'), JSON.stringify({ name, version: '0.0.0-test' }));
    }
    fs.writeFileSync(path.join(procDir, 'self', 'status'), NO_CAPS);
    const r = await check({ id: 'ble0', kind: 'ble', adapter: 'hci1', peripheral: { enabled: false } }, root);
    assert.deepEqual(r.problems.map((p) => p.code), ['ADAPTER_MISSING', 'PERMISSION_MISSING']);
    assert.match(r.problems[0]!.problem, /no Bluetooth adapter hci1/);
    assert.match(r.problems[0]!.remedy, /^ls .*class\/bluetooth lists the adapters/);
    assert.ok(r.problems[1]!.remedy.startsWith(SETCAP_LINE), r.problems[1]!.remedy);
    assert.match(r.problems[1]!.remedy, /AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN/);

    fs.mkdirSync(path.join(sysDir, 'class', 'bluetooth', 'hci1'), { recursive: true });
    fs.writeFileSync(path.join(procDir, 'self', 'status'), ALL_CAPS);
    const ok = await check({ id: 'ble0', kind: 'ble', adapter: 'hci1', peripheral: { enabled: false } }, root);
    assert.deepEqual(ok.problems, []);
  });

  it('BLE on the HCI user channel: CAP_NET_ADMIN alone is enough, and its absence is named with the unit line', async () => {
    const root = path.join(dir, 'app');
    packageWithNative(root, '@stoprocent/bluetooth-hci-socket', Buffer.alloc(0), 'exports.loadDriver = () => ({});\n');
    fs.mkdirSync(path.join(root, 'node_modules', '@stoprocent/noble'), { recursive: true });
    fs.writeFileSync(path.join(root, 'node_modules', '@stoprocent/noble', 'package.json'), JSON.stringify({ name: '@stoprocent/noble', version: '0.0.0-test' }));
    fs.mkdirSync(path.join(sysDir, 'class', 'bluetooth', 'hci1'), { recursive: true });
    const config = { id: 'ble0', kind: 'ble' as const, adapter: 'hci1', hci_channel: 'user' as const, peripheral: { enabled: false } };
    // The adapter itself is also opened (CONTROLLER_FAILED where this machine has none); the capabilities are the point here.
    const permission = (r: { problems: Array<{ code: string; problem: string; remedy: string }> }) => r.problems.filter((p) => p.code === 'PERMISSION_MISSING');

    fs.writeFileSync(path.join(procDir, 'self', 'status'), NO_CAPS);
    const none = permission(await check(config, root));
    assert.equal(none.length, 1);
    assert.match(none[0]!.problem, /the HCI user channel needs CAP_NET_ADMIN/);
    assert.doesNotMatch(none[0]!.problem, /CAP_NET_RAW/);
    assert.match(none[0]!.remedy, /AmbientCapabilities=CAP_NET_ADMIN in the unit/);

    // CAP_NET_ADMIN is bit 12.
    fs.writeFileSync(path.join(procDir, 'self', 'status'), 'Name:\tnode\nCapEff:\t0000000000001000\n');
    assert.deepEqual(permission(await check(config, root)), []);
    // The raw channel on the same adapter with the same capabilities still lacks CAP_NET_RAW.
    assert.equal(permission(await check({ ...config, hci_channel: 'raw' as const }, root)).length, 1);
  });

  it('serial: a path that does not exist, then does; and serialport not loading', async () => {
    const device = path.join(devDir, 'ttyACM0');
    const real = path.resolve(__dirname, '..', '..', '..', '..');
    const absent = await check({ id: 'usb0', kind: 'serial', path: device }, real);
    assert.deepEqual(absent.problems.map((p) => p.code), ['DEVICE_ABSENT']);
    assert.match(formatReadiness(absent), /^radio usb0 \(serial\): not ready: .*ttyACM0 does not exist .*; fix: plug the device in, or correct radios\[0\]\.path/);
    fs.writeFileSync(device, '');
    assert.equal((await check({ id: 'usb0', kind: 'serial', path: device }, real)).ready, true);

    const broken = path.join(dir, 'app');
    packageWithNative(broken, 'serialport', Buffer.from('garbage'));
    const r = await check({ id: 'usb0', kind: 'serial', path: device }, broken);
    assert.deepEqual(r.problems.map((p) => p.code), ['PACKAGE_UNLOADABLE']);
    assert.equal(r.problems[0]!.remedy, `cd ${broken} && npm rebuild serialport`);
  });

  it('serial by match: scans /dev and sysfs when the platform list is unavailable, and names the wanted ids', async () => {
    const r = await check({ id: 'usb0', kind: 'serial', match: { vendor_id: '2fe3' } });
    assert.deepEqual(r.problems.map((p) => p.code), ['PACKAGE_MISSING', 'DEVICE_ABSENT']);
    assert.match(r.problems[1]!.problem, /no connected serial port matches vendor_id=2fe3 \(0 port\(s\) listed/);
    // A USB CDC device as sysfs shows it.
    const usb = path.join(sysDir, 'devices', 'usb1', '1-1');
    fs.mkdirSync(path.join(usb, '1-1:1.0', 'tty', 'ttyACM0'), { recursive: true });
    fs.writeFileSync(path.join(usb, 'idVendor'), '2fe3\n');
    fs.mkdirSync(path.join(sysDir, 'class', 'tty', 'ttyACM0'), { recursive: true });
    fs.symlinkSync(path.join(usb, '1-1:1.0'), path.join(sysDir, 'class', 'tty', 'ttyACM0', 'device'));
    fs.writeFileSync(path.join(devDir, 'ttyACM0'), '');
    const found = await check({ id: 'usb0', kind: 'serial', match: { vendor_id: '2fe3' } });
    assert.deepEqual(found.problems.map((p) => p.code), ['PACKAGE_MISSING']);
  });
});
