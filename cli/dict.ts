/**
 * `clawling dict`: the group app-data dictionary from a shell, JSON in and out, for scripting.
 *
 * Every answer is one JSON object on stdout and exit code 0, whether the library accepted or rejected the input
 * (with --hex only the resulting bytes, so that a shell can chain create → write → apply; a rejection is then exit 1);
 * exit code 2 means the arguments themselves are unusable (unknown option, missing value, bad hex, bad inbox id),
 * with the reason on stderr.
 */
import { parseArgs } from 'node:util';
import { fromHex, toHex } from '../lib/bytes';
import { CodedError } from '../lib/coded-error';
import { applyCommit } from '../lib/dictionary/apply-commit';
import { changesToJson, type OperationName, runOperation } from '../lib/dictionary/operations';
import { type CliCommand, type CliIo, jsonLine, printable, readAll, write } from './command';

const HELP = `usage: clawling dict <create|write|apply|describe|read> [options]

  apply     --dictionary HEX --proposal HEX [--proposal HEX …] --actor INBOX_ID_HEX [--external]
            Applies AppDataUpdate proposals (in commit order) to AppDataDictionary extension bytes. Prints
            {"ok":true,"dictionary":"<hex>","changes":[{"field_name","old_value","new_value"}]}
            or {"ok":false,"code":"COMMIT_REJECTED","reason":"<internal reason>"}.
  create    --kind group|dm|sync --creator INBOX_ID_HEX [--dm-peer INBOX_ID_HEX] [--name TEXT]
            [--description TEXT] [--image-url TEXT] [--app-data TEXT] [--disappear-from-ns N --disappear-in-ns N]
            [--min-version X.Y.Z] [--signer HEX]
  write     --dictionary HEX --actor INBOX_ID_HEX --field NAME|0xID [--op set|remove|put|delete|add]
            [--value TEXT] [--key TEXT] [--external]
            Prepares the AppDataUpdate proposals for one field change (what apply takes; apply decides whether
            the actor may make it). Prints {"ok":true,"proposals":["<hex>",…],"commit":true|false}.
  describe  --dictionary HEX
  read      --dictionary HEX --field NAME|0xID [--field …] [--key INBOX_ID_HEX]

  --request JSON|-   the operation's request object (docs/dictionary.md), or '-' to read it from stdin;
                     options given on the command line override its keys.

  --hex              print only the resulting bytes as hex, for a shell variable: the dictionary (create,
                     apply) or the proposals one per line (write). A rejection then prints its JSON on stderr
                     and exits 1.

Exit code 0 when a JSON answer was printed (accepted or rejected), 1 for a rejection with --hex, 2 for unusable
arguments.

A rename from the shell:
  ME=${'a1'.repeat(32)}
  DICT=$(clawling dict create --kind group --creator $ME --name Lobby --hex)
  PROPOSAL=$(clawling dict write --dictionary $DICT --actor $ME --field GROUP_NAME --value Kitchen --hex)
  clawling dict apply --dictionary $DICT --proposal $PROPOSAL --actor $ME
`;

class UsageError extends Error {}

