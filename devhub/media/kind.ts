/**
 * What a stored MIME type means for the response and for serving (guide §15.4, §15.5): the fragment `kind` by MIME
 * prefix, and the `Content-Disposition` that keeps stored XSS out (inline only for the listed images, video and audio).
 */
const INLINE_IMAGES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/heic', 'image/heif', 'image/avif']);

function essence(mime: string): string {
  return mime.split(';')[0].trim().toLowerCase();
}

export function inferKind(mime: string): 'image' | 'video' | 'audio' | 'file' {
  const m = essence(mime);
  if (m.startsWith('image/')) return 'image';
  if (m.startsWith('video/')) return 'video';
  if (m.startsWith('audio/')) return 'audio';
  return 'file';
}

export function dispositionFor(mime: string): 'inline' | 'attachment' {
  const m = essence(mime);
  return INLINE_IMAGES.has(m) || m.startsWith('video/') || m.startsWith('audio/') ? 'inline' : 'attachment';
}

export function mimeAllowed(mime: string, prefixes: readonly string[]): boolean {
  const m = essence(mime);
  return prefixes.length === 0 || prefixes.some((p) => m.startsWith(p.toLowerCase()));
}

/** The base name a client sent (browsers on some systems send a full path), and its lower-cased extension. */
export function fileName(raw: string | undefined): { name: string; ext: string } {
  const base = (raw ?? '').split(/[\\/]/).pop()!.trim();
  if (base === '') return { name: 'file', ext: '' };
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  return { name: base, ext: /^[a-z0-9]{1,16}$/.test(ext) ? `.${ext}` : '' };
}
