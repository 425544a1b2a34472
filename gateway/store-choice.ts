/**
 * Which store holds the gateway's durable queues (the MQTT outbox, the hub bridge's queues): `gateway.store`.
 *
 * `sqlite` (the default) is the file `<state_dir>/gateway.db`. When its driver is missing or does not load, the
 * gateway refuses to start: a gateway that quietly kept its outbox in memory would lose every queued message on
 * the next restart while its operator believes them safe. `memory` is the explicit opt-out, started with a warning.
 */
import path from 'node:path';
import type { Logger } from 'pino';
import { MEMORY, openStore, type Store } from '../lib/store';
import type { CoreConfig } from './config/types';
import { GatewayError } from './errors';

export const STORE_FILE = 'gateway.db';

const DRIVER_CODES = new Set(['STORE_DRIVER_MISSING', 'STORE_DRIVER_UNLOADABLE']);

/** The opt-in sentence every driver refusal ends with (also printed by `--check`). */
export const MEMORY_OPT_IN =
  'to run without a durable outbox instead (queued messages are lost on restart), set gateway.store: memory (or CLAWLING_GATEWAY_STORE=memory)';

/** Throws `GatewayError` `STORE_DRIVER` (with the store's own code in `details.store_code`) when sqlite cannot load. */
export function openGatewayStore(config: CoreConfig, logger: Logger): Store {
  if (config.gateway.store === 'memory') {
    logger.warn('gateway.store is memory: the outbox and queues live in memory and are lost on restart');
    return openStore(MEMORY);
  }
  const file = path.join(config.gateway.state_dir, STORE_FILE);
  try {
    return openStore(file, { synchronous: config.gateway.store_sync });
  } catch (err) {
    throw storeRefusal(err) ?? err;
  }
}

/** The gateway's error for a store driver failure; undefined for any other error (locked, damaged, disk). */
export function storeRefusal(err: unknown): GatewayError | undefined {
  const e = err as { code?: string; message?: string; details?: Record<string, unknown> };
  if (e.code === undefined || !DRIVER_CODES.has(e.code)) return undefined;
  return new GatewayError(
    'STORE_DRIVER',
    `gateway.store is sqlite, and ${e.message ?? String(err)}. The gateway does not start with its outbox silently in memory; ${MEMORY_OPT_IN}`,
    { store_code: e.code, ...(e.details ?? {}) },
    { cause: err },
  );
}
