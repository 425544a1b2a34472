/**
 * What a file is, from its first bytes. The hub trusts any singular declared type (§15.5: an `.exe` declared
 * `image/png` is stored as `image/png`), so this side checks the declaration against the content and warns; it never
 * rewrites what the user declared. Only signatures that are unambiguous are listed: an unknown file gives
 * `undefined`, and `undefined` never produces a warning.
 */
import { looksLikeMp3 } from './probe/audio-duration';
import { ascii, hasAscii, u8 } from './probe/read-int';
import { own } from './lookup';

/** Bytes the sniffer looks at (the hub's own sniffer reads 512). */
export const SNIFF_BYTES = 4096;

function startsWith(b: Uint8Array, bytes: readonly number[], at = 0): boolean {
  if (at + bytes.length > b.length) return false;
  for (let i = 0; i < bytes.length; i++) if (b[at + i] !== bytes[i]) return false;
  return true;
}

/** ISO base media: the `ftyp` major brand names the family. */
function isoBmffType(b: Uint8Array): string | undefined {
  if (!hasAscii(b, 4, 'ftyp')) return undefined;
  const brand = (ascii(b, 8, 4) ?? '').toLowerCase();
  if (['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis'].includes(brand)) return 'image/heic';
  if (['mif1', 'msf1'].includes(brand)) return 'image/heif';
  if (['avif', 'avis'].includes(brand)) return 'image/avif';
  if (brand === 'qt  ') return 'video/quicktime';
  if (['m4a ', 'm4b ', 'm4p '].includes(brand)) return 'audio/mp4';
  if (brand.startsWith('3g2')) return 'video/3gpp2';
  if (brand.startsWith('3gp')) return 'video/3gpp';
  if (brand === 'crx ') return 'image/x-canon-cr3';
  return 'video/mp4';
}

function oggType(b: Uint8Array): string {
  const segments = u8(b, 26) ?? 0;
  const packet = 27 + segments;
  if (hasAscii(b, packet, 'OpusHead') || hasAscii(b, packet + 1, 'vorbis') || hasAscii(b, packet, '\x7fFLAC')) return 'audio/ogg';
  if (hasAscii(b, packet + 1, 'theora')) return 'video/ogg';
  return 'application/ogg';
}

function matroskaType(b: Uint8Array): string {
  // The DocType string sits in the EBML header, within the first few dozen bytes.
  const text = ascii(b, 0, Math.min(b.length, 64)) ?? '';
  return text.includes('webm') ? 'video/webm' : 'video/x-matroska';
}

function textType(b: Uint8Array): string | undefined {
  let at = startsWith(b, [0xef, 0xbb, 0xbf]) ? 3 : 0;
  while (at < b.length && (b[at] === 0x20 || b[at] === 0x09 || b[at] === 0x0a || b[at] === 0x0d)) at++;
  const text = (ascii(b, at, Math.min(b.length - at, 1024)) ?? '').toLowerCase();
  if (text.startsWith('<!doctype html') || text.startsWith('<html')) return 'text/html';
  if (text.startsWith('<svg') || (text.startsWith('<?xml') && text.includes('<svg'))) return 'image/svg+xml';
  return undefined;
}

function isBmp(b: Uint8Array): boolean {
  // 'BM', then 4 reserved zero bytes at 6, and a known DIB header size at 14.
  if (!hasAscii(b, 0, 'BM') || b.length < 18 || b[6] | b[7] | b[8] | b[9]) return false;
  return [12, 40, 52, 56, 64, 108, 124].includes(b[14] | (b[15] << 8) | (b[16] << 16) | (b[17] << 24));
}

