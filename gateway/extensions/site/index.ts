/** Several gateways on one broker as one site; loaded only when created. */
import type { ExtensionFactory } from '../../extension';

export const createExtension: ExtensionFactory = async (ctx) => (await import('./site')).createExtension(ctx);
