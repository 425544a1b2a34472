/**
 * Builds the client of a hub-config node with its store: the sqlite file when persistence is on and the optional
 * driver is installed, else a memory store (with a warning, and a derived device id so that the hub still sees
 * one stable device across restarts). A store that exists but cannot be opened (held by another process, damaged)
 * is an error: silently running without the outbox would lose what the flow believes was accepted.
 */
import { HubClient, type HubLogger } from '../../lib/hub';
import { MEMORY, openStore, StoreError, type Store } from '../../lib/store';
import type { ResolvedHubConfig } from './config-options';
import type { OpenedClient } from './connection';

export function openHubClient(resolved: ResolvedHubConfig, logger: HubLogger, warn: (message: string) => void): OpenedClient {
  let store: Store;
  try {
    store = openStore(resolved.storeLocation);
  } catch (err) {
    if (!(err instanceof StoreError) || err.code !== 'STORE_DRIVER_MISSING') throw err;
    warn(`${err.code}: ${err.message}; sends wait in memory only and are lost if Node-RED stops`);
    store = openStore(MEMORY);
  }
  const deviceId = resolved.client.deviceId ?? (store.kind === 'memory' ? resolved.fallbackDeviceId : undefined);
  let client: HubClient;
  try {
    client = new HubClient({ ...resolved.client, deviceId, store, logger });
  } catch (err) {
    store.close();
    throw err;
  }
  return {
    client,
    close: async () => {
      try {
        await client.stop();
      } finally {
        store.close();
      }
    },
  };
}
