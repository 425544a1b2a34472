/**
 * The MQTT bridge as the gateway loads it: the factory only. The implementation (and mqtt.js behind it) is loaded
 * when the extension is created, so `--check` and a gateway without MQTT never load it.
 */
import type { ExtensionFactory } from '../../extension';

export const createExtension: ExtensionFactory = async (ctx) => (await import('./mqtt-bridge')).createExtension(ctx);
