/**
 * Reads the configuration in a short-lived child process, so that the running gateway never loads `yaml` (72
 * modules) and Ajv (63) or compiles the schema: code and heap a process has once used stay in its memory for good,
 * and on Node 24 they held some 13 MB of the gateway's anonymous memory for its whole life (docs/raspberry-pi.md,
 * "Memory"). A worker thread does not give them back (its isolate's pages stay with the process), a process does.
 *
 * The answer is the same `LoadedConfig` or the same `GatewayError` (code, message, details) as reading in place.
 * When the child cannot be started or ends without an answer, the configuration is read in this process instead:
 * memory is no reason not to start.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { GatewayError, type GatewayErrorCode } from './errors';
import type { LoadedConfig } from './load-config';

type Answer = { ok: true; loaded: LoadedConfig } | { ok: false; error: { code?: string; message: string; details?: Record<string, unknown> } };

export async function readConfigApart(file: string | undefined, env: NodeJS.ProcessEnv): Promise<LoadedConfig> {
  const answer = await askChild(file, env);
  if (answer === undefined) {
    const { readGatewayConfig } = await import('./read-config');
    return readGatewayConfig(file, env);
  }
  if (answer.ok) return answer.loaded;
  const { code, message, details } = answer.error;
  if (code === undefined) throw new Error(message);
  throw new GatewayError(code as GatewayErrorCode, message, details);
}

function askChild(file: string | undefined, env: NodeJS.ProcessEnv): Promise<Answer | undefined> {
  return new Promise((resolve) => {
    let answer: Answer | undefined;
    let child;
    try {
      // No inherited flags: the gateway's heap cap and profiling flags are for the gateway, not for this reader.
      child = fork(path.join(__dirname, 'read-apart-child.js'), [], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced' });
    } catch {
      resolve(undefined);
      return;
    }
    child.once('message', (m: Answer) => {
      answer = m;
    });
    child.once('error', () => resolve(undefined));
    child.once('exit', () => resolve(answer));
    child.send({ ...(file !== undefined ? { file } : {}), env: { ...env } });
  });
}
