import type { GatewayConfig } from '../../gateway-config';
import { resolveBridgeConfig } from './bridge-config';
import { readHubSettings } from './read-settings';

/**
 * What `--check` can add to the schema check for an enabled bridge: the token is there (setting, variable or a
 * readable file), the user id is set, rule identifiers are valid. Empty when all is well or the bridge is off.
 */
export function checkConfig(config: GatewayConfig): Array<{ path: string; problem: string }> {
  if (config.hub.enabled !== true) return [];
  try {
    resolveBridgeConfig(readHubSettings(config.hub), config.gateway.app_id);
    return [];
  } catch (err) {
    const problems = ((err as { details?: { problems?: string[] } }).details?.problems ?? [String((err as Error).message)]) as string[];
    return problems.map((line) => {
      const at = line.indexOf(': ');
      return at > 0 ? { path: line.slice(0, at), problem: line.slice(at + 2) } : { path: 'hub', problem: line };
    });
  }
}
