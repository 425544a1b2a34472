/**
 * A caller's tag on a durable send: a small JSON value stored in the outbox row beside the frame (never sent to the
 * hub) and echoed in `queued`, `ack` and `rejected`. It is how a caller recognises the answer to a send it made
 * before a restart, when the promise that asked is gone (hub-out keeps its node id and the input's `_msgid` there).
 */
import { utf8Length } from '../bytes';
import { HubError } from './errors';

export type SendTag = string | number | boolean | null | SendTag[] | { [key: string]: SendTag };

/** Largest tag, as JSON text: it rides in every outbox row, which must stay cheap to write and to load. */
export const SEND_TAG_MAX_BYTES = 1024;

const MAX_DEPTH = 8;

function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.every((v) => isPlainJson(v, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  // An undefined member is left out, as JSON does; anything else must survive the round trip unchanged.
  return Object.values(value).every((v) => v === undefined || isPlainJson(v, depth + 1));
}

/** The tag as it will be stored (a copy), undefined when none was given; BAD_ARGUMENT when it is not small plain JSON. */
export function checkSendTag(value: unknown): SendTag | undefined {
  if (value === undefined) return undefined;
  if (!isPlainJson(value, 0)) {
    throw new HubError('BAD_ARGUMENT', `tag must be plain JSON (strings, finite numbers, booleans, null, arrays, objects; at most ${MAX_DEPTH} levels)`);
  }
  const text = JSON.stringify(value);
  const bytes = utf8Length(text);
  if (bytes > SEND_TAG_MAX_BYTES) throw new HubError('BAD_ARGUMENT', `tag is ${bytes} bytes as JSON, above ${SEND_TAG_MAX_BYTES}`, { bytes, limit: SEND_TAG_MAX_BYTES });
  return JSON.parse(text) as SendTag;
}
