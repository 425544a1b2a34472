/**
 * The rules both store implementations share, so that memory and sqlite cannot drift: the inbox upsert decision,
 * option defaults and argument checks.
 */
import { utf8Length } from '../bytes';
import { StoreError } from './errors';
import type { InboxRow, InboxWrite, QueueOptions, QueueOverflow, SeenSetOptions, StoreValue, UpsertOutcome } from './types';

export const DEFAULT_INBOX_CAPACITY = 100_000;
export const DEFAULT_MEMORY_INBOX_MAX_CHARS = 8 * 1024 * 1024;
export const DEFAULT_QUEUE_CAPACITY = 10_000;
export const DEFAULT_SEEN_CAPACITY = 10_000;
export const DEFAULT_MAX_ITEM_BYTES = 8 * 1024 * 1024;

/**
 * Persist is always upsert by message id (guide §11.7), with one exception: a provisional row (`stream_merged`)
 * must not replace a final one. Equal fingerprints are a duplicate and write nothing.
 */
export function decideUpsert(existing: InboxRow | undefined, incoming: InboxWrite): UpsertOutcome {
  if (!existing) return 'inserted';
  if (incoming.provisional && !existing.provisional) return 'kept';
  if (existing.fingerprint === incoming.fingerprint && existing.provisional === incoming.provisional) return 'unchanged';
  return 'updated';
}

export function positiveInteger(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new StoreError('STORE_BAD_ARGUMENT', `${what} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

export function checkName(name: unknown, what: string): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > 200) {
    throw new StoreError('STORE_BAD_ARGUMENT', `${what} must be a non-empty string of at most 200 characters`);
  }
  return name;
}

export interface ResolvedQueueOptions {
  capacity: number;
  overflow: QueueOverflow;
  maxItemBytes: number;
}

export function resolveQueueOptions(options: QueueOptions | undefined): ResolvedQueueOptions {
  const overflow = options?.overflow ?? 'reject';
  if (overflow !== 'reject' && overflow !== 'drop-oldest') {
    throw new StoreError('STORE_BAD_ARGUMENT', `queue overflow must be 'reject' or 'drop-oldest', got ${String(overflow)}`);
  }
  return {
    capacity: positiveInteger(options?.capacity ?? DEFAULT_QUEUE_CAPACITY, 'queue capacity'),
    overflow,
    maxItemBytes: positiveInteger(options?.maxItemBytes ?? DEFAULT_MAX_ITEM_BYTES, 'queue maxItemBytes'),
  };
}

export function resolveSeenCapacity(options: SeenSetOptions | undefined): number {
  return positiveInteger(options?.capacity ?? DEFAULT_SEEN_CAPACITY, 'seen-set capacity');
}

/** Byte size of a value, refusing anything that is neither text nor bytes. */
export function valueBytes(value: StoreValue): number {
  if (typeof value === 'string') return utf8Length(value);
  if (value instanceof Uint8Array) return value.byteLength;
  throw new StoreError('STORE_BAD_ARGUMENT', 'a stored value must be a string or a Uint8Array');
}

/**
 * Is the value above `limit` bytes? Text that would fit even at three UTF-8 bytes per UTF-16 unit is not measured:
 * measuring a string built by concatenation flattens it, a copy of every stored record made for nothing.
 */
export function overBytes(value: StoreValue, limit: number): boolean {
  if (typeof value === 'string' && value.length * 3 <= limit) return false;
  return valueBytes(value) > limit;
}

export function checkInboxWrite(row: InboxWrite): void {
  for (const key of ['messageId', 'chatId', 'event', 'senderId', 'fingerprint', 'body'] as const) {
    if (typeof row[key] !== 'string') throw new StoreError('STORE_BAD_ARGUMENT', `inbox row ${key} must be a string`);
  }
  if (row.messageId.length === 0) throw new StoreError('STORE_BAD_ARGUMENT', 'inbox row messageId must not be empty');
  if (typeof row.provisional !== 'boolean') throw new StoreError('STORE_BAD_ARGUMENT', 'inbox row provisional must be a boolean');
  if (!Number.isFinite(row.at)) throw new StoreError('STORE_BAD_ARGUMENT', 'inbox row at must be a finite number');
}

export function checkKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0) throw new StoreError('STORE_BAD_ARGUMENT', 'a key must be a non-empty string');
  return key;
}

export function checkFiniteNumber(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new StoreError('STORE_BAD_ARGUMENT', `${what} must be a finite number`);
  }
  return value;
}
