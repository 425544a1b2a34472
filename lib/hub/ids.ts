/**
 * Identifiers the client mints and checks (guide §7.6, §5):
 * - `message_id` is `msg-` + a 26-character Crockford ULID, minted once per send and reused byte for byte on every
 *   retry; a caller may bring its own (the gateway derives one from a mesh message id) if it has that exact shape;
 * - `trace_id`s correlate uplinks with `message.ack` / `message.error`;
 * - the `cnv_` rule for deployments whose chat resolver only accepts conversation idcodes.
 */
import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';
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

/** Crockford's base32, the ULID alphabet. */
const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A monotonic ULID source (the format of the ulid package, which `mintDeviceId` still uses): 10 characters of
 * milliseconds, then 16 of randomness; within one millisecond (or when the clock steps back) the randomness of the
 * last id plus one, so ids minted in one millisecond still sort. It is the ulid package's rule, made for the send
 * path: the time characters are encoded once per millisecond, the random ones kept as digits and incremented in
 * place, and the randomness is cryptographic, drawn 512 bytes at a time (one system call per character showed up
 * in profiles); the low 5 bits of a byte are uniform over the 32 symbols.
 */
function monotonicUlid(): (now: number) => string {
  const pool = new Uint8Array(512);
  let at = pool.length;
  const digits = new Uint8Array(16);
  let lastTime = -1;
  let timeText = '';
  const reseed = (): void => {
    for (let i = 0; i < 16; i++) {
      if (at === pool.length) {
        randomFillSync(pool);
        at = 0;
      }
      digits[i] = pool[at++] & 31;
    }
  };
  // The id but its last character: within a millisecond only that one changes, save on a carry.
  let head = '';
  const rehead = (): void => {
    head = timeText;
    for (let i = 0; i < 15; i++) head += BASE32[digits[i]];
  };
  return (now) => {
    if (now > lastTime) {
      lastTime = now;
      timeText = encodeTime(now);
      reseed();
      rehead();
    } else {
      let i = 15;
      while (i >= 0 && digits[i] === 31) digits[i--] = 0;
      if (i >= 0) digits[i]++;
      else {
        // 2^80 ids in one millisecond: move on to the next one rather than repeat an id.
        lastTime += 1;
        timeText = encodeTime(lastTime);
        reseed();
      }
      if (i < 15) rehead();
    }
    return head + BASE32[digits[15]];
  };
}

function encodeTime(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > 2 ** 48 - 1) throw new HubError('BAD_OPTIONS', `the clock gave ${ms}, not a time a ULID can hold`);
  let text = '';
  for (let i = 0, t = ms; i < 10; i++, t = Math.floor(t / 32)) text = BASE32[t % 32] + text;
  return text;
}

/** Ids from one monotonic ULID source reading the injected clock, so ids minted in one millisecond still sort. */
export function createIdMinter(now: () => number): IdMinter {
  const next = monotonicUlid();
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
