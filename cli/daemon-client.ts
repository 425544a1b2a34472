/**
 * `clawling daemon-client`: attach to a gateway-daemon v1 listener from a shell, as a device would, for debugging.
 * The key file holds the device's Ed25519 key (PKCS#8 PEM, or its 32-byte seed as 64 hex characters); `--keygen`
 * writes a fresh one (mode 0600). After the attach every line the gateway sends is printed as a JSON line, and every
 * line typed is sent: a JSON object as it is, or one of the shorthands `send <off1…> <text>` (a JSON-floor mesh
 * frame from this device), `presence <off1…> …` and `quit`. The key never leaves this process or reaches the output.
 */
import { createPrivateKey, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import readline from 'node:readline';
import { encodeFrame } from '../lib/mesh/frame';
import { controlIdentityFromPrivateKey, type ControlIdentity } from '../lib/mesh/control-signature';
import { gatewayAddressProofPayload } from '../lib/mesh/gateway-address-proof';
import { createMessage } from '../lib/mesh/message';
import { MessageId } from '../lib/mesh/message-id';
import { jsonLine, printable, type CliCommand, type CliIo } from './command';

const USAGE = `usage: clawling daemon-client --key FILE [--connect HOST:PORT] [--once]
       clawling daemon-client --keygen FILE

  --connect HOST:PORT  the gateway's daemon.listen (default 127.0.0.1:4242)
  --key FILE           the device key: PKCS#8 PEM, or a 32-byte seed in hex
  --keygen FILE        write a new key there (0600) and print its off1 address
  --once               attach, print the answer, and exit (0 when bound)

After the attach, type a JSON object to send it, or:
  send <off1…> <text>     a mesh text message from this device (JSON floor, base64)
  presence <off1…> …      CheckPresence
  quit
`;

/** The largest line a reference client reads; a longer one ends the session as it would. */
const MAX_LINE = 1_048_576;

function readKey(file: string): KeyObject {
  const text = fs.readFileSync(file, 'utf8').trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return controlIdentityFromPrivateKey(new Uint8Array(Buffer.from(text, 'hex'))).privateKey;
  const key = createPrivateKey(text);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${file} is not an Ed25519 private key`);
  return key;
}

function parseArgs(args: string[]): { connect: string; key?: string; keygen?: string; once: boolean } | string {
  const out: { connect: string; key?: string; keygen?: string; once: boolean } = { connect: '127.0.0.1:4242', once: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const value = (): string | undefined => args[++i];
    if (a === '--connect') out.connect = value() ?? '';
    else if (a === '--key') out.key = value();
    else if (a === '--keygen') out.keygen = value();
    else if (a === '--once') out.once = true;
    else return `unknown option ${a}`;
  }
  if (!out.key && !out.keygen) return '--key or --keygen is required';
  return out;
}

function frameFor(me: ControlIdentity, recipient: string, text: string): Uint8Array {
  const message = createMessage({
    id: MessageId.random(),
    sender: me.address,
    recipient,
    app_id: 'clawling-cli',
    priority: 'medium',
    ttl: 8,
    hop_count: 0,
    timestamp: BigInt(Date.now()),
    content: text,
    requires_ack: true,
  });
  return encodeFrame(message, 'json');
}

async function run(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(USAGE);
    return 0;
  }
  const opts = parseArgs(args);
  if (typeof opts === 'string') {
    io.stderr.write(`clawling daemon-client: ${opts}\n${USAGE}`);
    return 2;
  }
  if (opts.keygen) {
    const { privateKey } = generateKeyPairSync('ed25519');
    fs.writeFileSync(opts.keygen, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
    io.stdout.write(`${controlIdentityFromPrivateKey(privateKey).address}\n`);
    return 0;
  }
  const me = controlIdentityFromPrivateKey(readKey(opts.key!));
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(opts.connect);
  if (!m) {
    io.stderr.write(`clawling daemon-client: --connect must be HOST:PORT\n`);
    return 2;
  }
  const socket = net.connect({ host: m[1] ?? m[2], port: Number(m[3]) });
  return new Promise<number>((resolve) => {
    let buffer = '';
    let bound = false;
    let code = 1;
    let input: readline.Interface | undefined;
    const send = (obj: Record<string, unknown>): void => {
      socket.write(`${JSON.stringify(obj)}\n`);
    };
    const finish = (exit: number): void => {
      code = exit;
      if (input) {
        input.close();
        // A piped stdin keeps the process alive after readline lets go of it.
        io.stdin.destroy();
      }
      socket.destroy();
    };
    const onMessage = (msg: Record<string, unknown>): void => {
      io.stdout.write(jsonLine(msg));
      if (msg.type === 'Challenge' && !bound) {
        const challenge = Buffer.from(String(msg.challenge), 'base64');
        const signature = sign(null, gatewayAddressProofPayload(me.address, challenge), me.privateKey);
        send({ type: 'DeclareAddress', address: me.address, public_key: Buffer.from(me.publicKey).toString('base64'), signature: signature.toString('base64') });
      } else if (msg.type === 'AddressError') {
        io.stderr.write(`clawling daemon-client: attach refused: ${printable(String(msg.reason))}\n`);
        finish(1);
      } else if (msg.type === 'AddressDeclared') {
        if (msg.address !== me.address) {
          io.stderr.write('clawling daemon-client: the gateway bound another address; closing\n');
          finish(1);
          return;
        }
        bound = true;
      } else if (msg.type === 'StatusUpdate' && msg.status === 'connected' && bound) {
        if (opts.once) return finish(0);
        code = 0;
        io.stderr.write(`attached as ${me.address}; type JSON, 'send <off1…> <text>', 'presence <off1…>' or 'quit'\n`);
        input ??= readline.createInterface({ input: io.stdin });
        input.on('line', (line) => {
          const t = line.trim();
          if (!t) return;
          if (t === 'quit') return finish(0);
          const [verb, addr, ...rest] = t.split(/\s+/);
          try {
            if (verb === 'send' && addr) send({ type: 'SendMessage', recipient: addr, content: Buffer.from(frameFor(me, addr, rest.join(' '))).toString('base64'), encoding: 'base64', message_id: randomUUID() });
            else if (verb === 'presence') send({ type: 'CheckPresence', peers: t.split(/\s+/).slice(1) });
            else send(JSON.parse(t) as Record<string, unknown>);
          } catch (err) {
            io.stderr.write(`clawling daemon-client: ${printable((err as Error).message)}\n`);
          }
        });
        input.on('close', () => finish(code));
      }
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => send({ type: 'Identify', device_id: me.address, protocol_version: 1 }));
    socket.on('data', (text: string) => {
      buffer += text;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        try {
          if (line) onMessage(JSON.parse(line) as Record<string, unknown>);
        } catch {
          io.stderr.write('clawling daemon-client: a line that is not JSON, ignored\n');
        }
      }
      if (buffer.length > MAX_LINE) finish(1);
    });
    socket.on('error', (err) => {
      io.stderr.write(`clawling daemon-client: ${printable(err.message)}\n`);
      code = 1;
    });
    socket.on('close', () => resolve(code));
  });
}

export const command: CliCommand = { summary: 'attach to a gateway-daemon v1 listener as a device (debugging)', run };
