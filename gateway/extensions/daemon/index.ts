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

/** The `daemon:` section of a loaded config (filled with the schema's defaults). */
export function daemonConfigOf(config: object): DaemonConfig {
  return (config as { daemon: DaemonConfig }).daemon;
}

/** Problems the schema cannot catch, one line each (empty: fine). */
export function checkConfig(config: DaemonConfig): string[] {
  const problems: string[] = [];
  try {
    parseListen(config.listen);
  } catch (err) {
    problems.push(`daemon.listen: ${(err as DaemonError).message}`);
  }
  if (config.submit_burst < 1 || config.bytes_burst < 1_048_576) problems.push('daemon: a burst must let at least one largest frame through');
  return problems;
}

export function createExtension(ctx: ExtensionContext): GatewayDaemon {
  const config = daemonConfigOf(ctx.config);
  const problems = checkConfig(config);
  if (problems.length) throw new DaemonError('BAD_LISTEN', problems.join('; '));
  return new GatewayDaemon(ctx, config);
}

export { DAEMON_CONFIG_SCHEMA };
