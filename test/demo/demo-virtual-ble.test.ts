/**
 * `npm start -- --virtual-ble` (startDemo with `virtualBle`, Node-RED left out as in the other in-process demo
 * tests): the kitchen and the garden are bleno phones and the gateway's BLE radio is noble + bleno, all on the
 * virtual controller. A kitchen reading goes phone → BLE → gateway → MQTT and the gateway's ACK back over BLE; an
 * MQTT send reaches the kitchen phone over BLE, its ACK comes back to MQTT and its answer too. Stop leaves no child
 * process (no pty relay); without python3 the demo fails with a coded error and leaves nothing running.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import { ackTarget, isAck } from '../../lib/mesh/ack';
import type { MeshMessage } from '../../lib/mesh/message';
import type { BlePhonePeer } from '../../demo/ble-phone-peer';
import { freePort } from '../../demo/free-port';
import { startDemo, type RunningDemo } from '../../demo/run-demo';
import { PEERS } from '../../demo/settings';
import { alive, childrenOf, portRefused } from '../support/processes';

const CLI = path.join(__dirname, '..', '..', 'cli', 'clawling.js');


function until<T>(find: () => T | undefined, what: string, ms = 30_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const check = setInterval(() => {
      const found = find();
      if (found !== undefined) {
        clearInterval(check);
        resolve(found);
      } else if (Date.now() - started > ms) {
        clearInterval(check);
        reject(new Error(`no ${what} within ${ms} ms`));
      }
    }, 20);
  });
}

interface Published {
  id: string;
  sender: string;
  content: string;
  rx_radio: string;
}

describe('npm start -- --virtual-ble: the demo on the virtual BLE controller', function () {
  this.timeout(90_000);
  let dir: string;
  let demo: RunningDemo | undefined;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-virtual-ble-'));
  });
  afterEach(async () => {
    await demo?.stop();
    demo = undefined;
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('carries the kitchen over BLE to MQTT and an MQTT message back over BLE to the kitchen phone, both ACKed; stop leaves no child', async () => {
    const before = new Set(childrenOf(process.pid).map((c) => c.pid));
    const lines: string[] = [];
    demo = await startDemo({ ports: { nodeRed: 0, hub: 0, mqtt: 0, status: 0 }, dir, withoutNodeRed: true, virtualBle: true, print: (l) => lines.push(l) });
    const kitchen = demo.peers.find((p) => p.id === 'kitchen') as BlePhonePeer;
    const heard: MeshMessage[] = [];
    kitchen.on('received', (r) => r.message && heard.push(r.message));

    assert.equal(demo.radios, 'virtual-ble');
    assert.deepEqual(
      demo.gateway.radios.map((r) => `${r.id}:${r.kind}`),
      ['ble0:ble'],
      'one BLE radio, no simulated one',
    );
    assert.deepEqual(
      demo.peers.map((p) => `${p.id}:${p.address}`),
      [`kitchen:${PEERS.kitchen.address}`, `garden:${PEERS.garden.address}`],
      'the phones keep the simulated peers’ identities',
    );
    assert.ok(
      lines.some((l) => /^\[ble\] +on the virtual BLE controller \(devble\/\): gateway \(central and GATT server, adapter uart:\/dev\/pts\/\d+\)/.test(l)),
      lines.join('\n'),
    );
    const relays = childrenOf(process.pid).filter((c) => !before.has(c.pid));
    assert.equal(relays.length, 3, `one pty relay per controller (the gateway one for both roles, a phone one each): ${relays.map((r) => r.cmd.slice(0, 40)).join('; ')}`);
    assert.ok(relays.every((r) => /python3? /.test(r.cmd)));

    const client = await mqtt.connectAsync(demo.urls.mqtt);
    try {
      const published: Published[] = [];
      const results: Array<{ request_id: string; status: string; via?: string[]; ack?: { from: string; transport: string } }> = [];
      client.on('message', (topic, payload) => {
        if (topic === 'clawling/demo/messages') published.push(JSON.parse(payload.toString()) as Published);
        if (topic === 'clawling/demo/send/result') results.push(JSON.parse(payload.toString()) as (typeof results)[number]);
      });
      await client.subscribeAsync(['clawling/demo/messages', 'clawling/demo/send/result'], { qos: 1 });

      // phone → BLE → gateway → MQTT, and the gateway's ACK back over BLE to the phone.
      const reading = await until(() => published.find((p) => p.sender === PEERS.kitchen.address && p.content.startsWith('temperature ')), 'kitchen reading on MQTT');
      assert.equal(reading.rx_radio, 'ble0');
      await until(() => heard.find((m) => isAck(m) && ackTarget(m) === reading.id), 'the gateway’s ACK at the kitchen phone');

      // MQTT → gateway → BLE → phone; the phone's ACK back to MQTT; the phone's answer back to MQTT.
      await client.publishAsync('clawling/demo/send', JSON.stringify({ recipient: PEERS.kitchen.address, content: 'close the fridge', request_id: 'vble-1' }), { qos: 1 });
      const got = await until(() => heard.find((m) => m.content === 'close the fridge'), 'the MQTT message at the kitchen phone');
      assert.equal(got.sender, demo.gateway.info.address);
      const sent = await until(() => results.find((r) => r.request_id === 'vble-1' && r.status === 'sent'), 'send result sent');
      assert.ok(sent.via?.length === 1 && sent.via[0].startsWith('ble0/'), `via ${String(sent.via)}`);
      const acked = await until(() => results.find((r) => r.request_id === 'vble-1' && r.status === 'acked'), 'send result acked');
      assert.deepEqual(acked.ack && { from: acked.ack.from, transport: acked.ack.transport }, { from: PEERS.kitchen.address, transport: 'ble' });
      const answer = await until(() => published.find((p) => p.content === 'kitchen here, got “close the fridge”'), 'the kitchen’s answer on MQTT');
      assert.equal(answer.rx_radio, 'ble0');
      assert.ok(lines.includes('[mesh]   kitchen received “close the fridge” (from MQTT)'), lines.join('\n'));
    } finally {
      await client.endAsync();
    }

    const ports = [demo.urls.mqtt, demo.urls.status, demo.urls.hub].map((u) => Number(new URL(u).port));
    await demo.stop();
    demo = undefined;
    for (const r of relays) assert.ok(!alive(r.pid), `pty relay ${r.pid} is gone`);
    assert.deepEqual(
      childrenOf(process.pid).filter((c) => !before.has(c.pid)),
      [],
      'no child process left',
    );
    for (const port of ports) assert.ok(await portRefused(port), `port ${port} is closed`);
  });

  it('without python3: fails with PYTHON3_MISSING, and what had started is stopped again', async () => {
    const before = new Set(childrenOf(process.pid).map((c) => c.pid));
    const ports = { nodeRed: 0, hub: await freePort(), mqtt: await freePort(), status: await freePort() };
    await assert.rejects(
      startDemo({ ports, dir, withoutNodeRed: true, virtualBle: true, python: path.join(dir, 'no-python3-here'), print: () => undefined }),
      (err: { code?: string; message?: string }) => {
        assert.equal(err.code, 'PYTHON3_MISSING');
        assert.match(err.message ?? '', /needs python3/);
        return true;
      },
    );
    for (const port of [ports.hub, ports.mqtt, ports.status]) assert.ok(await portRefused(port), `port ${port} is closed`);
    assert.deepEqual(
      childrenOf(process.pid).filter((c) => !before.has(c.pid)),
      [],
    );
  });

  it('clawling demo --virtual-ble as a child process: says it is on the virtual controller, and SIGINT ends it with 0 and no child left', async () => {
    const child = spawn(process.execPath, [CLI, 'demo', '--virtual-ble', '--no-node-red', '--hub-port', '0', '--mqtt-port', '0', '--status-port', '0', '--daemon-port', '0', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await until(() => (out.includes('Press Ctrl-C to stop.') ? true : undefined), `the URL list; output:\n${out}${err}`, 60_000);
      // The demo's own lines follow the URL list (the banner comes first), possibly in a later write.
      await until(() => (/^\[ble\] +gateway ble0 connected to/m.test(out) ? true : undefined), `the BLE connection line; output:\n${out}${err}`, 60_000);
      assert.match(out, /^\[ble\] +gateway ble0 connected to kitchen and garden/m);
      assert.match(out, /^ {2}Radios: +ble0 on the virtual BLE controller/m);
      const relays = childrenOf(child.pid!);
      assert.equal(relays.length, 3, relays.map((r) => r.cmd.slice(0, 40)).join('; '));
      child.kill('SIGINT');
      assert.equal(await exited, 0, `exit code; stderr: ${err}`);
      assert.match(out, /^Demo stopped\.$/m);
      for (const r of relays) assert.ok(!alive(r.pid), `pty relay ${r.pid} is gone`);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('clawling demo --help names --virtual-ble', () => {
    const run = spawnSync(process.execPath, [CLI, 'demo', '--help'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /\[--virtual-ble\]/);
    assert.match(run.stdout, /^--virtual-ble: the kitchen and the garden are BLE phones/m);
  });
});
