/**
 * The pairing window end to end: a gateway whose BLE radio admits listed peers only, a phone on a virtual LE
 * controller (noble and bleno's own host stacks, devble/), a real aedes broker, and the window opened as Home
 * Assistant's switch opens it. What the window admits is kept in the state folder; the phone's battery and load
 * from its signed IDENTITY advertisement reach its Home Assistant device.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { VirtualBle } from '../../../../devble/virtual-ble';
import { BlenoPhone } from '../../../../demo/ble-phone';
import { blenoOnUart } from '../../../../demo/ble-hosts';
import { PAIRED_PEERS_FILE } from '../../../../gateway/radios/peer-admission';
import { discoveryProblems } from '../../../support/ha-discovery-rules';
import { eventually, Recorder, startBroker, type TestBroker } from '../../support/broker';
import { startGateway, tempDir, type Running } from '../../support/gateway';

const BASE = 'clawling/gw-pair';

describe('the BLE pairing window through noble and bleno on a virtual LE controller (aedes)', function () {
  this.timeout(60_000);
  let broker: TestBroker;
  let rec: Recorder;
  let ble: VirtualBle;
  let phone: BlenoPhone;
  let gw: Running | undefined;
  let dir: string;

  beforeEach(async () => {
    broker = await startBroker();
    rec = await Recorder.connect(broker.url, [`${BASE}/bridge/#`, 'homeassistant/#', 'clawling/nodes/#']);
    dir = tempDir('gw-pair-');
  });
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
    phone?.stop();
    await ble?.close();
    await rec.close();
    await broker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('takes no phone until the switch is turned on, then admits it for good, with its battery and load in Home Assistant', async () => {
    ble = new VirtualBle();
    const [gatewayHost, phoneHost] = await Promise.all([ble.host(), ble.host()]);
    phone = new BlenoPhone(blenoOnUart(phoneHost.path), { maxAttMtu: 247, advertisement: { battery: 80, load: 7 } });
    await phone.start();
    const radio = { id: 'ble0', kind: 'ble', adapter: `uart:${gatewayHost.path}`, admission: 'listed', flow_control: false, min_write_gap_ms: 0, discovery_window_ms: 0, reconnect: { initial_ms: 100, max_ms: 1_000 }, peripheral: { enabled: false } };
    const config = { gateway: { id: 'gw-pair' }, mqtt: { enabled: true, url: broker.url, base_topic: BASE }, radios: [radio] };
    gw = await startGateway(broker, config, dir);
    const options = (): Array<{ pairing?: string; pairing_admitted?: string[] }> => rec.json(`${BASE}/bridge/options`);
    await rec.until(() => options().length > 0, 5000, 'the options');

    // The phone advertises the mesh service, but nobody is listed and the window is closed.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(phone.subscribed, false, 'no link while the window is closed');
    assert.equal(gw.gateway.radios[0]!.peers().some((p) => p.connected), false);

    const subscribed = new Promise<void>((resolve) => phone.once('subscribed', () => resolve()));
    await rec.client.publishAsync(`${BASE}/bridge/request/pairing`, 'ON', { qos: 1 });
    await subscribed;
    const address = phone.identity.address;
    await rec.until(() => options().some((o) => o.pairing === 'ON' && o.pairing_admitted?.includes(address) === true), 10_000, 'the phone admitted');
    const file = JSON.parse(fs.readFileSync(path.join(dir, 'state', PAIRED_PEERS_FILE), 'utf8')) as { peers: Array<{ ref: string; radio: string }> };
    assert.ok(file.peers.some((p) => p.ref === address && p.radio === 'ble0'), JSON.stringify(file));

    // Battery on by default, load off, as Zigbee2MQTT's battery and link quality.
    const deviceTopic = `homeassistant/device/mesh_${address}/config`;
    await rec.until(() => rec.on(deviceTopic).some((m) => m.payload.toString().includes('ble_battery')), 10_000, 'the battery entity');
    const dev = JSON.parse(rec.on(deviceTopic).at(-1)!.payload.toString()) as { components: Record<string, Record<string, unknown>> };
    assert.equal(dev.components.ble_battery!.device_class, 'battery');
    assert.equal(dev.components.ble_battery!.enabled_by_default, undefined);
    assert.equal(dev.components.ble_load!.enabled_by_default, false);
    const states = (): Array<{ health: { battery: number | null; load: number | null } }> => rec.json(`clawling/nodes/${address}/state`);
    await rec.until(() => states().some((s) => s.health.battery === 80), 5000, 'the battery state');
    assert.equal(states().at(-1)!.health.load, 7);
    assert.deepEqual(discoveryProblems(rec.messages), []);

    await rec.client.publishAsync(`${BASE}/bridge/request/pairing`, 'OFF', { qos: 1 });
    await rec.until(() => options().at(-1)!.pairing === 'OFF', 5000, 'the switch off');

    // A restart: the window is closed, and the phone is taken back because the state folder lists it.
    await gw.stop();
    gw = undefined;
    const back = new Promise<void>((resolve) => phone.once('subscribed', () => resolve()));
    gw = await startGateway(broker, config, dir);
    await back;
    const again = gw;
    await eventually(() => again.gateway.radios[0]!.peers().some((p) => p.connected && p.address === address), 10_000, 'the phone back as a peer');
  });
});
