/**
 * `clawling mesh`: the mesh codecs on stdin and stdout, for scripts, captures and debugging.
 *
 *   encode      one JSON message → one frame (its raw bytes); --jsonl: a JSON message per line → a base64 frame per line
 *   decode      one frame (either codec) → its JSON floor text; --jsonl: a base64 (or JSON) frame per line → JSON per line
 *   fragment    one frame → its BLE fragments, one base64 line each
 *   reassemble  base64 fragments, one per line → each completed frame, one base64 line each
 *
 * Bad input ends the command with exit code 1 and one line on stderr naming the error code (and the line number,
 * for line-oriented input); everything written before it stays written. Usage errors exit with 2.
 */
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { toBase64 } from '../lib/bytes';
import { isCodedError } from '../lib/coded-error';
import { encodeFragments, FragmentReassembler, fragmentSizeForMtu } from '../lib/mesh/ble-fragment';
import { composeMessage } from '../lib/mesh/composer';
import { decodeFrame, encodeFrame, type FrameFormat } from '../lib/mesh/frame';
import { frameBytesFromInput } from '../lib/mesh/frame-input';
import { decodeJsonFloor } from '../lib/mesh/json-floor';
import { parseJsonPlain } from '../lib/mesh/json-plain';
import { MeshDecodeError } from '../lib/mesh/errors';
import type { MeshMessage } from '../lib/mesh/message';
import { printable, printableJson, readAll, write, type CliCommand, type CliIo } from './command';

const HELP = `usage: clawling mesh <encode|decode|fragment|reassemble> [options]   (stdin → stdout)

  encode [--format json|binary] [--jsonl] [--raw]
      Reads one message as JSON and writes its frame's bytes (default format: json, the floor every peer
      accepts; binary is wire v1). The input is application input: sender, recipient, app_id and content are
      required; id, priority, ttl, hop_count and timestamp default to a random id, medium, 8, 0 and now;
      64-bit values may be numbers or decimal strings; the reserved metadata keys (ack_for, __ctrl_sig, …) and
      transport_peer_id are refused.
      --raw    read the input as a JSON floor message exactly as on the wire instead: every required field
               present, no defaults, reserved keys allowed (to re-encode captured frames).
      --jsonl  one JSON message per line in, one base64 frame per line out.

  decode [--jsonl]
      Reads one frame (JSON floor or binary v1, sniffed from the first byte) and writes its JSON floor text
      and a newline. --jsonl: one frame per line in (base64, or JSON floor text), one JSON line out.

  fragment [--mtu N] [--jsonl]
      Reads one frame and writes its Bluetooth LE fragments, one base64 line each, 185-byte writes unless
      --mtu gives the peer's reported MTU (at most 512). --jsonl: one base64 frame per line in.

  reassemble [--decode]
      Reads base64 fragments, one per line, in any order, and writes each frame as soon as it is complete,
      one base64 line each (--decode: its JSON floor text instead). Fragments still incomplete at the end of
      the input are an error (INCOMPLETE_MESSAGE).

Errors: exit code 1 and one line on stderr, "clawling mesh <command>: [line N: ]CODE: message".
Usage errors exit with 2. Codes are listed in docs/mesh.md.
`;

/** A failure tied to an input line, so the message can name it. */
class LineError extends Error {
  constructor(
    readonly line: number,
    readonly failure: unknown,
  ) {
    super(`line ${line}`);
  }
}

function describe(err: unknown): string {
  if (err instanceof LineError) return `line ${err.line}: ${describe(err.failure)}`;
  if (isCodedError(err)) return `${err.code}: ${err.message}`;
  return `INTERNAL: ${err instanceof Error ? err.message : String(err)}`;
}

