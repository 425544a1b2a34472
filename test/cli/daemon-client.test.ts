/** `clawling daemon-client` against a real gateway's daemon: key generation, a one-shot attach, and a session typed in. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { GatewayDaemon } from '../../gateway/extensions/daemon';
import { startGateway, tempDir, type Running } from '../gateway/support/gateway';

const BIN = path.join(__dirname, '..', '..', 'cli', 'clawling.js');

interface Child {
  stdout: string;
  stderr: string;
  write(line: string): void;
  until(test: () => boolean): Promise<void>;
  exit: Promise<number | null>;
}

function clawling(args: string[]): Child {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiters: Array<() => void> = [];
  const out: Child = {
    stdout: '',
    stderr: '',
    write: (line) => child.stdin.write(`${line}\n`),
    until: (test) => (test() ? Promise.resolve() : new Promise((resolve) => waiters.push(() => test() && resolve()))),
    exit: new Promise((resolve) => child.on('close', (code) => resolve(code))),
  };
  const poke = (): void => {
    for (const w of waiters.slice()) w();
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out.stdout += d;
    poke();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    out.stderr += d;
    poke();
  });
  return out;
}

describe('clawling daemon-client', function () {
  this.timeout(30000);
  let gw: Running;
  let dir: string;
  let listen: string;

  beforeEach(async () => {
    dir = tempDir('daemon-cli-');
    gw = await startGateway(undefined, { daemon: { enabled: true, listen: '127.0.0.1:0' } });
    listen = `127.0.0.1:${gw.gateway.extension<GatewayDaemon>('daemon')!.address!.port}`;
  });
  afterEach(async () => {
    await gw.stop();
    fs.rmSync(gw.dir, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('--keygen writes a private key file (0600) and prints its address; --once attaches with it', async () => {
    const keyFile = path.join(dir, 'device.pem');
    const gen = clawling(['daemon-client', '--keygen', keyFile]);
    assert.equal(await gen.exit, 0);
    const address = gen.stdout.trim();
    assert.match(address, /^off1[a-z0-9]{40}$/);
    assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600);
    const once = clawling(['daemon-client', '--connect', listen, '--key', keyFile, '--once']);
    assert.equal(await once.exit, 0, once.stderr);
    const types = once.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { type: string }).type);
    assert.deepEqual(types, ['Challenge', 'AddressDeclared', 'Capabilities', 'StatusUpdate']);
    assert.ok(once.stdout.includes(address));
    assert.ok(!once.stdout.includes(fs.readFileSync(keyFile, 'utf8').split('\n')[1]!), 'the key is never printed');
  });

  it('a typed session: send to a neighbour and ask presence', async () => {
    const keyFile = path.join(dir, 'seed.hex');
    fs.writeFileSync(keyFile, `${'11'.repeat(32)}\n`, { mode: 0o600 });
    const alice = gw.peer('sim0', 'alice');
    const c = clawling(['daemon-client', '--connect', listen, '--key', keyFile]);
    await c.until(() => c.stderr.includes('attached as'));
    c.write(`send ${alice.address} hello from a shell`);
    await c.until(() => c.stdout.includes('"MessageSent"'));
    const got = await alice.waitFor((r) => r.message?.content === 'hello from a shell');
    assert.ok(got.message);
    c.write(`presence ${alice.address}`);
    await c.until(() => c.stdout.includes('"PresenceStatus"'));
    assert.match(c.stdout, /"online":true/);
    c.write('quit');
    assert.equal(await c.exit, 0);
  });

  it('a key file it cannot read: a non-zero exit that says why', async () => {
    const c = clawling(['daemon-client', '--connect', '127.0.0.1:1', '--key', '/nonexistent/key', '--once']);
    assert.notEqual(await c.exit, 0);
    assert.match(c.stderr, /ENOENT|no such file/);
  });
});
