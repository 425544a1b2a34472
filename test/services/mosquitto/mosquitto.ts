/**
 * A real Mosquitto for the service suite: started by the test itself on 127.0.0.1 with free ports and a temporary
 * configuration (MQTT 5; a password listener; a TLS listener that requires a client certificate), with a CA, a
 * server and a client certificate made here with `openssl`, and the password file made with `mosquitto_passwd`.
 * Needs `mosquitto` (/usr/sbin on Debian), `mosquitto_passwd` and `openssl` on the machine (.ci/services installs them).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const USER = 'gateway';
export const PASSWORD = 'correct horse battery';

export function mosquittoBinary(): string {
  for (const p of ['/usr/sbin/mosquitto', '/usr/local/sbin/mosquitto', '/usr/bin/mosquitto']) if (fs.existsSync(p)) return p;
  return 'mosquitto';
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

export async function waitForPort(port: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`mosquitto did not listen on ${port} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Pki {
  ca: string;
  clientCert: string;
  clientKey: string;
}

/** A CA, a server certificate for 127.0.0.1/localhost and a client certificate, all EC P-256, valid two days. */
export function makePki(dir: string): Pki & { serverCert: string; serverKey: string } {
  const f = (name: string): string => path.join(dir, name);
  const ossl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ossl('req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=clawling test CA');
  ossl('req', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=localhost');
  fs.writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  ossl('x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.pem'), '-days', '2', '-extfile', f('server.ext'));
  ossl('req', ...ec, '-keyout', f('client.key'), '-out', f('client.csr'), '-subj', '/CN=gateway-client');
  ossl('x509', '-req', '-in', f('client.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('client.pem'), '-days', '2');
  return { ca: f('ca.pem'), serverCert: f('server.pem'), serverKey: f('server.key'), clientCert: f('client.pem'), clientKey: f('client.key') };
}

export class Mosquitto {
  private process: ChildProcess | undefined;
  log = '';

  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly tlsPort: number,
    readonly pki: Pki,
    private readonly conf: string,
  ) {}

  static async start(dir: string): Promise<Mosquitto> {
    const pki = makePki(dir);
    const passwd = path.join(dir, 'passwd');
    fs.writeFileSync(passwd, '');
    execFileSync('mosquitto_passwd', ['-b', passwd, USER, PASSWORD], { stdio: 'pipe' });
    const [port, tlsPort] = [await freePort(), await freePort()];
    const conf = path.join(dir, 'mosquitto.conf');
    fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
    fs.writeFileSync(
      conf,
      [
        'per_listener_settings true',
        // Sessions and queued QoS 1 messages survive a restart, so a persistent subscriber misses nothing.
        'persistence true',
        `persistence_location ${path.join(dir, 'data')}/`,
        'log_dest stderr',
        'log_type error',
        'log_type warning',
        'user root',
        `listener ${port} 127.0.0.1`,
        'allow_anonymous false',
        `password_file ${passwd}`,
        `listener ${tlsPort} 127.0.0.1`,
        `cafile ${pki.ca}`,
        `certfile ${path.join(dir, 'server.pem')}`,
        `keyfile ${path.join(dir, 'server.key')}`,
        'require_certificate true',
        'use_identity_as_username true',
        'allow_anonymous false',
        '',
      ].join('\n'),
    );
    const m = new Mosquitto(dir, port, tlsPort, pki, conf);
    await m.restart();
    return m;
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  get tlsUrl(): string {
    return `mqtts://127.0.0.1:${this.tlsPort}`;
  }

  get running(): boolean {
    return this.process !== undefined;
  }

  async restart(): Promise<void> {
    if (this.process) return;
    const child = spawn(mosquittoBinary(), ['-c', this.conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (d: Buffer) => (this.log += d.toString()));
    this.process = child;
    child.once('exit', () => {
      if (this.process === child) this.process = undefined;
    });
    await waitForPort(this.port, 5000);
    await waitForPort(this.tlsPort, 5000);
  }

  /** SIGTERM, as systemd stops it; Mosquitto saves its sessions on the way out. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
    this.process = undefined;
  }
}
