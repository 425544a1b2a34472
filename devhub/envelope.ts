/**
 * Envelope helpers (guide §4, §7.1, §10.4, §13): the one place that knows how the hub reshapes what a client wrote.
 * Uplinks are parsed into plain objects; downlinks are built here and marshaled once.
 */
export const PROTOCOL_VERSION = '2';

export type Envelope = Record<string, unknown>;

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string or undefined (the guide treats empty and missing alike for ids). */
export function idField(obj: Record<string, unknown>, key: string): string | undefined {
  const value = obj[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * §7.1: U+0000 cannot live in the hub's document store, so it is deleted everywhere in the envelope, keys included.
 * Working on the parsed value removes exactly the genuine `\u0000` escapes: an escaped backslash followed by the
 * text `u0000` is a different string and survives.
 */
export function stripNul(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('\0') ? value.replace(/\0/g, '') : value;
  if (Array.isArray(value)) return value.map(stripNul);
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key.includes('\0') ? key.replace(/\0/g, '') : key] = stripNul(inner);
    return out;
  }
  return value;
}

const STRING_FIELDS = ['text', 'delta', 'user_id', 'display', 'url', 'name', 'mime'] as const;
const NUMBER_FIELDS = ['size', 'width', 'height', 'duration'] as const;

/**
 * §10.4: the hub relays fragments through a typed struct, so `kind` and the documented union fields survive whatever
 * the kind, and every other field is dropped. A field of the wrong JSON type does not fit the struct either.
 */
export function normalizeFragments(value: unknown, keepDelta: boolean): Record<string, unknown>[] {
  if (!Array.isArray(value)) return [];
  const out: Record<string, unknown>[] = [];
  for (const item of value) {
    if (!isObject(item)) continue;
    const fragment: Record<string, unknown> = { kind: typeof item.kind === 'string' ? item.kind : '' };
    for (const key of STRING_FIELDS) {
      if (key === 'delta' && !keepDelta) continue;
      if (typeof item[key] === 'string') fragment[key] = item[key];
    }
    for (const key of NUMBER_FIELDS) {
      if (typeof item[key] === 'number' && Number.isFinite(item[key])) fragment[key] = item[key];
    }
    out.push(fragment);
  }
  return out;
}

/** The ReplyContext of §7.4, through the same typed relay. */
export function normalizeReply(value: unknown): Record<string, unknown> | null {
  if (!isObject(value)) return null;
  const reply: Record<string, unknown> = {
    reply_to_msg_id: typeof value.reply_to_msg_id === 'string' ? value.reply_to_msg_id : '',
  };
  if (isObject(value.reply_preview)) {
    const p = value.reply_preview;
    reply.reply_preview = {
      id: typeof p.id === 'string' ? p.id : '',
      nick_name: typeof p.nick_name === 'string' ? p.nick_name : '',
      fragments: normalizeFragments(p.fragments, false),
    };
  }
  return reply;
}

export function staticStreaming(): Record<string, unknown> {
  return { status: 'static', sequence: 0, mutation_policy: 'sealed', started_at: null, completed_at: null };
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Stamps per-connection fields onto an already marshaled object without re-marshaling it (replay sends the same
 * stored row to many devices).
 */
export function appendFields(json: string, fields: Record<string, number | string | undefined>): string {
  let extra = '';
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) extra += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  if (extra === '') return json;
  return json.length > 2 ? json.slice(0, -1) + extra + '}' : '{' + extra.slice(1) + '}';
}

/** Room the per-connection `seq` / `dseq` stamps take in the produce-cap measure (§14.3: the cap is on the downlink). */
export const STAMP_RESERVE_BYTES = 48;
