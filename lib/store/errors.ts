/**
 * The errors of lib/store. Every failure of the durable store surfaces as a `StoreError` with a stable code
 * (listed in docs/hub.md, "Store"), so a caller can tell "the disk refused" from "the queue is full".
 */
import { CodedError } from '../coded-error';

export type StoreErrorCode =
  /** This Node.js has no `node:sqlite` (older than 22.13): the file store cannot open. */
  | 'STORE_DRIVER_MISSING'
  /** Kept so callers that test for it still compile; node:sqlite ships with Node.js, so nothing raises it any more. */
  | 'STORE_DRIVER_UNLOADABLE'
  /** Another process (or another store object) holds this file. One owner per file. */
  | 'STORE_LOCKED'
  /** The file exists but is not a store database, or its content is damaged. */
  | 'STORE_CORRUPT'
  /** The file was written by a newer version of this package. */
  | 'STORE_VERSION'
  /** A write or read failed in the driver (disk full, I/O error, …). */
  | 'STORE_IO'
  /** The store was used after `close()`. */
  | 'STORE_CLOSED'
  /** A bounded queue whose overflow policy is `reject` is full. */
  | 'QUEUE_FULL'
  /** One value is larger than the queue's `maxItemBytes`. */
  | 'ITEM_TOO_LARGE'
  /** A caller passed something the store cannot hold (bad name, bad capacity, bad value type). */
  | 'STORE_BAD_ARGUMENT';

export class StoreError extends CodedError<StoreErrorCode> {}
