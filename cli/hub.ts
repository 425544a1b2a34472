/**
 * `clawling hub tail|send`: the full hub client from a shell, for scripting and for looking at a deployment.
 *
 *   clawling hub tail --url URL --token-env VAR --user-id ID --device-id ID [--chat ID]
 *     one JSON line per received event ({"event","chat_id","message_id","payload"}) and per state change ({"state"})
 *   clawling hub send --url URL --token-env VAR --user-id ID --device-id ID --chat ID --text TEXT
 *     sends one message, prints its message.ack or message.error as JSON, exits 0 or 1
 *
 * Both exit 3 with one line on stderr when the hub refuses the token ("authentication failed"), and 2 on bad usage.
 * The token is read from the environment variable named by --token-env, never from the command line, and never printed.
 */
import { parseArgs } from 'node:util';
import type { CliCommand, CliIo } from './command';
import { jsonLine, printable, write } from './command';
import { HubClient, HubError, type HubStatus, type Reliability } from '../lib/hub';
import { openStore, type Store } from '../lib/store';

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_AUTH = 3;

const HELP = `usage: clawling hub <tail|send> --url URL --token-env VAR --user-id ID --device-id ID [options]

  tail                 print every received event as one JSON line, and state changes as {"state":…}
    --chat ID          only events of this chat
  send                 send one message and print its message.ack or message.error
    --chat ID          the chat to send to (required)
    --text TEXT        the message text (required)
    --timeout MS       give up after MS milliseconds without an answer (default 30000)

common options:
  --url URL            the hub's WebSocket URL (ws:// or wss://, default path /ws)
  --token-env VAR      name of the environment variable holding the bearer token
  --user-id ID         your own user id (the wire never tells it)
  --device-id ID       this device's stable id (keeps the replay cursor)
  --reliability MODE   v2 (default), v1 or legacy
  --state FILE         keep the outbox, dedup table and cursors in this sqlite file (default: in memory)
  --require-cnv        refuse chat ids that are not cnv_… locally

exit codes: 0 done, 1 refused or timed out, 2 usage, 3 token refused ("authentication failed")
`;

