/**
 * A Node-RED 5 of our own for the install suite: the `node-red` package from the CI cache run by Node 24, a fresh
 * user dir, 127.0.0.1 on a free port, no palette catalogue, no telemetry, no diagnostics, so it fetches nothing.
 * Everything is driven through its admin HTTP API and the editor's comms WebSocket, as the editor itself does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import WebSocket from 'ws';
import { freePort } from '../../../demo/free-port';

export interface NodeRed {
  url: string;
  log: string[];
  stop(): Promise<void>;
}

export interface NodeSet {
  id: string;
  module: string;
  types: string[];
  enabled: boolean;
  err?: string;
}

function writeSettings(userDir: string, port: number): string {
  const settings = {
    uiHost: '127.0.0.1',
    uiPort: port,
    flowFile: 'flows.json',
    credentialSecret: false,
    diagnostics: { enabled: false, ui: false },
    telemetry: { enabled: false, updateNotification: false },
    // The Palette Manager stays on (the upload route is under test) but has no catalogue to fetch.
    externalModules: { autoInstall: false, palette: { allowInstall: true, allowUpload: true } },
    editorTheme: { palette: { catalogues: [], upload: true }, tours: false, projects: { enabled: false } },
    logging: { console: { level: 'info', metrics: false, audit: false } },
  };
  const file = path.join(userDir, 'settings.js');
  fs.writeFileSync(file, `module.exports = ${JSON.stringify(settings, null, 2)};\n`);
  return file;
}

export async function startNodeRed(nodeRedDir: string, nodeBin: string, userDir: string, env: NodeJS.ProcessEnv): Promise<NodeRed> {
  fs.mkdirSync(userDir, { recursive: true });
  const settings = writeSettings(userDir, await freePort());
  const child: ChildProcess = spawn(path.join(nodeBin, 'node'), [path.join(nodeRedDir, 'red.js'), '--userDir', userDir, '--settings', settings], {
    env: { ...env, NODE_RED_ENABLE_PROJECTS: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        log.push(line);
        const started = /Server now running at (http:\/\/\S+)/.exec(line);
        if (started) resolve(started[1].replace(/\/$/, ''));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => reject(new Error(`Node-RED exited before it started:\n${log.join('\n')}`)));
  });
  return {
    url,
    log,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.kill('SIGINT');
      await exited;
      clearTimeout(killer);
    },
  };
}

async function expectOk(response: Response, what: string): Promise<Response> {
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${await response.text()}`);
  return response;
}

export async function nodeSets(url: string): Promise<NodeSet[]> {
  const response = await expectOk(await fetch(`${url}/nodes`, { headers: { accept: 'application/json' } }), 'GET /nodes');
  return (await response.json()) as NodeSet[];
}

/**
 * The Palette Manager's "upload module tgz file": a multipart POST /nodes with the file in the `tarball` field.
 * Node-RED answers only when npm has finished, native builds included, which can take longer than fetch's fixed
 * five-minute header timeout; node:http has none.
 */
export function uploadTarball(url: string, tarball: string): Promise<unknown> {
  const boundary = `----clawling-install-${Date.now()}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="tarball"; filename="${path.basename(tarball)}"\r\ncontent-type: application/gzip\r\n\r\n`),
    fs.readFileSync(tarball),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/nodes`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`POST /nodes (upload): HTTP ${res.statusCode} ${text}`));
        else resolve(JSON.parse(text) as unknown);
      });
    });
    req.once('error', reject);
    req.end(body);
  });
}

export async function deployFlows(url: string, flows: unknown[]): Promise<void> {
  await expectOk(
    await fetch(`${url}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'node-red-deployment-type': 'full' },
      body: JSON.stringify(flows),
    }),
    'POST /flows',
  );
}

/**
 * Presses an inject node's button. Seen in CI: right after POST /flows the endpoint can still answer 404 (the node is
 * not registered yet), so a 404 is retried for up to a minute; any other answer is final.
 */
export async function pressInject(url: string, id: string): Promise<void> {
  const until = Date.now() + 60_000;
  for (;;) {
    const response = await fetch(`${url}/inject/${id}`, { method: 'POST' });
    if (response.status !== 404 || Date.now() > until) {
      await expectOk(response, `POST /inject/${id}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export interface DebugMessage {
  id: string;
  msg: string;
}

/** What the editor's debug sidebar receives, from the comms WebSocket. */
export class DebugTap {
  readonly messages: DebugMessage[] = [];
  private constructor(private readonly socket: WebSocket) {}

  static async open(url: string): Promise<DebugTap> {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/comms`);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const tap = new DebugTap(socket);
    socket.on('message', (data: WebSocket.RawData) => {
      const batch = JSON.parse(data.toString()) as Array<{ topic: string; data: DebugMessage }> | { topic: string; data: DebugMessage };
      for (const event of Array.isArray(batch) ? batch : [batch]) {
        if (event.topic === 'debug') tap.messages.push(event.data);
      }
    });
    socket.send(JSON.stringify({ subscribe: 'debug' }));
    return tap;
  }

  /** Waits for a message from the debug node `id`; the suite's mocha timeout bounds the wait. */
  async next(id: string): Promise<DebugMessage> {
    for (;;) {
      const found = this.messages.find((m) => m.id === id);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close(): void {
    this.socket.close();
  }
}
