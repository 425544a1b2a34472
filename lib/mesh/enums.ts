/**
 * The frozen enum mappings of the wire (mesh-message-wire.md, "content type" and "priority" tables).
 *
 * Numbers are a frozen contract: a value is never renumbered, and a new variant only appends. Unknown values
 * degrade instead of rejecting, so that a frame from a newer peer still arrives:
 * - content type: an unknown number (binary) or string (JSON) becomes `file`, on every path;
 * - priority: an unknown number (binary) becomes `medium`; on the JSON floor priority is a closed set of strings
 *   with no fallback, so an unknown spelling rejects the message (the caller raises the error).
 */
export type ContentType =
  | 'text'
  | 'image'
  | 'video'
  | 'audio'
  | 'voice_note'
  | 'video_note'
  | 'file'
  | 'file_chunk'
  | 'poll';

export type Priority = 'low' | 'medium' | 'high' | 'critical';

/** Index = wire number. */
export const CONTENT_TYPES: readonly ContentType[] = Object.freeze([
  'text',
  'image',
  'video',
  'audio',
  'voice_note',
  'video_note',
  'file',
  'file_chunk',
  'poll',
] as const);

/** Index = wire number. */
export const PRIORITIES: readonly Priority[] = Object.freeze(['low', 'medium', 'high', 'critical'] as const);

const CONTENT_TYPE_CODES: ReadonlyMap<string, number> = new Map(CONTENT_TYPES.map((name, code) => [name, code]));
const PRIORITY_CODES: ReadonlyMap<string, number> = new Map(PRIORITIES.map((name, code) => [name, code]));

/**
 * The JSON floor's priority spellings: the four lowercase names, plus the capitalized ones the reference accepts
 * for JSON re-parsed from its FFI boundary. No other casing.
 */
const PRIORITY_SPELLINGS: ReadonlyMap<string, Priority> = new Map<string, Priority>([
  ['low', 'low'],
  ['medium', 'medium'],
  ['high', 'high'],
  ['critical', 'critical'],
  ['Low', 'low'],
  ['Medium', 'medium'],
  ['High', 'high'],
  ['Critical', 'critical'],
]);

export function contentTypeFromCode(code: number): ContentType {
  return CONTENT_TYPES[code] ?? 'file';
}

export function contentTypeCode(type: ContentType): number {
  return CONTENT_TYPE_CODES.get(type) ?? 6;
}

/** Any string: a known snake_case name maps to itself, anything else to `file`. */
export function contentTypeFromName(name: string): ContentType {
  const code = CONTENT_TYPE_CODES.get(name);
  return code === undefined ? 'file' : CONTENT_TYPES[code];
}

export function isContentType(value: unknown): value is ContentType {
  return typeof value === 'string' && CONTENT_TYPE_CODES.has(value);
}

export function priorityFromCode(code: number): Priority {
  return PRIORITIES[code] ?? 'medium';
}

export function priorityCode(priority: Priority): number {
  return PRIORITY_CODES.get(priority) ?? 1;
}

/** A JSON floor spelling, or `undefined` for anything outside the closed set. */
export function priorityFromName(name: string): Priority | undefined {
  return PRIORITY_SPELLINGS.get(name);
}

export function isPriority(value: unknown): value is Priority {
  return typeof value === 'string' && PRIORITY_CODES.has(value);
}
