/**
 * `clawling gateway install-service`: the shipped unit (gateway/systemd/clawling-gateway.service) written to
 * /etc/systemd/system with what the hand-edited route leaves to the reader filled in: the absolute path of the Node
 * that runs this command (so the service runs the Node the package was installed with, never whatever
 * `/usr/bin/env node` finds first), the absolute path of this package's CLI, the config file and the user.
 */
import fs from 'node:fs';
import path from 'node:path';
import { checkEngines, packageEnginesNode } from './node-engines';

export const UNIT_NAME = 'clawling-gateway.service';
export const SYSTEM_UNIT_DIR = '/etc/systemd/system';
const SHIPPED_CLI = '/usr/local/lib/node_modules/@clawling/node-red-mesh/dist/cli/clawling.js';
const SHIPPED_CONFIG = '/etc/clawling/gateway.yaml';
const SHIPPED_NODE = '/usr/bin/env node';

export interface ServiceInstall {
  node: string;
  cli: string;
  config: string;
  user: string;
}

export type InstallResult =
  | { ok: true; unitFile: string; text: string; userExists: boolean }
  | { ok: false; code: 'NOT_ROOT' | 'NODE_OUTSIDE_ENGINES' | 'RELATIVE_PATH' | 'BAD_USER' | 'WRITE_FAILED'; message: string };

/** The shipped unit as the package has it on disk. */
export function shippedUnitText(): string {
  return fs.readFileSync(path.join(__dirname, '..', '..', 'gateway', 'systemd', UNIT_NAME), 'utf8');
}

/** The unit with the four values put in; every other line stays as shipped, comments included. */
export function renderUnit(template: string, install: ServiceInstall): string {
  return template
    .split('\n')
    .map((line) => {
      if (/^Exec/.test(line)) return line.replace(SHIPPED_NODE, install.node).replace(SHIPPED_CLI, install.cli).replace(SHIPPED_CONFIG, install.config);
      if (/^User=/.test(line)) return `User=${install.user}`;
      if (/^Group=/.test(line)) return `Group=${install.user}`;
      return line;
    })
    .join('\n');
}

function userExists(user: string): boolean {
  try {
    return fs.readFileSync('/etc/passwd', 'utf8').split('\n').some((line) => line.startsWith(`${user}:`));
  } catch {
    return false;
  }
}

/** Checks, renders and writes the unit to `unitDir`; the caller prints the outcome. */
export function installService(install: ServiceInstall, options: { unitDir: string; nodeVersion: string; uid: number | undefined }): InstallResult {
  // The system's unit folder is root's; another folder (a test, a staging tree) is whoever can write it.
  if (options.unitDir === SYSTEM_UNIT_DIR && options.uid !== undefined && options.uid !== 0) {
    return { ok: false, code: 'NOT_ROOT', message: `writing ${options.unitDir} needs root: run it with sudo` };
  }
  const engines = checkEngines(options.nodeVersion, packageEnginesNode(), install.node);
  if (!engines.ok && engines.code === 'NODE_OUTSIDE_ENGINES') return { ok: false, code: 'NODE_OUTSIDE_ENGINES', message: engines.message };
  for (const [what, p] of [['config', install.config], ['node', install.node], ['cli', install.cli]] as const) {
    if (!path.isAbsolute(p)) return { ok: false, code: 'RELATIVE_PATH', message: `the ${what} path must be absolute: ${p}` };
  }
  // systemd's rules for a user name, kept strict so nothing else can ride into the unit file.
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(install.user)) return { ok: false, code: 'BAD_USER', message: `not a user name: ${install.user}` };
  const text = renderUnit(shippedUnitText(), install);
  const unitFile = path.join(options.unitDir, UNIT_NAME);
  try {
    fs.mkdirSync(options.unitDir, { recursive: true });
    fs.writeFileSync(unitFile, text, { mode: 0o644 });
  } catch (err) {
    return { ok: false, code: 'WRITE_FAILED', message: `cannot write ${unitFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  }
  return { ok: true, unitFile, text, userExists: userExists(install.user) };
}

/** What to tell the user after a successful install. */
export function installedLines(result: Extract<InstallResult, { ok: true }>, install: ServiceInstall): string[] {
  const lines = [`wrote ${result.unitFile}:`, ...result.text.split('\n').filter((l) => /^(Exec|User=|Group=)/.test(l)).map((l) => `  ${l}`), '', 'then:'];
  if (!result.userExists) lines.push(`  sudo useradd --system --home-dir /var/lib/clawling-gateway --shell /usr/sbin/nologin ${install.user}`);
  if (!fs.existsSync(install.config)) lines.push(`  write ${install.config} (docs/raspberry-pi.md), then check it: sudo -u ${install.user} ${install.node} ${install.cli} gateway --config ${install.config} --check`);
  lines.push('  sudo systemctl daemon-reload', `  sudo systemctl enable --now ${UNIT_NAME.replace(/\.service$/, '')}`, `  journalctl -u ${UNIT_NAME.replace(/\.service$/, '')} -f`);
  return lines;
}
