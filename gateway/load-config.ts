/**
 * Reads `gateway.yaml`, applies the `CLAWLING_*` overrides, validates against the schema with every error at once
 * (path and problem each), fills the defaults from the schema, runs each radio's resolver (the checks JSON Schema
 * cannot express), resolves relative paths against the file's folder and reads secret files. Every problem found by
 * any of these is reported together. Nothing here opens a socket or writes a file: `--check` runs exactly this.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { GatewayError } from './errors';
import { sendPolicyProblems } from './mqtt/send-policy';
import { mappingProblems } from './mesh-nodes/readings';
import { resolveRadioConfig, type RadioConfig } from './radios';
import { yamlProblems } from './config/yaml-problems';
import { applyEnvOverrides, type EnvOverrideResult } from './config/env-overrides';
import { validateAgainst, type ConfigProblem } from '../lib/schema';
import { withExtensionSchemas, type JsonSchema } from './config/schema';
import { GATEWAY_CONFIG_SCHEMA } from './gateway-config';
import type { GatewayConfig } from './gateway-config';

export interface LoadConfigOptions {
  /** The YAML file; absent: defaults and environment only. */
  file?: string;
  /** YAML text instead of a file (tests, `--config -`). */
  text?: string;
  env?: NodeJS.ProcessEnv;
  /** Schemas of optional extensions, by section name (see `withExtensionSchemas`). */
  extensionSchemas?: Record<string, JsonSchema>;
  /** Checks of the extensions' sections beyond their schemas (see `loadExtensionSections`); run once all else passed. */
  extensionChecks?: ReadonlyArray<(config: GatewayConfig) => ConfigProblem[]>;
  /** Base for relative paths when there is no file. */
  cwd?: string;
}

export type { ConfigProblem } from '../lib/schema';

export interface LoadedConfig {
  config: GatewayConfig;
  schema: JsonSchema;
  file: string | null;
  env: EnvOverrideResult;
}

function readYaml(text: string, where: string): Record<string, unknown> {
  const doc = YAML.parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length) {
    const problems = yamlProblems(text, doc.errors);
    throw new GatewayError('CONFIG_YAML', `${where}: ${problems.map((p) => `${p.path}: ${p.problem}`).join('\n')}`, { problems });
  }
  const value = doc.toJS() as unknown;
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new GatewayError('CONFIG_INVALID', `${where}: the top level must be a mapping of sections`, {
      problems: [{ path: '(root)', problem: 'must be a mapping' }],
    });
  }
  return value as Record<string, unknown>;
}

function resolvePaths(config: GatewayConfig, base: string, env: NodeJS.ProcessEnv): void {
  const abs = (p: string | null): string | null => (p === null ? null : path.resolve(base, p));
  config.gateway.state_dir =
    abs(config.gateway.state_dir) ?? (env.STATE_DIRECTORY ? env.STATE_DIRECTORY.split(':')[0]! : path.resolve(base, 'gateway-state'));
  const tls = config.mqtt.tls;
  tls.ca = abs(tls.ca);
  tls.cert = abs(tls.cert);
  tls.key = abs(tls.key);
  config.mqtt.password_file = abs(config.mqtt.password_file);
}

function readSecretFiles(config: GatewayConfig, problems: ConfigProblem[]): void {
  const file = config.mqtt.password_file;
  if (file === null) return;
  try {
    config.mqtt.password = fs.readFileSync(file, 'utf8').split(/\r?\n/)[0] ?? '';
  } catch (err) {
    problems.push({ path: 'mqtt.password_file', problem: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` });
  }
}

function checkFiles(config: GatewayConfig, problems: ConfigProblem[]): void {
  for (const key of ['ca', 'cert', 'key'] as const) {
    const file = config.mqtt.tls[key];
    if (file !== null && !fs.existsSync(file)) problems.push({ path: `mqtt.tls.${key}`, problem: `file ${file} does not exist` });
  }
  if ((config.mqtt.tls.cert === null) !== (config.mqtt.tls.key === null)) {
    problems.push({ path: config.mqtt.tls.cert === null ? 'mqtt.tls.cert' : 'mqtt.tls.key', problem: 'a client certificate needs both cert and key' });
  }
  if (config.mesh.forward_jitter_max_ms < config.mesh.forward_jitter_min_ms) {
    problems.push({ path: 'mesh.forward_jitter_max_ms', problem: 'must not be below mesh.forward_jitter_min_ms' });
  }
  if (config.mqtt.reconnect_max_ms < config.mqtt.reconnect_min_ms) {
    problems.push({ path: 'mqtt.reconnect_max_ms', problem: 'must not be below mqtt.reconnect_min_ms' });
  }
  const ids = new Set<string>();
  if (!Array.isArray(config.radios)) return;
  config.radios.forEach((r, i) => {
    const id = (r as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return;
    if (ids.has(id)) problems.push({ path: `radios[${i}].id`, problem: `'${id}' is used by another radio` });
    ids.add(id);
  });
}

/** Throws `GatewayError` (`CONFIG_YAML`, `CONFIG_INVALID`, `CONFIG_READ`) with `details.problems: ConfigProblem[]`. */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const schema = withExtensionSchemas(GATEWAY_CONFIG_SCHEMA, options.extensionSchemas ?? {});
  const file = options.file ? path.resolve(options.cwd ?? process.cwd(), options.file) : null;
  let text = options.text;
  if (text === undefined && file) {
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new GatewayError('CONFIG_READ', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
        problems: [{ path: '(file)', problem: 'cannot be read' }],
      });
    }
  }
  const raw = text === undefined ? {} : readYaml(text, file ?? 'config');
  const envResult = applyEnvOverrides(raw, env, schema);
  const problems: ConfigProblem[] = envResult.invalid.map((i) => ({ path: i.path, problem: `${i.variable} ${i.problem}` }));

  problems.push(...validateAgainst(schema, raw));
  // The later checks read settings the schema may have refused; each runs only where its inputs passed.
  const clean = (prefix: string): boolean => !problems.some((p) => p.path === prefix || p.path.startsWith(`${prefix}.`) || p.path.startsWith(`${prefix}[`));
  const config = raw as unknown as GatewayConfig;
  if (Array.isArray(config.radios)) {
    config.radios.forEach((radio, i) => {
      if (!clean(`radios[${i}]`)) return;
      try {
        resolveRadioConfig(radio as RadioConfig, `radios[${i}]`);
      } catch (err) {
        const d = (err as { details?: { path?: string; problem?: string } }).details;
        problems.push({ path: d?.path ?? `radios[${i}]`, problem: d?.problem ?? (err as Error).message });
      }
    });
  }
  if (clean('nodes') && clean('devices')) problems.push(...mappingProblems(config.devices, config.nodes.names));
  if (clean('mqtt.send_policy')) problems.push(...sendPolicyProblems(config.mqtt.send_policy));
  if (clean('gateway') && clean('mqtt') && clean('mesh')) {
    resolvePaths(config, file ? path.dirname(file) : (options.cwd ?? process.cwd()), env);
    readSecretFiles(config, problems);
    checkFiles(config, problems);
  }
  if (problems.length === 0) for (const check of options.extensionChecks ?? []) problems.push(...check(config));
  if (problems.length) {
    throw new GatewayError('CONFIG_INVALID', `invalid configuration:\n${problems.map((p) => `  ${p.path}: ${p.problem}`).join('\n')}`, {
      problems,
    });
  }
  return { config, schema, file, env: envResult };
}
