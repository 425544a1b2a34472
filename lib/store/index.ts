/**
 * `@clawling/node-red-mesh/store`: the one durable store (outbox, inbox dedup/upsert, cursors, bounded queues).
 *
 * `openStore(':memory:')` needs nothing native; `openStore(file)` loads Node's `node:sqlite` on first use.
 */
import { MemoryStore } from './memory-store';
import { SqliteStore, type SqliteStoreOptions } from './sqlite-store';
import type { Store } from './types';

export { StoreError, type StoreErrorCode } from './errors';
export { MemoryStore } from './memory-store';
export { SqliteStore, type SqliteStoreOptions } from './sqlite-store';
export { storeFileFor } from './location';
export { SQLITE_PACKAGE, loadSqliteDriver } from './sqlite-driver';
export { DEFAULT_INBOX_CAPACITY, DEFAULT_QUEUE_CAPACITY, DEFAULT_SEEN_CAPACITY, DEFAULT_MAX_ITEM_BYTES } from './rules';
export type * from './types';

export const MEMORY = ':memory:';

/** Opens the store at `location`: a file path (sqlite, durable) or `':memory:'` (memory, gone on exit). */
export function openStore(location: string, options: SqliteStoreOptions = {}): Store {
  return location === MEMORY ? new MemoryStore(options) : SqliteStore.open(location, options);
}
