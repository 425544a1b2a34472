/**
 * Runs a command to completion and keeps what it printed: an install that fails has to show npm's own words in the
 * test failure, and the suite prints how long each install took (figures, not thresholds).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Resolve even when the command exits non-zero (the test then looks at the code itself). */
  allowFailure?: boolean;
}

export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => {
      const result = { code, stdout, stderr, ms: Date.now() - started };
      if (code !== 0 && !options.allowFailure) {
        reject(new Error(`${path.basename(command)} ${args.join(' ')} exited with ${code}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
      } else {
        resolve(result);
      }
    });
  });
}

/**
 * The environment for one toolchain: its node first on PATH (npm, node-gyp and `#!/usr/bin/env node` bins all take
 * it from there) and node-gyp pointed at that node's headers, because the machine's ~/.npmrc names Node 20's.
 */
export function toolchainEnv(nodeBin: string | undefined, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra };
  if (nodeBin) {
    env.PATH = `${nodeBin}${path.delimiter}${process.env.PATH ?? ''}`;
    env.npm_config_nodedir = path.dirname(nodeBin);
  }
  return env;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The packages npm reports as having had their install scripts blocked or left unreviewed. */
export function scriptWarnings(output: string): string[] {
  return [...output.matchAll(/^npm warn install-scripts\s+(\S+)@\d\S* \(/gm)].map((m) => m[1]);
}
