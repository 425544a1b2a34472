/** The status HTTP server (page, `/status.json`, `/health`, `/metrics`); loaded only when created. */
import type { ExtensionFactory } from '../../extension';

export const createExtension: ExtensionFactory = async (ctx) => (await import('./status-http')).createExtension(ctx);