const OPTIONS = {
  url: { type: 'string' },
  'token-env': { type: 'string' },
  'user-id': { type: 'string' },
  'device-id': { type: 'string' },
  chat: { type: 'string' },
  text: { type: 'string' },
  timeout: { type: 'string' },
  reliability: { type: 'string' },
  state: { type: 'string' },
  'require-cnv': { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

class UsageError extends Error {}

function required(values: Values, name: 'url' | 'token-env' | 'user-id' | 'device-id' | 'chat' | 'text'): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

interface Connection {
  client: HubClient;
  store: Store;
}

function connect(values: Values, io: CliIo): Connection {
  const url = required(values, 'url');
  const tokenEnv = required(values, 'token-env');
  const token = io.env[tokenEnv];
  if (!token) throw new UsageError(`the environment variable ${tokenEnv} (named by --token-env) is empty or unset`);
  const reliability = (values.reliability ?? 'v2') as Reliability;
  if (!['v2', 'v1', 'legacy'].includes(reliability)) throw new UsageError(`--reliability must be v2, v1 or legacy, got '${reliability}'`);
  const store = openStore(values.state ?? ':memory:');
  try {
    const client = new HubClient({
      url,
      token,
      userId: required(values, 'user-id'),
      deviceId: required(values, 'device-id'),
      store,
      reliability,
      chatIdRule: values['require-cnv'] ? 'cnv' : 'any',
    });
    return { client, store };
  } catch (err) {
    store.close();
    if (err instanceof HubError && err.code === 'BAD_OPTIONS') throw new UsageError(err.message);
    throw err;
  }
}

function stateLine(s: HubStatus): string {
  const line: Record<string, unknown> = { state: s.state };
  if (s.state === 'backoff') line.retry_in_ms = s.retryInMs;
  if (s.reason !== undefined && (s.state === 'backoff' || s.state === 'auth_failed')) line.reason = s.reason;
  if (s.deliveryMode !== undefined) line.delivery_mode = s.deliveryMode;
  return jsonLine(line);
}

const AUTH_MESSAGE = 'clawling hub: the hub refused the token (authentication failed); get a fresh token and try again\n';

/** Resolves on SIGINT / SIGTERM. */
function interrupted(): { promise: Promise<void>; dispose(): void } {
  let stop: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return {
    promise,
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

async function tail(values: Values, io: CliIo): Promise<number> {
  const { client, store } = connect(values, io);
  const chat = values.chat;
  // Backpressure end to end: when stdout is backed up (a slow pipe, a terminal), the client stops reading the hub
  // until it drains, so a flood waits in the hub and not in this process.
  let hold: (() => void) | undefined;
  // The reader went away (`clawling hub tail | head -1`): stop quietly, as `cat` and `grep` do.
  const readerGone = new Promise<void>((resolve) => io.stdout.on('error', () => resolve()));
  const print = (text: string): void => {
    if (io.stdout.write(text) || hold) return;
    hold = client.holdReceive();
    io.stdout.once('drain', () => {
      hold?.();
      hold = undefined;
    });
  };
  const authFailed = new Promise<void>((resolve) => {
    client.on('state', (s) => {
      print(stateLine(s));
      if (s.state === 'auth_failed') resolve();
    });
  });
  client.on('frame', (f) => {
    if (chat !== undefined && f.chatId !== chat) return;
    print(jsonLine({ event: f.event, chat_id: f.chatId ?? null, message_id: f.messageId ?? null, payload: f.payload }));
  });
  const signal = interrupted();
  client.start();
  const outcome = await Promise.race([authFailed.then(() => 'auth' as const), signal.promise.then(() => 'stop' as const), readerGone.then(() => 'gone' as const)]);
  signal.dispose();
  await client.stop();
  if (outcome !== 'gone') await write(io.stdout, '').catch(() => undefined);
  store.close();
  if (outcome === 'auth') {
    io.stderr.write(AUTH_MESSAGE);
    return EXIT_AUTH;
  }
  return EXIT_OK;
}

async function send(values: Values, io: CliIo): Promise<number> {
  const chatId = required(values, 'chat');
  const text = required(values, 'text');
  const timeoutMs = values.timeout === undefined ? 30_000 : Number(values.timeout);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new UsageError(`--timeout must be a positive number of milliseconds, got '${values.timeout}'`);
  const { client, store } = connect(values, io);
  let timer: NodeJS.Timeout | undefined;
  const signal = interrupted();
  const authFailed = new Promise<'auth'>((resolve) => client.on('state', (s) => s.state === 'auth_failed' && resolve('auth')));
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  client.start();
  const sent = client.send({ chatId, text }).then(
    (ack) => ({ ok: true as const, ack }),
    (err: unknown) => ({ ok: false as const, err }),
  );
  const outcome = await Promise.race([sent, authFailed, timedOut, signal.promise.then(() => 'stop' as const)]);
  clearTimeout(timer);
  signal.dispose();
  await client.stop();
  store.close();
  if (outcome === 'auth') {
    io.stderr.write(AUTH_MESSAGE);
    return EXIT_AUTH;
  }
  if (outcome === 'timeout' || outcome === 'stop') {
    io.stderr.write(`clawling hub send: no answer from the hub within ${timeoutMs} ms (state: ${client.state})\n`);
    return EXIT_FAILED;
  }
  if (outcome.ok) {
    const a = outcome.ack;
    await write(io.stdout, jsonLine({ event: 'message.ack', chat_id: a.chatId, message_id: a.messageId, trace_id: a.traceId, accepted_at: a.acceptedAt ?? null }));
    return EXIT_OK;
  }
  const err = outcome.err;
  if (err instanceof HubError && err.code === 'SEND_REJECTED') {
    const d = err.details ?? {};
    await write(
      io.stdout,
      jsonLine({ event: 'message.error', chat_id: d.chatId ?? chatId, message_id: d.messageId ?? null, trace_id: d.traceId ?? null, code: d.serverCode, reason: d.reason ?? null }),
    );
    return EXIT_FAILED;
  }
  io.stderr.write(`clawling hub send: ${err instanceof HubError ? `${err.code}: ` : ''}${printable((err as Error)?.message ?? String(err))}\n`);
  return EXIT_FAILED;
}

export const command: CliCommand = {
  summary: 'tail or send through a Message Hub with the full client',
  async run(args, io) {
    let parsed;
    try {
      parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true });
    } catch (err) {
      io.stderr.write(`clawling hub: ${(err as Error).message}\n${HELP}`);
      return EXIT_USAGE;
    }
    const { values, positionals } = parsed;
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT_OK;
    }
    const [verb, ...extra] = positionals;
    try {
      if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
      if (verb === 'tail') return await tail(values, io);
      if (verb === 'send') return await send(values, io);
      throw new UsageError(verb === undefined ? 'tail or send?' : `unknown subcommand '${verb}'`);
    } catch (err) {
      if (err instanceof UsageError) {
        io.stderr.write(`clawling hub: ${err.message}\n${HELP}`);
        return EXIT_USAGE;
      }
      throw err;
    }
  },
};
