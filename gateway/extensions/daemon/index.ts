/**
 * The gateway-daemon v1 extension (docs/gateway-daemon.md) as the gateway loads it: its config section's schema, the
 * check of what the schema cannot say, and the factory, which loads the daemon itself only when it is created.
 */
import type { ExtensionFactory } from '../../extension';
import { daemonConfigOf, daemonProblems } from './check-config';
import { DaemonError } from './errors';

export { DAEMON_CONFIG_SCHEMA as configSchema, DAEMON_CONFIG_SCHEMA, type DaemonConfig } from './config-schema';
export { checkConfig, daemonConfigOf, daemonProblems } from './check-config';
export type { GatewayDaemon } from './daemon';

export const createExtension: ExtensionFactory = async (ctx) => {
  const config = daemonConfigOf(ctx.config);
  const problems = daemonProblems(config);
  if (problems.length) throw new DaemonError('BAD_CONFIG', problems.map((p) => `${p.path}: ${p.problem}`).join('; '));
  return new (await import('./daemon')).GatewayDaemon(ctx, config);
};
