/**
 * UTF-8 well-formedness of a byte range without making a view of it (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF). Snapshot validation calls this once per stored value, where a view per value would
 * cost more than the check; ASCII, the common case, takes the first branch only.
 */
export function isUtf8Range(b: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    if (c < 0xc2) return false;
    if (c < 0xe0) {
      if (i + 1 >= end || (b[i + 1] & 0xc0) !== 0x80) return false;
      i += 2;
      continue;
    }
    if (c < 0xf0) {
      if (i + 2 >= end) return false;
      const c1 = b[i + 1];
      if ((c1 & 0xc0) !== 0x80 || (b[i + 2] & 0xc0) !== 0x80) return false;
      if ((c === 0xe0 && c1 < 0xa0) || (c === 0xed && c1 >= 0xa0)) return false;
      i += 3;
      continue;
    }
    if (c < 0xf5) {
      if (i + 3 >= end) return false;
      const c1 = b[i + 1];
      if ((c1 & 0xc0) !== 0x80 || (b[i + 2] & 0xc0) !== 0x80 || (b[i + 3] & 0xc0) !== 0x80) return false;
      if ((c === 0xf0 && c1 < 0x90) || (c === 0xf4 && c1 >= 0x90)) return false;
      i += 4;
      continue;
    }
    return false;
  }
  return true;
}
