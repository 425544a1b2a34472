/**
 * Availability (per-peer online/offline on MQTT) and bridge health (the gateway's own health topic): two extensions
 * of one concern, loaded only when created.
 */
import type { ExtensionFactory } from '../../extension';

export const createExtension: ExtensionFactory = async (ctx) => (await import('./availability')).createExtension(ctx);
export const createBridgeHealth: ExtensionFactory = async (ctx) => (await import('./bridge-health')).createExtension(ctx);