const OPTIONS = {
  dictionary: { type: 'string' },
  proposal: { type: 'string', multiple: true },
  actor: { type: 'string' },
  external: { type: 'boolean' },
  kind: { type: 'string' },
  creator: { type: 'string' },
  'dm-peer': { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  'image-url': { type: 'string' },
  'app-data': { type: 'string' },
  'disappear-from-ns': { type: 'string' },
  'disappear-in-ns': { type: 'string' },
  'min-version': { type: 'string' },
  signer: { type: 'string' },
  field: { type: 'string', multiple: true },
  key: { type: 'string' },
  value: { type: 'string' },
  op: { type: 'string' },
  hex: { type: 'boolean' },
  request: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'];

function hexArg(name: string, value: string | undefined): Uint8Array {
  if (value === undefined) throw new UsageError(`--${name} is required`);
  const bytes = fromHex(value);
  if (!bytes) throw new UsageError(`--${name} must be even-length hex`);
  return bytes;
}

async function requestBase(values: Values, io: CliIo): Promise<Record<string, unknown>> {
  if (values.request === undefined) return {};
  const text = values.request === '-' ? (await readAll(io.stdin)).toString('utf8') : values.request;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--request is not JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError('--request must be a JSON object');
  return parsed as Record<string, unknown>;
}

function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}

function fieldRef(text: string): string | number {
  return /^[0-9]+$/.test(text) ? Number(text) : text;
}

function buildRequest(sub: OperationName, values: Values, base: Record<string, unknown>): Record<string, unknown> {
  const r = { ...base };
  if (values.dictionary !== undefined) r.dictionary = toHex(hexArg('dictionary', values.dictionary));
  if (sub === 'create') {
    put(r, 'kind', values.kind);
    put(r, 'creator', values.creator);
    put(r, 'dm_peer', values['dm-peer']);
    put(r, 'name', values.name);
    put(r, 'description', values.description);
    put(r, 'image_url', values['image-url']);
    put(r, 'app_data', values['app-data']);
    put(r, 'disappear_from_ns', values['disappear-from-ns']);
    put(r, 'disappear_in_ns', values['disappear-in-ns']);
    put(r, 'min_supported_protocol_version', values['min-version']);
    if (values.signer !== undefined) r.commit_log_signer = toHex(hexArg('signer', values.signer));
    if (r.creator === undefined) throw new UsageError('--creator is required');
  }
  if (sub === 'read') {
    if (values.field) r.fields = values.field.map(fieldRef);
    if (values.key !== undefined) {
      if (!values.field || values.field.length !== 1) throw new UsageError('--key reads one map field: give exactly one --field');
      r.field = fieldRef(values.field[0]);
      delete r.fields;
      r.key = values.key;
    }
  }
  if (sub === 'write') {
    if (!values.field || values.field.length !== 1) throw new UsageError('write changes one field: give exactly one --field');
    r.field = fieldRef(values.field[0]);
    put(r, 'actor', values.actor);
    put(r, 'op', values.op);
    put(r, 'value', values.value);
    put(r, 'key', values.key);
    if (values.external) r.external = true;
    if (r.actor === undefined) throw new UsageError('--actor is required');
  }
  if ((sub === 'describe' || sub === 'read' || sub === 'write') && r.dictionary === undefined) throw new UsageError('--dictionary is required');
  return r;
}

async function runApply(values: Values, io: CliIo): Promise<number> {
  const dictionary = hexArg('dictionary', values.dictionary);
  const proposals = (values.proposal ?? []).map((p, i) => hexArg(`proposal (#${i + 1})`, p));
  if (proposals.length === 0) throw new UsageError('give at least one --proposal');
  if (values.actor === undefined || !/^[0-9a-f]{64}$/.test(values.actor)) throw new UsageError('--actor must be an inbox id: 64 lowercase hex characters');
  const result = applyCommit(dictionary, proposals, values.actor, { external: values.external === true });
  const out = result.ok
    ? { ok: true, dictionary: toHex(result.bytes), changes: changesToJson(result.changes) }
    : { ok: false, code: result.error.code, reason: result.error.reason };
  return answer(out, values.hex === true, io);
}

/** The answer as one JSON line, or with --hex only its bytes (a rejection then goes to stderr, exit 1). */
async function answer(out: Record<string, unknown>, hexOnly: boolean, io: CliIo): Promise<number> {
  if (!hexOnly) {
    await write(io.stdout, jsonLine(out));
    return 0;
  }
  if (out.ok !== true) {
    io.stderr.write(jsonLine(out));
    return 1;
  }
  const bytes = Array.isArray(out.proposals) ? (out.proposals as string[]) : [out.dictionary as string];
  await write(io.stdout, `${bytes.join('\n')}\n`);
  return 0;
}

const SUBCOMMANDS: readonly string[] = ['create', 'write', 'apply', 'describe', 'read'];
/** The subcommands whose answer is bytes, which --hex prints bare. */
const HEX_ANSWERS: readonly string[] = ['create', 'write', 'apply'];

export const command: CliCommand = {
  summary: 'create, write, apply, describe and read MLS group app-data dictionaries (JSON out)',
  async run(args, io) {
    const [sub, ...rest] = args;
    if (!sub || sub === '--help' || sub === '-h' || sub === 'help') {
      io.stdout.write(HELP);
      return sub ? 0 : 2;
    }
    try {
      if (!SUBCOMMANDS.includes(sub)) throw new UsageError(`unknown subcommand '${sub}'`);
      let parsed;
      try {
        parsed = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true, strict: true });
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      const { values, positionals } = parsed;
      if (values.help) {
        io.stdout.write(HELP);
        return 0;
      }
      if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
      if (values.hex && !HEX_ANSWERS.includes(sub)) throw new UsageError(`--hex is for ${HEX_ANSWERS.join(', ')}: ${sub} answers with more than bytes`);
      if (sub === 'apply') return await runApply(values, io);
      const request = buildRequest(sub as OperationName, values, await requestBase(values, io));
      let out: Record<string, unknown>;
      try {
        const result = runOperation(sub as OperationName, request);
        out = { ok: true, ...result.payload, summary: result.summary };
      } catch (err) {
        if (!(err instanceof CodedError)) throw err;
        if (err.code === 'INVALID_ARGUMENT' || err.code === 'INVALID_INBOX_ID') throw new UsageError(err.message);
        const reason = (err as CodedError & { reason?: string }).reason;
        out = reason === undefined ? { ok: false, code: err.code, message: err.message } : { ok: false, code: err.code, reason, message: err.message };
      }
      return await answer(out, values.hex === true, io);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      io.stderr.write(`clawling dict: ${printable(err.message)}\n(see 'clawling dict --help')\n`);
      return 2;
    }
  },
};
