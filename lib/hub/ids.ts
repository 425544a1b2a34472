/**
 * Identifiers the client mints and checks (guide §7.6, §5):
 * - `message_id` is `msg-` + a 26-character Crockford ULID, minted once per send and reused byte for byte on every
 *   retry; a caller may bring its own (the gateway derives one from a mesh message id) if it has that exact shape;
 * - `trace_id`s correlate uplinks with `message.ack` / `message.error`;
 * - the `cnv_` rule for deployments whose chat resolver only accepts conversation idcodes.
 */
import { randomFillSync } from 'node:crypto';
import { monotonicFactory, type PRNG } from 'ulid';
import { HubError } from './errors';

/** The binding format contract of §7.6, character class as the guide writes it. */
export const MESSAGE_ID_PATTERN = /^msg-[0-9A-HJ-NP-Z]{26}$/;
/** `cnv_` + Crockford base32 (case-insensitive); the guide describes it as a ULID but only the prefix is load-bearing. */
export const CNV_CHAT_ID_PATTERN = /^cnv_[0-9A-HJ-NP-Z]+$/i;

export type ChatIdRule = 'any' | 'cnv';

export interface IdMinter {
  messageId(): string;
  traceId(prefix?: string): string;
}

/**
 * Cryptographic randomness drawn 512 bytes at a time: the ulid package asks for one value per character, and one
 * system call per character shows up in profiles. A byte / 256 maps uniformly onto the 32 base32 symbols.
 */
function pooledRandom(): PRNG {
  const pool = new Uint8Array(512);
  let at = pool.length;
  return () => {
    if (at === pool.length) {
      randomFillSync(pool);
      at = 0;
    }
    return pool[at++] / 256;
  };
}

/** Ids from one monotonic ULID factory seeded with the injected clock, so ids minted in one millisecond still sort. */
export function createIdMinter(now: () => number): IdMinter {
  const next = monotonicFactory(pooledRandom());
  return {
    messageId: () => `msg-${next(now())}`,
    traceId: (prefix = 'trc') => `${prefix}-${next(now())}`,
  };
}

export function isMessageId(value: unknown): value is string {
  return typeof value === 'string' && MESSAGE_ID_PATTERN.test(value);
}

export function checkMessageId(value: unknown): string {
  if (!isMessageId(value)) {
    throw new HubError('BAD_MESSAGE_ID', `a message id must be 'msg-' followed by a 26-character Crockford ULID, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function checkChatId(value: unknown, rule: ChatIdRule): string {
  if (typeof value !== 'string' || value === '') throw new HubError('BAD_CHAT_ID', 'a chat id must be a non-empty string');
  if (rule === 'cnv' && !CNV_CHAT_ID_PATTERN.test(value)) {
    throw new HubError('BAD_CHAT_ID', `this deployment requires conversation ids ('cnv_…'), got ${JSON.stringify(value)}`, { chatId: value });
  }
  return value;
}

/** A new installation's device id, when neither the options nor the store have one. */
export function mintDeviceId(now: () => number): string {
  return `dev-${monotonicFactory()(now())}`;
}
