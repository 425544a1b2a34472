/**
 * The demo's gateway configuration gives Home Assistant typed entities: the kitchen's "temperature 21.5 °C" becomes a
 * temperature sensor in °C and the garden's "soil moisture 40 %" a moisture sensor, on a real broker.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { loadConfig } from '../../gateway/load-config';
import { Gateway } from '../../gateway/gateway';
import type { SimulatedRadio } from '../../gateway/radios';
import { createMessage } from '../../lib/mesh/message';
import { MessageId } from '../../lib/mesh/message-id';
import { DEMO, PEERS, gatewayConfig } from '../../demo/settings';
import { discoveryProblems } from '../support/ha-discovery-rules';
import { Recorder, eventually, startBroker, type TestBroker } from '../gateway/support/broker';
import { tempDir } from '../gateway/support/gateway';

describe('the demo gateway in Home Assistant', function () {
  this.timeout(20000);
  let broker: TestBroker;
  let gateway: Gateway;
  let rec: Recorder;
  let dir: string;

  before(async () => {
    broker = await startBroker();
    dir = tempDir('demo-ha-');
    const raw = gatewayConfig({ stateDir: path.join(dir, 'state'), hubUrl: 'ws://127.0.0.1:1/ws', mqttUrl: broker.url, statusPort: 0 });
    // The hub is not part of what this test looks at.
    const config = loadConfig({ text: YAML.stringify({ ...raw, hub: { enabled: false }, log: { level: 'silent' } }), env: {} }).config;
    gateway = new Gateway(config);
    await gateway.start();
    await eventually(() => gateway.mqtt?.connected === true, 10000, 'connected');
    rec = await Recorder.connect(broker.url, ['homeassistant/#', 'clawling/nodes/#']);
  });
  after(async () => {
    await rec.close();
    await gateway.stop('test');
    await broker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('maps the kitchen and the garden readings to typed sensors, one device per node', async () => {
    const peer = (radio: string, id: string) => (gateway.radios.find((r) => r.id === radio) as SimulatedRadio).virtualPeer(id)!;
    const say = (radio: string, id: string, content: string) => {
      const p = peer(radio, id);
      return p.send(createMessage({ id: MessageId.random(), sender: p.address, recipient: gateway.info.address, app_id: 'demo', priority: 'medium', ttl: 8, hop_count: 0, timestamp: BigInt(Date.now()), content }));
    };
    await say('sim0', 'kitchen', 'temperature 21.5 °C');
    await say('sim1', 'garden', 'soil moisture 40 %');
    const state = (address: string) => rec.json<{ name: string; readings: Record<string, unknown> }>(`clawling/nodes/${address}/state`).at(-1);
    await rec.until(() => state(PEERS.kitchen.address)?.readings.temperature === 21.5 && state(PEERS.garden.address)?.readings.soil_moisture === 40, 10000, 'typed readings');
    assert.equal(state(PEERS.kitchen.address)!.name, 'Kitchen');
    const config = (address: string) => JSON.parse(rec.on(`homeassistant/device/mesh_${address}/config`).at(-1)!.payload.toString()) as { components: Record<string, Record<string, unknown>> };
    const temperature = config(PEERS.kitchen.address).components.temperature!;
    assert.equal(temperature.unit_of_measurement, '°C');
    assert.equal(temperature.device_class, 'temperature');
    assert.equal(temperature.default_entity_id, 'sensor.kitchen_temperature');
    assert.equal(config(PEERS.garden.address).components.soil_moisture!.device_class, 'moisture');
    assert.ok(rec.on(`homeassistant/device/mesh_${PEERS.porch.address}/config`).length > 0, 'the porch is a device too, without readings');
    assert.ok(rec.on(`homeassistant/device/clawling_${DEMO.gatewayId}/config`).length > 0, 'and the gateway');
    assert.deepEqual(discoveryProblems(rec.messages), []);
  });
});
