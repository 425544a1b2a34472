/**
 * A gateway-daemon v1 client written from the reference's chapter ("Gateway-daemon contract v1"), not from the
 * daemon's code: its own line reader, its own proof bytes, its own correlation by id. Tests use it as a phone on
 * the venue Wi-Fi would; `clawling daemon-client` uses it for an integrator's shell.
 */
import { sign, type KeyObject } from 'node:crypto';
import net from 'node:net';
import { controlIdentityFromPrivateKey, type ControlIdentity } from '../../lib/mesh/control-signature';

export type DaemonMessage = Record<string, unknown> & { type: string };

const DOMAIN = Buffer.from('offline-gateway-addr-v1', 'utf8');
/** The reference clients abandon a connection past a 1 MiB line. */
const CLIENT_MAX_LINE = 1_048_576;

/** The canonical bytes as the chapter spells them: domain ‖ u32be(len(address)) ‖ address ‖ challenge. */
export function proofBytes(address: string, challenge: Uint8Array): Buffer {
  const a = Buffer.from(address, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(a.length);
  return Buffer.concat([DOMAIN, len, a, challenge]);
}

export class DaemonClient {
  readonly received: DaemonMessage[] = [];
  private buffer = '';
  private waiters: Array<{ match: (m: DaemonMessage) => boolean; resolve: (m: DaemonMessage) => void }> = [];
  private closeWaiters: Array<() => void> = [];
  closed = false;

  private constructor(readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => this.onData(text));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.closeWaiters.splice(0)) w();
    });
  }

  static connect(port: number, host = '127.0.0.1'): Promise<DaemonClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host }, () => resolve(new DaemonClient(socket)));
      socket.once('error', reject);
    });
  }

  send(message: Record<string, unknown>): void {
    this.socket.write(`${JSON.stringify(message)}\n`);
  }

  writeRaw(text: string | Buffer): boolean {
    return this.socket.write(text);
  }

  /** The first message (already received or still to come) that matches, in order. */
  next(match: (m: DaemonMessage) => boolean = () => true, after = 0): Promise<DaemonMessage> {
    const held = this.received.slice(after).find(match);
    if (held) return Promise.resolve(held);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  nextOfType(type: string, after = 0): Promise<DaemonMessage> {
    return this.next((m) => m.type === type, after);
  }

  whenClosed(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => this.closeWaiters.push(resolve));
  }

  /** Identify → Challenge; returns the 32 challenge bytes. */
  async challenge(deviceId = 'test-device'): Promise<Buffer> {
    const mark = this.received.length;
    this.send({ type: 'Identify', device_id: deviceId, protocol_version: 1 });
    const c = await this.nextOfType('Challenge', mark);
    return Buffer.from(String(c.challenge), 'base64');
  }

  /** DeclareAddress for a proof made by hand; resolves with the answer (AddressDeclared or AddressError). */
  async declare(fields: { address: string; publicKey: Uint8Array; signature: Uint8Array }): Promise<DaemonMessage> {
    const mark = this.received.length;
    this.send({
      type: 'DeclareAddress',
      address: fields.address,
      public_key: Buffer.from(fields.publicKey).toString('base64'),
      signature: Buffer.from(fields.signature).toString('base64'),
    });
    return this.next((m) => m.type === 'AddressDeclared' || m.type === 'AddressError', mark);
  }

  /** The whole attach as the chapter orders it; throws unless the gateway bound the session to our address. */
  async attach(key: KeyObject | Uint8Array): Promise<{ identity: ControlIdentity; capabilities: string[] }> {
    const identity = controlIdentityFromPrivateKey(key);
    const challenge = await this.challenge(identity.address);
    const mark = this.received.length;
    const answer = await this.declare({ address: identity.address, publicKey: identity.publicKey, signature: sign(null, proofBytes(identity.address, challenge), identity.privateKey) });
    if (answer.type !== 'AddressDeclared') throw new Error(`attach refused: ${String(answer.reason)}`);
    // The device's own check: a gateway that binds another address is a security event.
    if (answer.address !== identity.address) throw new Error(`gateway bound ${String(answer.address)}, not ${identity.address}`);
    const caps = await this.nextOfType('Capabilities', mark);
    const status = await this.nextOfType('StatusUpdate', mark);
    if (status.status !== 'connected') throw new Error(`status ${String(status.status)} after attach`);
    if (this.received.indexOf(caps) > this.received.indexOf(status)) throw new Error('Capabilities came after StatusUpdate');
    return { identity, capabilities: caps.tokens as string[] };
  }

  /** SendMessage; resolves with the verdict of this id, whatever order verdicts arrive in. */
  submit(recipient: string, frame: Uint8Array, messageId?: string): Promise<DaemonMessage> {
    const request: Record<string, unknown> = { type: 'SendMessage', recipient, content: Buffer.from(frame).toString('base64'), encoding: 'base64' };
    if (messageId !== undefined) request.message_id = messageId;
    const mark = this.received.length;
    this.send(request);
    return this.next((m) => (m.type === 'MessageSent' || m.type === 'DeliveryError') && (messageId === undefined || m.message_id === messageId), mark);
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(text: string): void {
    this.buffer += text;
    if (this.buffer.length > CLIENT_MAX_LINE * 2) {
      this.socket.destroy();
      return;
    }
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (!line) continue;
      const m = JSON.parse(line) as DaemonMessage;
      this.received.push(m);
      for (const w of this.waiters.slice()) {
        if (w.match(m)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    }
  }
}
