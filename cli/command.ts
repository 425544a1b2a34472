/**
 * What every `clawling` subcommand looks like: arguments in, an exit code out, streams injected for tests.
 * What a command prints may quote the mesh, a hub or a media service; it goes out through `jsonLine` (JSON) or
 * `printable` (human text), so that no line of it can move a terminal's cursor or forge another line.
 */
import type { Readable, Writable } from 'node:stream';
import { printable, printableJson } from '../lib/printable';

export { printable, printableJson };

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
}

export interface CliCommand {
  /** One line for `clawling --help`. */
  summary: string;
  run(args: string[], io: CliIo): Promise<number>;
}

/** Reads a whole stream into one Buffer (stdin of a one-shot command). */
export async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(parts);
}

/** One JSON line: lossless (escapes parse back to the same value), with nothing a terminal would act on. */
export function jsonLine(value: unknown): string {
  return `${printableJson(JSON.stringify(value))}\n`;
}

/** Writes and resolves once the data is handed to the stream, so large outputs keep their order and backpressure. */
export function write(stream: Writable, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(data, (err) => (err ? reject(err) : resolve()));
  });
}
