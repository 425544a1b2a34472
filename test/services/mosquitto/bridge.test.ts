/**
 * docs/scaling.md's Mosquitto bridge between two buildings, as documented: two real Mosquittos, the house one running
 * docs/examples/mosquitto/bridge-barn.conf (only the address and the login made local), a gateway on the barn broker.
 * Home Assistant on the house broker sees the barn gateway's and nodes' devices, its birth message reaches the barn
 * gateway (which announces them again), and a text from a notify entity on the house reaches the barn node.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Recorder, eventually } from '../../gateway/support/broker';
import { startGateway, tempDir, type Running } from '../../gateway/support/gateway';
import { freePort, mosquittoBinary, waitForPort } from './mosquitto';

const EXAMPLE = path.resolve(__dirname, '../../../../docs/examples/mosquitto/bridge-barn.conf');
const SCALING = path.resolve(__dirname, '../../../../docs/scaling.md');

async function startBroker(dir: string, name: string, extra: string): Promise<{ url: string; child: ChildProcess; log: () => string }> {
  const port = await freePort();
  const file = path.join(dir, `${name}.conf`);
  fs.writeFileSync(file, ['user root', 'log_dest stderr', 'log_type error', 'log_type warning', `listener ${port} 127.0.0.1`, 'allow_anonymous true', extra].join('\n'));
  let log = '';
  const child = spawn(mosquittoBinary(), ['-c', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  await waitForPort(port, 5000);
  return { url: `mqtt://127.0.0.1:${port}`, child, log: () => log };
}

describe("the documented Mosquitto bridge between two buildings (docs/scaling.md)", function () {
  this.timeout(60_000);
  let dir: string;
  let barn: Awaited<ReturnType<typeof startBroker>>;
  let house: Awaited<ReturnType<typeof startBroker>>;
  let gw: Running;
  let ha: Recorder;

  before(async () => {
    dir = tempDir('mq-bridge-');
    barn = await startBroker(dir, 'barn', '');
    const documented = fs.readFileSync(EXAMPLE, 'utf8');
    const local = documented
      .replace(/^address .*$/m, `address ${barn.url.replace('mqtt://', '')}`)
      .replace(/^remote_username .*\n/m, '')
      .replace(/^remote_password .*\n/m, '');
    assert.notEqual(local, documented);
    house = await startBroker(dir, 'house', local);
    gw = await startGateway(undefined, { gateway: { id: 'pi-barn' }, mqtt: { enabled: true, url: barn.url, reconnect_min_ms: 200, site: { id: 'barn' } } }, tempDir('mq-bridge-gw-'));
    await eventually(() => gw.gateway.mqtt?.connected === true, 10_000, `the gateway on the barn broker\n${barn.log()}`);
    ha = await Recorder.connect(house.url, ['homeassistant/#', 'clawling/#'], { protocolVersion: 5 });
  });
  after(async () => {
    await ha?.close();
    await gw?.stop();
    if (gw) fs.rmSync(gw.dir, { recursive: true, force: true });
    barn?.child.kill('SIGTERM');
    house?.child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is docs/scaling.md word for word', () => {
    const shown = fs.readFileSync(SCALING, 'utf8').replace(/^ {3}/gm, '');
    assert.ok(shown.includes(fs.readFileSync(EXAMPLE, 'utf8')), 'docs/scaling.md shows docs/examples/mosquitto/bridge-barn.conf');
  });

  it("gives Home Assistant on the house broker the barn's devices, and announces them again on its birth message", async () => {
    const alice = gw.peer('sim0', 'alice');
    const gatewayDevice = 'homeassistant/device/clawling_pi-barn/config';
    const nodeDevice = `homeassistant/device/mesh_${alice.address}/config`;
    await ha.until(() => ha.on(gatewayDevice).length > 0 && ha.on(nodeDevice).length > 0, 15_000, `the barn's devices on the house broker\n${house.log()}`);
    const before = [ha.on(gatewayDevice).length, ha.on(nodeDevice).length];
    await ha.client.publishAsync('homeassistant/status', 'online', { qos: 1 });
    await ha.until(() => ha.on(gatewayDevice).length > before[0]! && ha.on(nodeDevice).length > before[1]!, 15_000, 'announced again across the bridge');
  });

  it('carries a text from a notify entity on the house to the barn node, and its result back', async () => {
    const alice = gw.peer('sim0', 'alice');
    await ha.until(() => ha.on(`homeassistant/device/mesh_${alice.address}/config`).length > 0, 15_000, 'the node device');
    await ha.client.publishAsync(`clawling/nodes/${alice.address}/send`, 'from the house', { qos: 1 });
    await alice.waitFor((r) => r.message?.content === 'from the house');
    await ha.until(() => ha.json<{ status: string }>(`clawling/nodes/${alice.address}/send/result`).some((r) => r.status === 'acked'), 15_000, 'the result on the house broker');
  });
});
