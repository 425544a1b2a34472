import type { ConfigProblem } from '../../../lib/schema';
import type { GatewayConfig } from '../../gateway-config';
import { resolveBridgeConfig } from './bridge-config';
import { readHubSettings } from './read-settings';

/**
 * What `--check` can add to the schema check for an enabled bridge: the token is there (setting, variable or a
 * readable file), the user id is set, rule identifiers are valid. Empty when all is well or the bridge is off.
 */
export function checkConfig(config: GatewayConfig): ConfigProblem[] {
  if (config.hub.enabled !== true) return [];
  try {
    resolveBridgeConfig(readHubSettings(config.hub), config.gateway.app_id);
    return [];
  } catch (err) {
    const problems = (err as { details?: { problems?: ConfigProblem[] } }).details?.problems;
    return problems ?? [{ path: 'hub', problem: (err as Error).message }];
  }
}
