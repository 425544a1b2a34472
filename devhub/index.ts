/**
 * The dev hub: a local ClawlingChat Message Hub (the server side of message-hub-client-guide.md, protocol v2) with
 * its media service and a loopback admin interface for tests, the demo and integrators without a deployment.
 *
 *   const hub = await startDevHub({ users: [{ id: 'usr_alice', token: 't-alice' }], chats: [...] });
 *   // hub.wsUrl, hub.mediaUrl, hub.adminUrl, hub.admin.notifySignal(...), await hub.stop()
 */
import type { DevHubOptions, DevHubRuntime } from './options';
import type { DevHub } from './types';
import { createDevHub } from './server';

export type * from './options';
export type * from './types';
export { DevHubError, DevHubConfigError } from './errors';

/** Starts the hub and resolves once every listener is bound. Defaults: 127.0.0.1, port 0, path `/ws`, media on the same port. */
export function startDevHub(options: DevHubOptions = {}, runtime: DevHubRuntime = {}): Promise<DevHub> {
  return createDevHub(options, runtime);
}
