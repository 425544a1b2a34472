/**
 * `clawling demo` (what `npm start` runs) as a child process on free ports: it prints its URLs, a mesh message goes
 * the whole loop (mesh → MQTT + hub → Node-RED → hub → mesh), the two injects of the example flow reach the garden
 * over MQTT and over the hub, and SIGINT stops everything: the process exits 0, every port it listened on is closed
 * and the Node-RED child is gone.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import WebSocket from 'ws';
import { PACKAGE_ROOT } from '../../demo/node-red-launcher';
import { generateControlIdentity } from '../../lib/mesh/control-signature';
import { alive, portRefused } from '../support/processes';
import { DaemonClient } from '../support/gateway-daemon-client';

const CLI = path.join(__dirname, '..', '..', 'cli', 'clawling.js');
const FLOW = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'examples', 'gateway-demo.json'), 'utf8')) as Array<{ id: string; type: string; name?: string }>;

class Output {
  readonly lines: string[] = [];
  private waiters: Array<{ test: RegExp; resolve: (m: RegExpExecArray) => void }> = [];

  constructor(child: ChildProcess) {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        this.lines.push(line);
        for (const w of this.waiters.slice()) {
          const m = w.test.exec(line);
          if (m) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(m);
          }
        }
      }
    });
  }

  /** The first line (printed already or to come) matching `test`. */
  line(test: RegExp, what: string, ms = 60000): Promise<RegExpExecArray> {
    for (const l of this.lines) {
      const m = test.exec(l);
      if (m) return Promise.resolve(m);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no line for ${what} within ${ms} ms; output:\n${this.lines.join('\n')}`)), ms);
      this.waiters.push({
        test,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }
}

/**
 * GETs every http URL the demo printed (the ones given as a command's --url excepted: a base for the command, not a
 * page) and upgrades every ws URL: each must answer 2xx or the upgrade.
 */
async function everyPrintedUrlAnswers(lines: readonly string[]): Promise<void> {
  const text = lines.join('\n');
  const urls = [...text.matchAll(/(--url )?((?:https?|ws):\/\/[^\s,)]+)/g)].filter((m) => !m[1]).map((m) => m[2]);
  assert.ok(urls.filter((u) => u.startsWith('http')).length >= 4, `printed URLs: ${urls.join(' ')}`);
  for (const url of new Set(urls)) {
    if (url.startsWith('ws')) {
      await new Promise<void>((resolve, reject) => {
        const ws = new WebSocket(url);
        ws.once('open', () => {
          ws.terminate();
          resolve();
        });
        ws.once('error', reject);
      });
      continue;
    }
    const res = await fetch(url);
    assert.ok(res.status >= 200 && res.status < 300, `GET ${url} answered ${res.status}`);
  }
}

/** The environment the printed `export NAME=value` lines set. */
function printedExports(lines: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const l of lines) {
    const m = /^ +export (\w+)=(\S+)$/.exec(l);
    if (m) env[m[1]] = m[2];
  }
  return env;
}

/** Runs the printed `npx clawling …` line containing `marker` from the package folder, with this build's CLI. */
function runPrinted(lines: readonly string[], marker: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const line = lines.find((l) => l.includes(`npx ${marker} `));
  assert.ok(line, `no printed '${marker}' command`);
  const argv = [...line.trim().replace(/^npx clawling /, '').matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...argv], { cwd: PACKAGE_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('clawling demo (npm start) as a child process', function () {
  this.timeout(120000);
  let dir: string;
  let child: ChildProcess | undefined;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawling-demo-'));
  });
  after(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs the whole loop on free ports and stops everything on SIGINT', async () => {
    child = spawn(process.execPath, [CLI, 'demo', '--port', '0', '--hub-port', '0', '--mqtt-port', '0', '--status-port', '0', '--daemon-port', '0', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    const out = new Output(child);

    const nodeRed = await out.line(/Node-RED editor: +http:\/\/127\.0\.0\.1:(\d+)\/ +\(flow "Gateway demo";.* pid (\d+)\)$/, 'the Node-RED URL');
    const status = await out.line(/Gateway status page: http:\/\/127\.0\.0\.1:(\d+)/, 'the status page');
    const hub = await out.line(/Dev hub: +ws:\/\/127\.0\.0\.1:(\d+)\/ws +\(WebSocket; health http:\/\/127\.0\.0\.1:\d+\/health\)/, 'the hub');
    const admin = await out.line(/Dev hub admin: +http:\/\/127\.0\.0\.1:(\d+)\/admin /, 'the hub admin');
    const adminToken = await out.line(/Dev hub admin token: ([\w-]{43}) /, 'the hub admin token');
    const broker = await out.line(/MQTT broker: +mqtt:\/\/127\.0\.0\.1:(\d+)/, 'the broker');
    const daemon = await out.line(/Gateway daemon: +127\.0\.0\.1:(\d+) /, 'the gateway-daemon listener');
    await out.line(new RegExp(`npx clawling daemon-client --connect 127\\.0\\.0\\.1:${daemon[1]} --key phone\\.pem$`), 'how to attach');
    await out.line(/^Press Ctrl-C to stop\.$/, 'the end of the URL list');
    // The banner is what a newcomer reads first: no traffic line comes before it (the site talks while Node-RED starts).
    await out.line(/^\[mesh\] /, 'a [mesh] line');
    const banner = out.lines.indexOf('Clawling demo is running (everything on 127.0.0.1):');
    const firstMesh = out.lines.findIndex((l) => l.startsWith('[mesh]'));
    assert.ok(banner >= 0 && firstMesh > banner, `the banner is line ${banner}, the first [mesh] line ${firstMesh}:\n${out.lines.join('\n')}`);
    const ports = [nodeRed[1], status[1], hub[1], admin[1], broker[1], daemon[1]].map(Number);
    await everyPrintedUrlAnswers(out.lines);
    const devices = `http://127.0.0.1:${admin[1]}/admin/devices`;
    assert.equal((await fetch(devices)).status, 401, 'the hub admin API wants the printed token');
    assert.equal((await fetch(devices, { headers: { authorization: `Bearer ${adminToken[1]}` } })).status, 200);
    const nodeRedPid = Number(nodeRed[2]);

    // A phone attaches beside the radios where the demo says.
    const phone = await DaemonClient.connect(Number(daemon[1]));
    const { capabilities } = await phone.attach(generateControlIdentity().privateKey);
    assert.deepEqual(capabilities, ['gateway_v1']);
    phone.close();

    // Mesh → MQTT, seen by a client of our own.
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${broker[1]}`);
    const onMqtt = new Promise<{ content: string; rx_radio: string }>((resolve) => client.on('message', (_t, payload) => resolve(JSON.parse(payload.toString()) as { content: string; rx_radio: string })));
    await client.subscribeAsync('clawling/demo/messages', { qos: 1 });
    const published = await onMqtt;
    assert.match(published.rx_radio, /^sim[01]$/);
    await client.endAsync();

    // The whole loop, and both injects of the example flow through Node-RED's own admin API.
    await out.line(/^\[loop\] +mesh → MQTT \+ hub → Node-RED → hub → mesh: kitchen got “Node-RED saw Kitchen: temperature/, 'a message around the loop');
    const health = await fetch(`http://127.0.0.1:${status[1]}/health`);
    assert.equal(health.status, 200);
    // The web UI line names the same server; its page and script answer there.
    const ui = await out.line(/Gateway web UI: +(http:\/\/127\.0\.0\.1:(\d+)\/ui) /, 'the web UI');
    assert.equal(ui[2], status[1]);
    const page = await fetch(ui[1]!);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /src="ui\/live-log\.js"/);
    assert.equal((await fetch(`${ui[1]}/live-log.js`)).status, 200);
    for (const name of ['ask the garden over MQTT', 'write in the chat']) {
      const inject = FLOW.find((n) => n.type === 'inject' && n.name === name)!;
      const res = await fetch(`http://127.0.0.1:${nodeRed[1]}/inject/${inject.id}`, { method: 'POST' });
      assert.equal(res.status, 200, name);
    }
    await out.line(/^\[mesh\] +garden received “water the tomatoes, please” \(from MQTT\)/, 'Node-RED → MQTT → mesh');
    await out.line(/^\[mesh\] +garden received “hello garden, this is Node-RED” \(from Node-RED on the hub\)/, 'Node-RED → hub → mesh');

    // The commands it prints work as printed (npx clawling is this package's CLI).
    const env = { PATH: process.env.PATH ?? '', ...printedExports(out.lines) };
    const send = await runPrinted(out.lines, 'clawling hub send', env);
    assert.equal(send.status, 0, send.stderr);
    await out.line(/^\[mesh\] +garden received “hello mesh” \(from You on the hub\)/, 'the printed hub send reaching the mesh');
    const upload = await runPrinted(out.lines, 'clawling media upload', env);
    assert.equal(upload.status, 0, upload.stderr);
    const fragment = JSON.parse(upload.stdout) as { kind: string; name: string; url: string };
    assert.equal(fragment.name, 'mesh-encode.svg');
    assert.equal((await fetch(fragment.url)).status, 200, 'the uploaded file can be fetched back');

    child.kill('SIGINT');
    assert.equal(await exited, 0, 'the demo exits by itself with 0');
    assert.ok(out.lines.includes('Demo stopped.'));
    for (const port of ports) assert.ok(await portRefused(port), `port ${port} is closed`);
    assert.ok(!alive(nodeRedPid), 'the Node-RED child is gone');
  });
});
