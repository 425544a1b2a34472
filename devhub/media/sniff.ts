/**
 * Content sniffing over the first 512 bytes (guide §15.5), in the manner of the WHATWG MIME Sniffing algorithm as
 * Go's `http.DetectContentType` applies it: magic numbers first, then HTML/XML markers, then "is it text", then
 * `application/octet-stream`. Used only when the declared type is empty, `application/octet-stream`, or not singular.
 */
export const SNIFF_BYTES = 512;

const starts = (b: Buffer, sig: number[] | string, at = 0): boolean => {
  const bytes = typeof sig === 'string' ? Buffer.from(sig, 'latin1') : Buffer.from(sig);
  return b.length >= at + bytes.length && b.subarray(at, at + bytes.length).equals(bytes);
};

const HTML_TAGS = ['<!DOCTYPE HTML', '<HTML', '<HEAD', '<SCRIPT', '<IFRAME', '<H1', '<DIV', '<FONT', '<TABLE', '<A', '<STYLE', '<TITLE', '<B', '<BODY', '<BR', '<P', '<!--'];

function isTagEnd(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x3e;
}

function markup(b: Buffer): string | undefined {
  let i = 0;
  while (i < b.length && (b[i] === 0x09 || b[i] === 0x0a || b[i] === 0x0c || b[i] === 0x0d || b[i] === 0x20)) i++;
  const head = b.subarray(i, i + 16).toString('latin1').toUpperCase();
  if (head.startsWith('<?XML')) return 'text/xml; charset=utf-8';
  for (const tag of HTML_TAGS) {
    if (head.startsWith(tag) && (tag === '<!--' || isTagEnd(b[i + tag.length]))) return 'text/html; charset=utf-8';
  }
  return undefined;
}

function binary(b: Buffer): boolean {
  for (const byte of b) {
    if (byte <= 0x08 || byte === 0x0b || (byte >= 0x0e && byte <= 0x1a) || (byte >= 0x1c && byte <= 0x1f)) return true;
  }
  return false;
}

function isoMedia(b: Buffer): string | undefined {
  if (!starts(b, 'ftyp', 4)) return undefined;
  const brand = b.subarray(8, 12).toString('latin1');
  if (brand === 'avif' || brand === 'avis') return 'image/avif';
  if (['heic', 'heix', 'heim', 'heis', 'mif1', 'msf1'].includes(brand)) return 'image/heic';
  if (brand === 'M4A ' || brand === 'M4B ') return 'audio/mp4';
  if (brand === 'qt  ') return 'video/quicktime';
  return 'video/mp4';
}

export function sniffMime(head: Buffer): string {
  const b = head.subarray(0, SNIFF_BYTES);
  if (starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts(b, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts(b, 'GIF87a') || starts(b, 'GIF89a')) return 'image/gif';
  if (starts(b, 'RIFF') && starts(b, 'WEBPVP', 8)) return 'image/webp';
  if (starts(b, 'RIFF') && starts(b, 'WAVE', 8)) return 'audio/wav';
  if (starts(b, 'RIFF') && starts(b, 'AVI ', 8)) return 'video/avi';
  if (starts(b, 'BM')) return 'image/bmp';
  if (starts(b, [0x00, 0x00, 0x01, 0x00]) || starts(b, [0x00, 0x00, 0x02, 0x00])) return 'image/x-icon';
  const iso = isoMedia(b);
  if (iso) return iso;
  if (starts(b, [0x1a, 0x45, 0xdf, 0xa3])) return 'video/webm';
  if (starts(b, 'OggS')) return b.includes('OpusHead') || b.includes('vorbis') ? 'audio/ogg' : 'application/ogg';
  if (starts(b, 'ID3') || starts(b, [0xff, 0xfb]) || starts(b, [0xff, 0xf3]) || starts(b, [0xff, 0xf2])) return 'audio/mpeg';
  if (starts(b, 'fLaC')) return 'audio/flac';
  if (starts(b, '#!AMR')) return 'audio/amr';
  if (starts(b, 'FORM') && starts(b, 'AIFF', 8)) return 'audio/aiff';
  if (starts(b, '%PDF-')) return 'application/pdf';
  if (starts(b, [0x50, 0x4b, 0x03, 0x04])) return 'application/zip';
  if (starts(b, [0x1f, 0x8b, 0x08])) return 'application/x-gzip';
  const text = markup(b);
  if (text) return text;
  if (b.length > 0 && !binary(b)) return 'text/plain; charset=utf-8';
  return 'application/octet-stream';
}

/** Whether the declared type is one the sniffer may override (§15.5). */
export function mayOverride(declared: string): boolean {
  const t = declared.trim().toLowerCase();
  return t === '' || t === 'application/octet-stream' || t.includes('*') || t.includes(',');
}
