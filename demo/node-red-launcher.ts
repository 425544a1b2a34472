/**
 * Starts Node-RED 4 as a child process with this package's nodes installed into a private userDir.
 *
 * Used by `clawling demo` and by the editor suite. The package is linked into `<userDir>/node_modules`, which is
 * where Node-RED looks for node modules and for their `examples/`, so the palette and Import ▸ Examples show
 * exactly what a user gets from `npm install`. Everything listens on 127.0.0.1 and nothing is fetched from outside.
 *
 * Credentials are encrypted and private to this user: each launch draws a fresh `credentialSecret` (the userDir is
 * written anew each time, so no secret needs to outlive it; it is never printed), `flows_cred.json` is written
 * encrypted, and the userDir, its settings and credentials are mode 0700/0600. Node-RED replaces the file on every
 * deploy with a new one (a temporary file renamed over it), so the mode of the first file would not last; the
 * settings file therefore sets the child's umask to 077, and whatever Node-RED writes is created 0600.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { encryptNodeRedCredentials } from './node-red-credentials';
import { freePort } from './free-port';

export const PACKAGE_ROOT = path.resolve(__dirname, '..', '..');

export interface NodeRedLaunchOptions {
  userDir: string;
  /** 0 picks a free port (Node-RED itself would announce ":0"). */
  port: number;
  /** Flows to deploy at start; written to `<userDir>/flows.json`. */
  flows?: unknown[];
  /** Credentials keyed by node id; they reach the disk encrypted with the launch's own `credentialSecret`. */
  credentials?: Record<string, Record<string, string>>;
  /** Extra settings merged over the defaults (JSON-serialisable values only). */
  settings?: Record<string, unknown>;
  /** Environment for the child; `${VAR}` in node fields resolves against it. */
  env?: NodeJS.ProcessEnv;
  /** Where the child's log lines go; the default discards them. */
  onLog?: (line: string) => void;
  /** The `red.js` to run; the default is the Node-RED this package resolves (its devDependency). */
  redJs?: string;
}

export interface RunningNodeRed {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

function resolveNodeRed(): string {
  try {
    return require.resolve('node-red/red.js', { paths: [PACKAGE_ROOT] });
  } catch {
    throw new Error("Node-RED is not installed here: run 'npm install' in the package folder (node-red is a devDependency)");
  }
}

function linkPackage(userDir: string): void {
  const scope = path.join(userDir, 'node_modules', '@clawling');
  fs.mkdirSync(scope, { recursive: true });
  const link = path.join(scope, 'node-red-mesh');
  fs.rmSync(link, { recursive: true, force: true });
  fs.symlinkSync(PACKAGE_ROOT, link, 'dir');
  fs.writeFileSync(
    path.join(userDir, 'package.json'),
    JSON.stringify({ name: 'node-red-userdir', private: true, dependencies: { '@clawling/node-red-mesh': `file:${PACKAGE_ROOT}` } }, null, 2),
  );
}

/** Owner only: the directory and what the launcher or Node-RED writes in it. */
const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;
const CHILD_UMASK = 0o077;

function writeSettings(options: NodeRedLaunchOptions, port: number, credentialSecret: string): string {
  const settings = {
    uiHost: '127.0.0.1',
    uiPort: port,
    flowFile: 'flows.json',
    credentialSecret,
    diagnostics: { enabled: false, ui: false },
    telemetry: { enabled: false, updateNotification: false },
    externalModules: { autoInstall: false, palette: { allowInstall: false } },
    editorTheme: { palette: { catalogues: [] }, tours: false, projects: { enabled: false } },
    logging: { console: { level: 'info', metrics: false, audit: false } },
    ...options.settings,
  };
  const file = path.join(options.userDir, 'settings.js');
  // settings.js runs in the Node-RED process before its storage writes anything.
  const umask = `// Files Node-RED writes here (flows_cred.json on every deploy) are the owner's only.\nprocess.umask(0o${CHILD_UMASK.toString(8).padStart(3, '0')});\n`;
  fs.writeFileSync(file, `${umask}module.exports = ${JSON.stringify(settings, null, 2)};\n`, { mode: PRIVATE_FILE_MODE });
  fs.chmodSync(file, PRIVATE_FILE_MODE);
  return file;
}

export async function launchNodeRed(options: NodeRedLaunchOptions): Promise<RunningNodeRed> {
  fs.mkdirSync(options.userDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  fs.chmodSync(options.userDir, PRIVATE_DIR_MODE);
  linkPackage(options.userDir);
  const credentialSecret = randomBytes(32).toString('base64url');
  const settingsFile = writeSettings(options, options.port === 0 ? await freePort() : options.port, credentialSecret);
  fs.writeFileSync(path.join(options.userDir, 'flows.json'), JSON.stringify(options.flows ?? [], null, 2));
  const credentialsFile = path.join(options.userDir, 'flows_cred.json');
  // A mode given to writeFileSync applies only to a file it creates.
  fs.rmSync(credentialsFile, { force: true });
  fs.writeFileSync(credentialsFile, JSON.stringify(encryptNodeRedCredentials(options.credentials ?? {}, credentialSecret)), { mode: PRIVATE_FILE_MODE });

  const child = spawn(process.execPath, [options.redJs ?? resolveNodeRed(), '--userDir', options.userDir, '--settings', settingsFile], {
    env: { ...process.env, ...options.env, NODE_RED_ENABLE_PROJECTS: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        options.onLog?.(line);
        const started = /Server now running at (http:\/\/\S+)/.exec(line);
        if (started) resolve(started[1].replace(/\/$/, ''));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`Node-RED exited with code ${code} before it started`)));
    child.once('error', reject);
  });

  return {
    url,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(killer);
          resolve();
        });
        child.kill('SIGINT');
      }),
  };
}
