/**
 * `clawling gateway`: the Raspberry Pi gateway process (docs/gateway.md). `--check` validates the configuration and
 * exits; `--print-config` prints the resolved configuration (defaults filled, environment applied, secrets
 * redacted) as YAML; otherwise the gateway runs until SIGTERM or SIGINT.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CliCommand, CliIo } from './command';

const HELP = `usage: clawling gateway [--config FILE] [--check [--strict] [--online] | --print-config]
       clawling gateway install-service [--config FILE] [--user NAME] [--unit-dir DIR]

Runs the mesh gateway: radios, mesh router, MQTT bridge, status page. On a Node.js outside the package's
engines range (package.json) it exits 1 at once, naming that Node and the range.

  --config FILE     the YAML configuration (default: $CLAWLING_CONFIG; without one, defaults and environment only)
  --check           validate the configuration, then report the store and each radio's readiness with the fix,
                    and exit (0: can start; 1: invalid configuration or the store cannot open; radios that are
                    not ready are reported but do not fail the check)
  --strict          with --check: a radio that is not ready fails the check too (exit 3)
  --online          with --check: also log in to the broker (and the hub when enabled) with the configured
                    credentials and report refused / unreachable / TLS problems (exit 4 on a failure); no radio
                    is opened and nothing is published
  --print-config    print the resolved configuration as YAML, secrets redacted, and exit
  --help            this text

install-service (as root) writes the systemd unit to --unit-dir (default /etc/systemd/system) running this Node
(its absolute path) and this package, with --config (default /etc/clawling/gateway.yaml) and --user (default
clawling), and prints what it wrote and the systemctl lines that start it. A Node outside engines is refused.

Every setting can be overridden by an environment variable: CLAWLING_<SECTION>_<SETTING>, for example
CLAWLING_MQTT_URL, CLAWLING_MQTT_BASE_TOPIC, CLAWLING_MQTT_TLS_CA, CLAWLING_HTTP_PORT, CLAWLING_LOG_LEVEL;
whole lists as YAML or JSON: CLAWLING_RADIOS='[{id: sim0, kind: simulated}]'. See docs/gateway.md.
`;

function problemsOf(err: unknown): string {
  const e = err as { code?: string; message?: string; details?: { problems?: Array<{ path: string; problem: string }> } };
  const problems = e.details?.problems;
  if (problems?.length) return problems.map((p) => `  ${p.path}: ${p.problem}`).join('\n');
  return `  ${e.message ?? String(err)}`;
}

function writable(dir: string): string | undefined {
  let probe = dir;
  while (!fs.existsSync(probe)) {
    const parent = path.dirname(probe);
    if (parent === probe) break;
    probe = parent;
  }
  try {
    fs.accessSync(probe, fs.constants.W_OK);
    return undefined;
  } catch {
    return `${probe} is not writable by this user`;
  }
}

async function installServiceCommand(args: string[], io: CliIo): Promise<number> {
  let values: { config?: string; user?: string; 'unit-dir'?: string };
  try {
    ({ values } = parseArgs({ args, options: { config: { type: 'string', short: 'c' }, user: { type: 'string' }, 'unit-dir': { type: 'string' } } }));
  } catch (err) {
    io.stderr.write(`clawling gateway install-service: ${(err as Error).message}\n${HELP}`);
    return 2;
  }
  const { installService, installedLines, SYSTEM_UNIT_DIR } = await import('../gateway/install-service');
  const install = {
    node: process.execPath,
    cli: path.join(__dirname, 'clawling.js'),
    config: path.resolve(values.config ?? '/etc/clawling/gateway.yaml'),
    user: values.user ?? 'clawling',
  };
  const result = installService(install, { unitDir: values['unit-dir'] ?? SYSTEM_UNIT_DIR, nodeVersion: process.version, uid: process.getuid?.() });
  if (!result.ok) {
    io.stderr.write(`clawling gateway install-service: ${result.code}: ${result.message}\n`);
    return 1;
  }
  io.stdout.write(`${installedLines(result, install).join('\n')}\n`);
  return 0;
}

export const command: CliCommand = {
  summary: 'run the mesh gateway (radios, router, MQTT bridge, status page)',
  async run(args, io) {
    if (args[0] === 'install-service') return installServiceCommand(args.slice(1), io);
    let values: { config?: string; check?: boolean; strict?: boolean; online?: boolean; 'print-config'?: boolean; help?: boolean };
    try {
      ({ values } = parseArgs({
        args,
        options: { config: { type: 'string', short: 'c' }, check: { type: 'boolean' }, strict: { type: 'boolean' }, online: { type: 'boolean' }, 'print-config': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      }));
    } catch (err) {
      io.stderr.write(`clawling gateway: ${(err as Error).message}\n${HELP}`);
      return 2;
    }
    if (values.help) {
      io.stdout.write(HELP);
      return 0;
    }
    if (values.check && values['print-config']) {
      io.stderr.write('clawling gateway: --check and --print-config are alternatives\n');
      return 2;
    }
    if ((values.strict || values.online) && !values.check) {
      io.stderr.write(`clawling gateway: --${values.strict ? 'strict' : 'online'} goes with --check\n`);
      return 2;
    }
    // Before anything of the gateway loads: on a Node outside engines it would fail later, deeper, and less clearly.
    const { checkEngines, packageEnginesNode } = await import('../gateway/node-engines');
    const engines = checkEngines(process.version, packageEnginesNode());
    if (!engines.ok) {
      // A range this code cannot read is no reason to keep a gateway from starting; a Node outside it is.
      io.stderr.write(`${engines.code === 'NODE_OUTSIDE_ENGINES' ? 'clawling gateway' : 'warning'}: ${engines.message}\n`);
      if (engines.code === 'NODE_OUTSIDE_ENGINES') return 1;
    }
    const file = values.config ?? io.env.CLAWLING_CONFIG;
    // Loaded here, not at the top: `clawling --help` must not pay for the gateway's modules.
    const { loadGatewayConfig, runGateway } = await import('../gateway/main');
    if (values.check || values['print-config']) {
      let loaded;
      try {
        loaded = await loadGatewayConfig(file, io.env);
      } catch (err) {
        io.stderr.write(`clawling gateway: the configuration${file ? ` in ${file}` : ''} is invalid:\n${problemsOf(err)}\n`);
        return 1;
      }
      for (const v of loaded.env.unknown) io.stderr.write(`warning: ${v} names no setting and is ignored\n`);
      if (values['print-config']) {
        const { redactConfig } = await import('../gateway/config/redact');
        const { default: YAML } = await import('yaml');
        io.stdout.write(YAML.stringify(redactConfig(loaded.config, loaded.schema)));
        return 0;
      }
      const stateProblem = writable(loaded.config.gateway.state_dir);
      if (stateProblem) {
        io.stderr.write(`clawling gateway: gateway.state_dir: ${stateProblem}\n`);
        return 1;
      }
      io.stdout.write(
        `configuration OK${file ? ` (${file})` : ''}: ${loaded.config.radios.length} radio(s), MQTT ${loaded.config.mqtt.enabled ? 'on' : 'off'}, ` +
          `status page ${loaded.config.http.enabled ? `http://${loaded.config.http.host}:${loaded.config.http.port}/` : 'off'}, state in ${loaded.config.gateway.state_dir}\n`,
      );
      const { checkReadiness } = await import('../gateway/check');
      const report = await checkReadiness(loaded.config);
      io.stdout.write(`${report.lines.join('\n')}\n`);
      if (!report.storeOk) return 1;
      if (values.online) {
        const { checkOnline, onlineLines } = await import('../gateway/check-online');
        const config = loaded.config;
        const outcomes = await checkOnline(config, config.mqtt.client_id ?? `clawling-${config.gateway.id ?? 'gateway'}`);
        io.stdout.write(`${onlineLines(outcomes).join('\n')}\n`);
        if (outcomes.some((o) => !o.ok)) return 4;
      }
      if (values.strict && report.radios.some((r) => !r.ready)) return 3;
      return 0;
    }
    try {
      return await runGateway({ ...(file !== undefined ? { configFile: file } : {}), env: io.env, stderr: io.stderr });
    } catch (err) {
      io.stderr.write(`clawling gateway: the configuration${file ? ` in ${file}` : ''} is invalid:\n${problemsOf(err)}\n`);
      return 1;
    }
  },
};