/** The MIME type the content shows, or `undefined` when it is none this sniffer knows. */
export function sniffMime(b: Uint8Array): string | undefined {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (hasAscii(b, 0, 'GIF87a') || hasAscii(b, 0, 'GIF89a')) return 'image/gif';
  if (hasAscii(b, 0, 'RIFF') || hasAscii(b, 0, 'RF64')) {
    if (hasAscii(b, 8, 'WEBP')) return 'image/webp';
    if (hasAscii(b, 8, 'WAVE')) return 'audio/wav';
    if (hasAscii(b, 8, 'AVI ')) return 'video/x-msvideo';
    return undefined;
  }
  if (isBmp(b)) return 'image/bmp';
  if (startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a])) return 'image/tiff';
  const iso = isoBmffType(b);
  if (iso) return iso;
  if (startsWith(b, [0x1a, 0x45, 0xdf, 0xa3])) return matroskaType(b);
  if (hasAscii(b, 0, 'OggS')) return oggType(b);
  if (hasAscii(b, 0, 'fLaC')) return 'audio/flac';
  if (startsWith(b, [0xff, 0xf1]) || startsWith(b, [0xff, 0xf9])) return 'audio/aac';
  if (looksLikeMp3(b)) return 'audio/mpeg';
  if (hasAscii(b, 0, '%PDF-')) return 'application/pdf';
  if (startsWith(b, [0x50, 0x4b, 0x03, 0x04]) || startsWith(b, [0x50, 0x4b, 0x05, 0x06])) return 'application/zip';
  if (startsWith(b, [0x1f, 0x8b])) return 'application/gzip';
  if (startsWith(b, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return 'application/x-7z-compressed';
  if (hasAscii(b, 0, 'Rar!\x1a\x07')) return 'application/vnd.rar';
  if (hasAscii(b, 0, 'MZ')) return 'application/x-msdownload';
  if (startsWith(b, [0x7f, 0x45, 0x4c, 0x46])) return 'application/x-executable';
  return textType(b);
}

/** Spellings of one type that are all in use. */
const ALIASES: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'image/x-ms-bmp': 'image/bmp',
  'image/x-bmp': 'image/bmp',
  'image/heic-sequence': 'image/heic',
  'image/heif-sequence': 'image/heif',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/x-flac': 'audio/flac',
  'audio/mp3': 'audio/mpeg',
  'audio/mpeg3': 'audio/mpeg',
  'audio/x-mpeg': 'audio/mpeg',
  'audio/x-mp3': 'audio/mpeg',
  'audio/x-aac': 'audio/aac',
  'audio/aacp': 'audio/aac',
  'video/x-m4v': 'video/mp4',
  'video/avi': 'video/x-msvideo',
  'video/msvideo': 'video/x-msvideo',
  'application/x-pdf': 'application/pdf',
  'application/x-zip-compressed': 'application/zip',
  'application/x-zip': 'application/zip',
  'application/x-gzip': 'application/gzip',
  'application/x-rar-compressed': 'application/vnd.rar',
  'application/x-dosexec': 'application/x-msdownload',
  'application/vnd.microsoft.portable-executable': 'application/x-msdownload',
  'application/x-elf': 'application/x-executable',
};

/** Containers several declared types legitimately share (an audio-only MP4 is often branded like a video). */
const FAMILIES: readonly (readonly string[])[] = [
  ['video/mp4', 'audio/mp4', 'audio/x-m4a', 'audio/m4a', 'video/quicktime', 'video/3gpp', 'video/3gpp2', 'audio/3gpp', 'audio/3gpp2'],
  ['image/heic', 'image/heif'],
  ['audio/ogg', 'video/ogg', 'application/ogg', 'audio/opus', 'audio/vorbis', 'audio/x-vorbis+ogg', 'audio/x-opus+ogg'],
  ['video/webm', 'audio/webm', 'video/x-matroska', 'audio/x-matroska'],
  ['text/html', 'application/xhtml+xml'],
  ['image/svg+xml', 'application/xml', 'text/xml'],
];

/** Type and subtype, lower case, without parameters, with the common aliases folded. */
export function essence(mime: string): string {
  const bare = mime.split(';')[0].trim().toLowerCase();
  return own(ALIASES, bare) ?? bare;
}

/** True when the declared type may describe content that sniffs as `detected`. */
export function mimeMatches(declared: string, detected: string): boolean {
  const d = essence(declared);
  const s = essence(detected);
  if (d === s) return true;
  if (d === '' || d === 'application/octet-stream' || d.includes('*') || d.includes(',')) return true;
  if (FAMILIES.some((f) => f.includes(d) && f.includes(s))) return true;
  // Office documents, EPUB, JAR, APK and friends are ZIP archives inside.
  if (s === 'application/zip') return d.includes('zip') || d.startsWith('application/vnd.') || d === 'application/java-archive';
  if (s === 'application/gzip') return d === 'application/x-tar' || d === 'application/x-gtar' || d === 'application/x-compressed-tar';
  // Markup sniffs as HTML or SVG from a few leading characters; declaring it as any text is not a lie.
  if (s === 'text/html' || s === 'image/svg+xml') return d.startsWith('text/');
  return false;
}
