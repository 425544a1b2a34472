/**
 * Fragments (guide §10): reading them tolerantly (an unknown kind is kept and marked unsupported, never an error),
 * checking the ones we send, and joining the text of a message for callers that want one string.
 */
import { HubError } from './errors';
import { isObject, num, str, type JsonObject } from './json';

export const KNOWN_FRAGMENT_KINDS = ['text', 'mention', 'image', 'file', 'audio', 'video'] as const;
export type KnownFragmentKind = (typeof KNOWN_FRAGMENT_KINDS)[number];
/** The kinds whose fragment points at uploaded media (§10.1; lib/media uploads them). */
export type MediaKind = 'image' | 'video' | 'audio' | 'file';
const MEDIA_KINDS: ReadonlySet<string> = new Set<MediaKind>(['image', 'file', 'audio', 'video']);

/**
 * A fragment's fields as the wire carries them: the one shape behind what is received (`Fragment`), sent, and
 * returned by a media upload (lib/media's `MediaFragment`).
 */
export interface FragmentFields {
  kind: string;
  text?: string;
  /** `message.add` only (§8.2). */
  delta?: string;
  user_id?: string;
  display?: string;
  /** Opaque and directly retrievable (§10.5): never parse or rebuild it. */
  url?: string;
  name?: string;
  mime?: string;
  /** Bytes. */
  size?: number;
  /** Pixels (image, video). */
  width?: number;
  height?: number;
  /** Milliseconds (audio, video). */
  duration?: number;
}

/** A received fragment. */
export interface Fragment extends FragmentFields {
  /** False for a kind this client does not know; render it as "unsupported content" (§10.4). */
  supported: boolean;
}

const STRING_FIELDS = ['text', 'delta', 'user_id', 'display', 'url', 'name', 'mime'] as const;
const NUMBER_FIELDS = ['size', 'width', 'height', 'duration'] as const;

/** Every element that is an object becomes a Fragment; anything else is skipped and counted. */
export function parseFragments(value: unknown): { fragments: Fragment[]; skipped: number } {
  if (!Array.isArray(value)) return { fragments: [], skipped: value === undefined || value === null ? 0 : 1 };
  const fragments: Fragment[] = [];
  let skipped = 0;
  for (const item of value) {
    if (!isObject(item)) {
      skipped++;
      continue;
    }
    const kind = str(item.kind) ?? '';
    const fragment: Fragment = { kind, supported: (KNOWN_FRAGMENT_KINDS as readonly string[]).includes(kind) };
    for (const key of STRING_FIELDS) {
      const v = str(item[key]);
      if (v !== undefined) fragment[key] = v;
    }
    for (const key of NUMBER_FIELDS) {
      const v = num(item[key]);
      if (v !== undefined) fragment[key] = v;
    }
    fragments.push(fragment);
  }
  return { fragments, skipped };
}

/**
 * The readable text of a message: text fragments (and the `text` of unknown kinds, which §10.4 lets producers
 * ship), mentions as `@display`, concatenated in order.
 */
export function joinText(fragments: readonly Fragment[]): string {
  let out = '';
  for (const f of fragments) {
    if (f.kind === 'mention') out += `@${f.display ?? f.user_id ?? ''}`;
    else if (!MEDIA_KINDS.has(f.kind) && f.text !== undefined) out += f.text;
  }
  return out;
}

export function textFragment(text: string): JsonObject {
  return { kind: 'text', text };
}

/**
 * Checks fragments a caller wants to send and returns plain wire objects. `delta` is refused (it belongs to
 * `message.add` only, §8.2); unknown kinds pass (a producer may use custom kinds) but must still be objects.
 */
export function checkOutgoingFragments(value: unknown): JsonObject[] {
  if (!Array.isArray(value) || value.length === 0) throw new HubError('BAD_ARGUMENT', 'fragments must be a non-empty array');
  return value.map((item, i) => {
    if (!isObject(item)) throw new HubError('BAD_ARGUMENT', `fragment ${i} must be an object`);
    const kind = item.kind;
    if (typeof kind !== 'string' || kind === '') throw new HubError('BAD_ARGUMENT', `fragment ${i} needs a string kind`);
    if ('delta' in item) throw new HubError('BAD_ARGUMENT', `fragment ${i}: delta belongs to streaming message.add only`);
    if (kind === 'text' && typeof item.text !== 'string') throw new HubError('BAD_ARGUMENT', `fragment ${i}: a text fragment needs text`);
    if (MEDIA_KINDS.has(kind) && (typeof item.url !== 'string' || item.url === '')) {
      throw new HubError('BAD_ARGUMENT', `fragment ${i}: a ${kind} fragment needs a url (upload the media first, §15)`);
    }
    const out: JsonObject = { kind };
    for (const key of STRING_FIELDS) if (typeof item[key] === 'string') out[key] = item[key];
    for (const key of NUMBER_FIELDS) if (typeof item[key] === 'number' && Number.isFinite(item[key])) out[key] = item[key];
    return out;
  });
}
