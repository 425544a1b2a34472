#!/usr/bin/env node
/**
 * `clawling`: one binary, one subcommand per face of the package. Subcommands load lazily so that
 * `clawling mesh` never pays for (or fails on) the gateway's native modules.
 */
import type { CliCommand, CliIo } from './command';

// Each entry is a path so that the table stays data; a module missing from this build simply isn't listed.
const COMMANDS: Record<string, string> = {
  mesh: './mesh',
  dict: './dict',
  hub: './hub',
  media: './media',
  devhub: './devhub',
  gateway: './gateway',
  demo: './demo',
  'daemon-client': './daemon-client',
};

async function load(name: string): Promise<CliCommand | undefined> {
  const file = COMMANDS[name];
  if (!file) return undefined;
  try {
    return ((await import(file)) as { command: CliCommand }).command;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && String((err as Error).message).includes(`./${name}`)) {
      return undefined;
    }
    throw err;
  }
}

async function usage(): Promise<string> {
  const lines = ['usage: clawling <command> [options]', '', 'commands:'];
  for (const name of Object.keys(COMMANDS)) {
    const cmd = await load(name);
    if (cmd) lines.push(`  ${name.padEnd(14)}${cmd.summary}`);
  }
  lines.push('', "Run 'clawling <command> --help' for a command's options.");
  return lines.join('\n') + '\n';
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(await usage());
    return name ? 0 : 2;
  }
  const cmd = await load(name);
  if (!cmd) {
    io.stderr.write(`clawling: unknown command '${name}'\n${await usage()}`);
    return 2;
  }
  return cmd.run(rest, io);
}

if (require.main === module) {
  main(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`clawling: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
