/**
 * Home Assistant: the gateway's own device (discovery) and one device per mesh node (nodes), loaded only when created.
 */
import type { ExtensionFactory } from '../../extension';

export const createExtension: ExtensionFactory = async (ctx) => (await import('./ha-discovery')).createExtension(ctx);
export const createNodesExtension: ExtensionFactory = async (ctx) => (await import('./ha-nodes')).createExtension(ctx);