async function eachLine(stdin: Readable, fn: (line: string, number: number) => Promise<void>): Promise<void> {
  const lines = readline.createInterface({ input: stdin, crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (line.trim() === '') continue;
    try {
      await fn(line, number);
    } catch (err) {
      lines.close();
      throw new LineError(number, err);
    }
  }
}

/** The frame of a decoded message as JSON floor text (never binary: this is for reading). */
function jsonText(message: MeshMessage): string {
  return printableJson(Buffer.from(encodeFrame(message, 'json')).toString('utf8'));
}

function composeFromText(text: Uint8Array | string, raw: boolean): MeshMessage {
  if (raw) return decodeJsonFloor(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
  return composeMessage(parseJsonPlain(text));
}

async function encode(args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({ args, options: { format: { type: 'string', default: 'json' }, jsonl: { type: 'boolean' }, raw: { type: 'boolean' } } });
  if (values.format !== 'json' && values.format !== 'binary') throw new UsageError(`--format must be json or binary, got '${values.format}'`);
  const format: FrameFormat = values.format;
  const raw = values.raw === true;
  if (!values.jsonl) {
    await write(io.stdout, encodeFrame(composeFromText(await readAll(io.stdin), raw), format));
    return;
  }
  await eachLine(io.stdin, async (line) => {
    await write(io.stdout, `${toBase64(encodeFrame(composeFromText(line, raw), format))}\n`);
  });
}

async function decode(args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({ args, options: { jsonl: { type: 'boolean' } } });
  if (!values.jsonl) {
    await write(io.stdout, `${jsonText(decodeFrame(await readAll(io.stdin)))}\n`);
    return;
  }
  await eachLine(io.stdin, async (line) => {
    await write(io.stdout, `${jsonText(decodeFrame(frameBytesFromInput(line, 'line')))}\n`);
  });
}

async function fragment(args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({ args, options: { mtu: { type: 'string' }, jsonl: { type: 'boolean' } } });
  let mtu: number | undefined;
  if (values.mtu !== undefined) {
    mtu = Number(values.mtu);
    if (!Number.isInteger(mtu) || mtu <= 0) throw new UsageError(`--mtu must be a positive integer, got '${values.mtu}'`);
  }
  const size = fragmentSizeForMtu(mtu);
  const emit = async (frame: Uint8Array): Promise<void> => {
    // The header carries the message's own id, as the reference writes it, so the frame is decoded to learn it.
    const id = decodeFrame(frame).id.toString();
    for (const f of encodeFragments(frame, id, size)) await write(io.stdout, `${toBase64(f)}\n`);
  };
  if (!values.jsonl) {
    await emit(await readAll(io.stdin));
    return;
  }
  await eachLine(io.stdin, (line) => emit(frameBytesFromInput(line, 'line')));
}

async function reassemble(args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({ args, options: { decode: { type: 'boolean' } } });
  // Input may be a capture of any age: only the end of the input, never the clock, makes an assembly incomplete.
  const reassembler = new FragmentReassembler({ idleTimeoutMs: Number.MAX_SAFE_INTEGER });
  let lastLine = 0;
  await eachLine(io.stdin, async (line, number) => {
    lastLine = number;
    const bytes = frameBytesFromInput(line, 'line');
    const result = reassembler.push(bytes);
    if (result.status !== 'complete') return;
    await write(io.stdout, values.decode ? `${jsonText(decodeFrame(result.frame))}\n` : `${toBase64(result.frame)}\n`);
  });
  if (reassembler.size > 0) {
    throw new LineError(
      lastLine,
      new MeshDecodeError('INCOMPLETE_MESSAGE', `${reassembler.size} message(s) still missing fragments at the end of the input`, { incomplete: reassembler.size }),
    );
  }
}

class UsageError extends Error {}

const SUBCOMMANDS: Record<string, (args: string[], io: CliIo) => Promise<void>> = { encode, decode, fragment, reassemble };

export const command: CliCommand = {
  summary: 'encode, decode, fragment and reassemble mesh frames (stdin → stdout)',
  async run(args, io) {
    const [name, ...rest] = args;
    if (name === undefined || name === '--help' || name === '-h' || name === 'help' || rest.includes('--help') || rest.includes('-h')) {
      io.stdout.write(HELP);
      return name === undefined ? 2 : 0;
    }
    const sub = SUBCOMMANDS[name];
    if (!sub) {
      io.stderr.write(`clawling mesh: unknown command '${name}'\n\n${HELP}`);
      return 2;
    }
    try {
      await sub(rest, io);
      return 0;
    } catch (err) {
      if (err instanceof UsageError || (err as NodeJS.ErrnoException).code?.startsWith?.('ERR_PARSE_ARGS')) {
        io.stderr.write(`clawling mesh ${name}: ${(err as Error).message}\nRun 'clawling mesh --help' for the options.\n`);
        return 2;
      }
      io.stderr.write(`clawling mesh ${name}: ${printable(describe(err).replace(/\s*\n\s*/g, ' '))}\n`);
      return 1;
    }
  },
};
