/**
 * Text the gateway hands to other programs, made safe to carry: never a lone surrogate (Home Assistant, being Python,
 * cannot encode `"\ud83d"` once it has parsed it, and the state that carries it is lost), and never cut inside a
 * character a person sees as one — an emoji with its skin tone, a flag, a letter with its accents — because `slice`
 * counts UTF-16 code units, not what a person reads.
 */

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// The same, as JSON.stringify escapes it (it writes paired surrogates as they are and lone ones as \udxxx), when the
// backslash is not itself escaped (an even number of backslashes before it).
const ESCAPED_LONE_SURROGATE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

let graphemes: Intl.Segmenter | undefined;

/** `text` with every lone surrogate replaced by U+FFFD, the replacement character; unchanged when there is none. */
export function wellFormed(text: string): string {
  LONE_SURROGATE.lastIndex = 0;
  return LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATE, '\uFFFD') : text;
}

/**
 * JSON text (as `JSON.stringify` writes it) whose strings hold no lone surrogate: each escaped one becomes `\ufffd`.
 * Cheap when there is none, which is nearly always: one substring search.
 */
export function wellFormedJson(json: string): string {
  return json.includes('\\ud') ? json.replace(ESCAPED_LONE_SURROGATE, '$1\\ufffd') : json;
}

function cut(text: string, max: number, mark: string, size: (s: string) => number): string {
  const whole = wellFormed(text);
  if (size(whole) <= max) return whole;
  const room = max - size(mark);
  if (room < 0) return '';
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let used = 0;
  let end = 0;
  for (const { segment } of graphemes.segment(whole)) {
    const n = size(segment);
    if (used + n > room) break;
    used += n;
    end += segment.length;
  }
  return `${whole.slice(0, end)}${mark}`;
}

/**
 * At most `max` UTF-16 code units (so at most `max` characters for any counter), cut at a grapheme boundary and
 * marked with `mark` when cut; well-formed either way.
 */
export function cutText(text: string, max: number, mark = '…'): string {
  return cut(text, max, mark, (s) => s.length);
}

/** The same within `maxBytes` bytes of UTF-8 (a mesh frame's text, a hub message's size limit). */
export function cutUtf8(text: string, maxBytes: number, mark = '…'): string {
  return cut(text, maxBytes, mark, (s) => Buffer.byteLength(s, 'utf8'));
}
