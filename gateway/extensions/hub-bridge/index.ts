/**
 * The hub bridge as the gateway sees it: its `hub:` config section, the checks the schema cannot express, and the
 * factory. The bridge itself (the hub client, the WebSocket library and the media code, about 6 MB of RSS) is loaded
 * only when the extension is created, so a gateway that leaves the hub off never pays for it, not even at `--check`.
 */
import type { ExtensionFactory } from '../../extension';
import type { GatewayConfig } from '../../gateway-config';
import type { OnlineOutcome } from '../../online/outcome';

export { HUB_CONFIG_SCHEMA as configSchema } from './config-schema';
export { checkConfig } from './check-config';

/** `--check --online`: logs in to the hub once with the configured credentials (loaded only when asked for). */
export const checkOnline = async (config: GatewayConfig): Promise<OnlineOutcome> => (await import('./online-check')).checkOnline(config);

export const createExtension: ExtensionFactory = async (ctx) => (await import('./hub-bridge')).createExtension(ctx);
