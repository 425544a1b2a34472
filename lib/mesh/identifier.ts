/**
 * The identifier rule for `sender`, `recipient`, `app_id` and the user ids nested in `forwarded_from` and
 * `reply_context` (mesh-message-wire.md, validation table; mesh-reference-facts.md §1, `sender`).
 *
 * These are security checks, not conveniences: identifiers end up in file names, topics and map keys, so the JSON
 * floor and binary v1 run this one function. Order as in the reference: the UTF-8 byte length first (so that an
 * oversized value is reported as such whatever else is wrong with it), then emptiness, `.`/`..`, and the
 * forbidden characters (U+0000–U+001F, U+007F, `/`, `\`, `:`). Nothing else is checked: Unicode, spaces, `@` and
 * `.` inside the value are allowed, and the `off1…` address form is not required.
 */
import { MeshDecodeError } from './errors';

export const MAX_IDENTIFIER_BYTES = 256;

// eslint-disable-next-line no-control-regex
const SUSPECT = /[\x00-\x1f\x7f/\\:\uD800-\uDFFF]/;

export type IdentifierProblem = 'too_long' | 'empty' | 'dot' | 'forbidden_char' | 'not_a_string' | 'bad_unicode';

/**
 * What is wrong with an identifier, or `undefined` when it is valid. A lone UTF-16 surrogate has no UTF-8
 * encoding, so it can never arrive from a wire and is refused here as `bad_unicode`.
 */
export function identifierProblem(value: unknown): IdentifierProblem | undefined {
  if (typeof value !== 'string') return 'not_a_string';
  const n = value.length;
  // No UTF-16 unit expands to more than 3 UTF-8 bytes, so short strings skip the byte count.
  if (n * 3 > MAX_IDENTIFIER_BYTES) {
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
    }
    if (bytes > MAX_IDENTIFIER_BYTES) return 'too_long';
  }
  if (n === 0) return 'empty';
  if (value === '.' || value === '..') return 'dot';
  // One native scan for the common valid case; the loop below only runs to tell a pair from a lone surrogate.
  if (!SUSPECT.test(value)) return undefined;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x2f || c === 0x5c || c === 0x3a) return 'forbidden_char';
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = value.charCodeAt(i + 1);
      if (c >= 0xdc00 || !(next >= 0xdc00 && next <= 0xdfff)) return 'bad_unicode';
      i++;
    }
  }
  return undefined;
}

export function isValidIdentifier(value: unknown): value is string {
  return identifierProblem(value) === undefined;
}

const MESSAGES: Record<IdentifierProblem, string> = {
  too_long: `is longer than ${MAX_IDENTIFIER_BYTES} UTF-8 bytes`,
  empty: 'is empty',
  dot: "is '.' or '..'",
  forbidden_char: 'contains a control character, /, \\ or :',
  not_a_string: 'is not a string',
  bad_unicode: 'contains a lone UTF-16 surrogate',
};

/**
 * Throws `MeshDecodeError` (`IDENTIFIER_TOO_LONG` or `BAD_IDENTIFIER`, with `details.field` and `details.reason`)
 * unless `value` is a valid identifier.
 */
export function checkIdentifier(value: unknown, field: string): string {
  const problem = identifierProblem(value);
  if (problem === undefined) return value as string;
  const code = problem === 'too_long' ? 'IDENTIFIER_TOO_LONG' : problem === 'not_a_string' ? 'BAD_FIELD_TYPE' : 'BAD_IDENTIFIER';
  throw new MeshDecodeError(code, `${field} ${MESSAGES[problem]}`, { field, reason: problem });
}
