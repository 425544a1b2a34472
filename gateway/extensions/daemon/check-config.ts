/** The `daemon:` section: its defaults for a config loaded without the schema, and what the schema cannot say. */
import type { ConfigProblem } from '../../../lib/schema';
import type { GatewayConfig } from '../../gateway-config';
import { DAEMON_CONFIG_SCHEMA, type DaemonConfig } from './config-schema';
import type { DaemonError } from './errors';
import { parseListen } from './listen';

/**
 * The `daemon:` section of a loaded config. A config loaded without the extension schemas (the section is open in
 * the base schema) has no defaults filled in, so they are taken from this section's schema here.
 */
export function daemonConfigOf(config: object): DaemonConfig {
  const given = (config as { daemon?: Partial<DaemonConfig> }).daemon ?? {};
  const props = DAEMON_CONFIG_SCHEMA.properties as Record<string, { default: unknown }>;
  const defaults = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, v.default]));
  return { ...defaults, ...given } as DaemonConfig;
}

/** Problems of the section the schema cannot catch (empty: fine). */
export function daemonProblems(config: DaemonConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  try {
    parseListen(config.listen);
  } catch (err) {
    problems.push({ path: 'daemon.listen', problem: (err as DaemonError).message });
  }
  // Repeated from the schema for configs loaded without the extension schemas (the section is open there).
  if (!(config.attach_grace_ms >= 10_000)) problems.push({ path: 'daemon.attach_grace_ms', problem: 'at least 10000 (the reference clients’ attach timeout)' });
  if (!(config.submit_burst >= 1) || !(config.bytes_burst >= 1_048_576)) problems.push({ path: 'daemon', problem: 'a burst must let at least one largest frame through' });
  if (!(config.max_write_buffer_bytes >= 2_097_152)) problems.push({ path: 'daemon.max_write_buffer_bytes', problem: 'at least 2097152 (one full line must fit)' });
  return problems;
}

/** What `loadConfig` and `--check` add for an enabled daemon. */
export function checkConfig(config: GatewayConfig): ConfigProblem[] {
  const section = daemonConfigOf(config);
  return section.enabled === true ? daemonProblems(section) : [];
}
