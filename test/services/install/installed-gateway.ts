/**
 * Checks an installed `clawling` the way a reader of docs/raspberry-pi.md would: help, `--check` on a config, then a
 * real start with a file store (node:sqlite: only a start shows that the store opens on the Node that runs it).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { run } from './run';

/** One simulated radio, no MQTT, the status page on a free loopback port: nothing outside the process is needed. */
export function writeGatewayConfig(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'gateway.yaml');
  fs.writeFileSync(
    file,
    ['gateway:', '  id: install-test', '  state_dir: ./state', 'radios:', '  - { id: sim0, kind: simulated }', 'mqtt:', '  enabled: false', 'http:', '  host: 127.0.0.1', '  port: 0', ''].join('\n'),
  );
  return file;
}

export async function checkCli(bin: string, config: string, env: NodeJS.ProcessEnv): Promise<void> {
  const help = await run(bin, ['--help'], { env });
  assert.match(help.stdout, /usage: clawling <command>/);
  assert.match(help.stdout, /gateway/);
  const check = await run(bin, ['gateway', '--check', '--config', config], { env });
  assert.match(check.stdout, /configuration OK/);
}

interface Health {
  status: string;
  radios: Array<{ id: string; state: string }>;
}

/** Starts the gateway, reads /health once it listens, stops it with SIGTERM; returns /health and the log lines. */
export async function startAndProbe(bin: string, config: string, env: NodeJS.ProcessEnv): Promise<{ health: Health; log: string[] }> {
  const child = spawn(bin, ['gateway', '--config', config], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      const onData = (chunk: Buffer): void => {
        buffered += chunk.toString('utf8');
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          log.push(line);
          if (line.includes('"gateway started"')) {
            const status = /"status":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(line);
            if (status) resolve(status[1]);
            else reject(new Error(`no status URL in: ${line}`));
          }
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then((code) => reject(new Error(`clawling gateway exited with ${code} before it started:\n${log.join('\n')}${buffered}`)));
    });
    const response = await fetch(`${url}/health`);
    assert.equal(response.status, 200);
    return { health: (await response.json()) as Health, log };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const code = await exited;
    log.push(`(exit ${code})`);
  }
}
