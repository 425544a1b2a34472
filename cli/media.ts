/**
 * `clawling media`: the Message Hub's media service from a shell. `upload` streams a file (or standard input) to
 * `POST /media/upload` and prints the fragment JSON on stdout, ready for a `message.send`; `health` asks `GET /health`.
 * The token is read from an environment variable named on the command line, never from an argument, because
 * arguments are visible to every user of the machine through `ps`.
 */
import { parseArgs } from 'node:util';
import { checkHealth, DEFAULT_MAX_BYTES, MediaError, uploadMediaDetailed, type UploadProgress } from '../lib/media';
import { printable, printableJson, type CliCommand, type CliIo } from './command';

const DEFAULT_TOKEN_ENV = 'CLAWLING_TOKEN';
const URL_ENV = 'CLAWLING_MEDIA_URL';

const HELP = `usage: clawling media upload FILE [options]
       clawling media health [--url URL]

upload: streams FILE (a path, or - for standard input) to the hub's media service and prints the returned
fragment as one line of JSON, with width/height/duration added from the file's headers where they say.

  --url URL          media service base (https://media.example) or its /media/upload URL
                     (default: $${URL_ENV})
  --token-env NAME   environment variable that holds the bearer token (default: ${DEFAULT_TOKEN_ENV})
  --mime TYPE        declared MIME type (default: from the name, else from the content)
  --name NAME        file name sent to the hub (default: FILE's last path segment)
  --max-bytes N      refuse before sending above N bytes; suffixes KiB, MiB, GiB (default: 100MiB)
  --size N           byte length of standard input, when known (enables the size check up front)
  --retries N        retries for network failures, 5xx and 503 storage not configured (default: 2)
  --timeout MS       idle time on the connection before giving up (default: 30000)
  --no-enrich        do not add width/height/duration
  --progress         report progress on stderr
  --pretty           indent the JSON
  --quiet            no warnings on stderr

Exit status: 0 uploaded, 1 refused or failed (stderr says 'CODE: message'), 2 bad usage.
`;

function parseBytes(text: string, option: string): number {
  const m = /^(\d+)\s*(B|KiB|MiB|GiB|K|M|G)?$/i.exec(text.trim());
  if (!m) throw new UsageError(`${option} must be a number of bytes, optionally with KiB/MiB/GiB, got '${text}'`);
  const unit = (m[2] ?? 'B').toUpperCase().replace('IB', '');
  const factor = unit === 'K' ? 1024 : unit === 'M' ? 1024 ** 2 : unit === 'G' ? 1024 ** 3 : 1;
  const n = Number(m[1]) * factor;
  if (!Number.isSafeInteger(n)) throw new UsageError(`${option} is too large: '${text}'`);
  return n;
}

function parseCount(text: string | undefined, option: string, min: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min) throw new UsageError(`${option} must be a whole number ≥ ${min}, got '${text}'`);
  return Number(text);
}

class UsageError extends Error {}

function progressPrinter(io: CliIo): (p: UploadProgress) => void {
  let lastTenth = -1;
  let lastAttempt = 0;
  return (p) => {
    if (p.attempt !== lastAttempt) {
      lastAttempt = p.attempt;
      lastTenth = -1;
      if (p.attempt > 1) io.stderr.write(`attempt ${p.attempt}\n`);
    }
    if (p.total === undefined || p.total === 0) {
      const mib = Math.floor(p.sent / (10 * 1024 * 1024));
      if (mib !== lastTenth) {
        lastTenth = mib;
        io.stderr.write(`sent ${(p.sent / 1024 / 1024).toFixed(1)} MiB\n`);
      }
      return;
    }
    const tenth = Math.floor((p.sent / p.total) * 10);
    if (tenth !== lastTenth) {
      lastTenth = tenth;
      io.stderr.write(`sent ${tenth * 10}% (${p.sent}/${p.total} bytes)\n`);
    }
  };
}

async function upload(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      'token-env': { type: 'string' },
      mime: { type: 'string' },
      name: { type: 'string' },
      'max-bytes': { type: 'string' },
      size: { type: 'string' },
      retries: { type: 'string' },
      timeout: { type: 'string' },
      'no-enrich': { type: 'boolean' },
      progress: { type: 'boolean' },
      pretty: { type: 'boolean' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('upload takes exactly one FILE (a path, or - for standard input)');
  const url = values.url ?? io.env[URL_ENV];
  if (!url) throw new UsageError(`no media URL: pass --url or set ${URL_ENV}`);
  const tokenEnv = values['token-env'] ?? DEFAULT_TOKEN_ENV;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv)) throw new UsageError(`--token-env takes the name of a variable, got '${tokenEnv}'`);
  const token = io.env[tokenEnv];
  if (!token) throw new UsageError(`no token: set the environment variable ${tokenEnv} (or name another with --token-env)`);
  const file = positionals[0];
  const retries = parseCount(values.retries, '--retries', 0);
  const result = await uploadMediaDetailed(file === '-' ? io.stdin : file, {
    url,
    token,
    mime: values.mime,
    name: values.name,
    maxBytes: values['max-bytes'] === undefined ? DEFAULT_MAX_BYTES : parseBytes(values['max-bytes'], '--max-bytes'),
    size: values.size === undefined ? undefined : parseBytes(values.size, '--size'),
    retry: retries === undefined ? undefined : { retries },
    timeoutMs: parseCount(values.timeout, '--timeout', 1),
    enrich: !values['no-enrich'],
    onProgress: values.progress ? progressPrinter(io) : undefined,
    onWarning: values.quiet ? undefined : (w) => io.stderr.write(`warning: ${w.code}: ${printable(w.message)}\n`),
    onRetry: values.quiet ? undefined : (r) => io.stderr.write(`retrying in ${r.delayMs} ms after ${r.error.code}: ${printable(r.error.message)}\n`),
  });
  io.stdout.write(printableJson(JSON.stringify(result.fragment, null, values.pretty ? 2 : undefined)) + '\n');
  return 0;
}

async function health(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { url: { type: 'string' }, timeout: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`health takes no arguments, got '${positionals[0]}'`);
  const url = values.url ?? io.env[URL_ENV];
  if (!url) throw new UsageError(`no media URL: pass --url or set ${URL_ENV}`);
  const report = await checkHealth(url, { timeoutMs: parseCount(values.timeout, '--timeout', 1) });
  io.stdout.write(`${printable(report.body || 'ok')} (HTTP ${report.status}, ${report.latencyMs.toFixed(1)} ms)\n`);
  return 0;
}

export const command: CliCommand = {
  summary: 'upload a file to the hub media service and print its fragment; check its health',
  async run(args, io) {
    const [sub, ...rest] = args;
    try {
      if (sub === 'upload') return await upload(rest, io);
      if (sub === 'health') return await health(rest, io);
      if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
        io.stdout.write(HELP);
        return sub === undefined ? 2 : 0;
      }
      throw new UsageError(`unknown subcommand '${sub}'`);
    } catch (err) {
      if (err instanceof MediaError) {
        io.stderr.write(`clawling media: ${err.code}: ${printable(err.message)}\n`);
        return 1;
      }
      if (err instanceof UsageError || (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
        io.stderr.write(`clawling media: ${(err as Error).message}\nRun 'clawling media --help' for the options.\n`);
        return 2;
      }
      throw err;
    }
  },
};
