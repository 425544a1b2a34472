/** Requests to the gateway itself over MQTT (restart, log level); loaded only when created. */
import type { ExtensionFactory } from '../../extension';

export const createExtension: ExtensionFactory = async (ctx) => (await import('./bridge-control')).createExtension(ctx);
