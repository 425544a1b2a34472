/**
 * The gateway-daemon v1 extension (docs/gateway-daemon.md): its factory, its config section's schema, and the check
 * of what the schema cannot say.
 */
import type { ExtensionContext } from '../../extension';
import { DAEMON_CONFIG_SCHEMA, type DaemonConfig } from './config-schema';
import { GatewayDaemon } from './daemon';
import { DaemonError } from './errors';
import { parseListen } from './listen';

export { DAEMON_CONFIG_SCHEMA as configSchema } from './config-schema';
export type { DaemonConfig } from './config-schema';
export { GatewayDaemon } from './daemon';

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

/** Problems the schema cannot catch, one line each (empty: fine). */
export function checkConfig(config: DaemonConfig): string[] {
  const problems: string[] = [];
  try {
    parseListen(config.listen);
  } catch (err) {
    problems.push(`daemon.listen: ${(err as DaemonError).message}`);
  }
  // Repeated from the schema for configs loaded without the extension schemas (the section is open there).
  if (!(config.attach_grace_ms >= 10_000)) problems.push('daemon.attach_grace_ms: at least 10000 (the reference clients’ attach timeout)');
  if (!(config.submit_burst >= 1) || !(config.bytes_burst >= 1_048_576)) problems.push('daemon: a burst must let at least one largest frame through');
  if (!(config.max_write_buffer_bytes >= 2_097_152)) problems.push('daemon.max_write_buffer_bytes: at least 2097152 (one full line must fit)');
  return problems;
}

export function createExtension(ctx: ExtensionContext): GatewayDaemon {
  const config = daemonConfigOf(ctx.config);
  const problems = checkConfig(config);
  if (problems.length) throw new DaemonError('BAD_CONFIG', problems.join('; '));
  return new GatewayDaemon(ctx, config);
}

export { DAEMON_CONFIG_SCHEMA };
