/**
 * The characters lib/printable must never let through, written out by code point and independently of its regex,
 * so that tests check its output against the rule and not against itself.
 */
export function isUnsafeCodePoint(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

/** The unsafe characters of `text`, in order (empty when it is safe to print). */
export function unsafeCharacters(text: string): string[] {
  return [...text].filter((c) => isUnsafeCodePoint(c.codePointAt(0)!));
}
