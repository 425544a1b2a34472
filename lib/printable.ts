/**
 * Text from the mesh or a hub, made safe to print: on a log line, a terminal or a journal, nobody but us may start a
 * line, move the cursor, recolour the screen or reorder what follows. A fragment id or a chat message carrying "\n"
 * would otherwise forge a whole log line, an ESC sequence could rewrite the terminal, and a bidi override (U+202E)
 * makes the rest of the line read backwards.
 *
 * Escaped: C0 controls (U+0000–001F), DEL (U+007F), C1 controls (U+0080–009F), the line and paragraph separators
 * (U+2028, U+2029), and the bidi embeddings, overrides and isolates (U+202A–202E, U+2066–2069). Everything else,
 * letters of any script and emoji included, is left as it is. A backslash is not doubled: the result is for people
 * to read, not to decode, and ordinary text (paths, JSON) keeps its spelling; applying it twice changes nothing.
 */

// Built from a string so that the source holds no raw control characters (and lint's no-control-regex stays quiet).
const UNSAFE_CLASS = '[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]';
const UNSAFE = new RegExp(UNSAFE_CLASS);
const UNSAFE_ALL = new RegExp(UNSAFE_CLASS, 'g');
// In valid JSON a C0 control can only be whitespace between tokens (a string holds it escaped), so JSON keeps those.
const UNSAFE_IN_JSON_CLASS = '[\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]';
const UNSAFE_IN_JSON = new RegExp(UNSAFE_IN_JSON_CLASS);
const UNSAFE_IN_JSON_ALL = new RegExp(UNSAFE_IN_JSON_CLASS, 'g');

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function hex(code: number, digits: number): string {
  return code.toString(16).padStart(digits, '0');
}

function visible(c: string): string {
  const code = c.charCodeAt(0);
  return SHORT[c] ?? (code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`);
}

/** `text` with every unsafe character as a visible escape: `\n`, `\x1b`, `\x9b`, `\u202e`. */
export function printable(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, visible) : text;
}

/**
 * JSON text (from `JSON.stringify`, pretty or not, one line or several) with the unsafe characters JSON leaves raw
 * as `\uXXXX` escapes. A JSON string holds C0 controls escaped already, but DEL, C1, U+2028/2029 and the bidi
 * controls raw; outside strings JSON text is ASCII, so each of them sits inside a string and its escape parses back
 * to the same value. C0 characters are left alone: in valid JSON they are the whitespace between tokens (the line
 * ends of pretty output, the newline after a JSON line).
 */
export function printableJson(json: string): string {
  return UNSAFE_IN_JSON.test(json) ? json.replace(UNSAFE_IN_JSON_ALL, (c) => `\\u${hex(c.charCodeAt(0), 4)}`) : json;
}
