/** What every `clawling` subcommand looks like: arguments in, an exit code out, streams injected for tests. */
import type { Readable, Writable } from 'node:stream';

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

/** Writes and resolves once the data is handed to the stream, so large outputs keep their order and backpressure. */
export function write(stream: Writable, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(data, (err) => (err ? reject(err) : resolve()));
  });
}
