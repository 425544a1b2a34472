/**
 * `clawling devhub`: runs the local Message Hub (WebSocket, media service, loopback admin API) from a YAML or JSON
 * config file until Ctrl-C. Command-line flags override the file's listeners.
 */
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../devhub/config';
import { startDevHub, type DevHubOptions } from '../devhub';
import { isCodedError } from '../lib/coded-error';
import { printable, printableJson, type CliCommand, type CliIo } from './command';

/** Where an admin token comes from when the config file names none (a flag would show it in `ps`). */
const ADMIN_TOKEN_ENV = 'CLAWLING_DEVHUB_ADMIN_TOKEN';

const HELP = `usage: clawling devhub --config FILE [--host H] [--port N] [--path P] [--media-port N] [--admin-port N]
                       [--state FILE] [--verbose]
       clawling devhub --example-config

Runs a local ClawlingChat Message Hub: the WebSocket protocol v2 on ws://HOST:PORT/PATH, the media service
(POST /media/upload, GET /health) on the same port unless --media-port is given, and the admin API on
loopback. With tls: { cert_file, key_file } in the file: wss:// and https://. Users, tokens, chats and settings come from the config file (docs/devhub.md); flags override it.
--state keeps inboxes and cursors in a file across restarts. Ctrl-C stops.
The admin API wants "Authorization: Bearer TOKEN": admin.token in the file, else $${ADMIN_TOKEN_ENV}, else a random
token drawn at start and printed once.
`;

const EXAMPLE = `# clawling devhub --config devhub.yaml
host: 127.0.0.1
port: 8080
path: /ws
users:
  - id: usr_alice
    nick_name: Alice
    token: alice-dev-token
  - id: usr_bob
    nick_name: Bob
    token: bob-dev-token
  - id: agt_helper
    nick_name: Helper
    token: helper-dev-token
chats:
  - id: cnv_01J0000000000000000000000A
    members: [usr_alice, usr_bob]
  - id: cnv_01J0000000000000000000000B
    members: [usr_alice, usr_bob, agt_helper]
settings:
  handshake_timeout_ms: 10000
  ack_silence_kick_ms: 120000
  retention:
    max_age_ms: 2592000000
    max_rows_per_user: 100000
  reliability:
    v1: true
    v2: true
  stream_merged: false
media:
  storage: memory
  max_size_bytes: 104857600
admin:
  host: 127.0.0.1
  port: 0            # 0 picks a free port; the URL is printed at start
  # token: change-me-to-16-or-more-characters   # Authorization: Bearer … on the admin API; default: drawn at start, printed once
# state_file: ./devhub-state.json
# tls: { cert_file: server.pem, key_file: server.key }   # wss:// and https://, paths relative to this file
`;

function port(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${flag} must be an integer 0..65535, got '${value}'`);
  return n;
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

async function run(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      path: { type: 'string' },
      'media-port': { type: 'string' },
      'admin-port': { type: 'string' },
      state: { type: 'string' },
      verbose: { type: 'boolean' },
      'example-config': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (values['example-config']) {
    io.stdout.write(EXAMPLE);
    return 0;
  }
  if (!values.config) {
    io.stderr.write(`clawling devhub: --config FILE is required (try --example-config)\n`);
    return 2;
  }
  const options: DevHubOptions = loadConfigFile(values.config);
  if (values.host !== undefined) options.host = values.host;
  const mainPort = port(values.port, '--port');
  if (mainPort !== undefined) options.port = mainPort;
  if (values.path !== undefined) options.path = values.path;
  const mediaPort = port(values['media-port'], '--media-port');
  if (mediaPort !== undefined) options.media = { ...options.media, port: mediaPort };
  const adminPort = port(values['admin-port'], '--admin-port');
  if (adminPort !== undefined) options.admin = { ...options.admin, port: adminPort };
  if (values.state !== undefined) options.state_file = values.state;
  const envToken = io.env[ADMIN_TOKEN_ENV];
  const tokenSource = options.admin?.token !== undefined ? 'admin.token in the config file' : envToken ? `$${ADMIN_TOKEN_ENV}` : undefined;
  if (options.admin?.token === undefined && envToken) options.admin = { ...options.admin, token: envToken };

  const verbose = values.verbose === true;
  const hub = await startDevHub(options, {
    log: (level, message, fields) => {
      if (!verbose && level === 'debug') return;
      io.stderr.write(`[devhub] ${level} ${printable(message)}${fields ? ' ' + printableJson(JSON.stringify(fields)) : ''}\n`);
    },
  });
  const users = (options.users ?? []).map((u) => u.id);
  io.stdout.write(
    [
      'Clawling dev hub is running.',
      `  websocket: ${hub.wsUrl}`,
      `  media:     ${hub.mediaUrl || '(disabled)'}`,
      `  admin:     ${hub.adminUrl}`,
      // A token the operator chose is not echoed; a drawn one is shown here once, and nowhere else.
      `  admin token: ${tokenSource ? `(${tokenSource})` : hub.adminToken}   (send as "Authorization: Bearer TOKEN")`,
      `  users:     ${users.length > 0 ? users.join(', ') : '(none: add some to the config file)'}`,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
  await waitForSignal();
  io.stdout.write('Stopping the dev hub…\n');
  await hub.stop();
  return 0;
}

export const command: CliCommand = {
  summary: 'run a local Message Hub (WebSocket, media, admin API) from a config file',
  async run(args, io) {
    try {
      return await run(args, io);
    } catch (err) {
      const code = isCodedError(err) ? ` (${err.code})` : '';
      io.stderr.write(`clawling devhub: ${(err as Error).message}${code}\n`);
      return 2;
    }
  },
};
