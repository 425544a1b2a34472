/**
 * The media fragment (message-hub-client-guide.md §10.1): what `POST /media/upload` returns in `data` (§15.2), ready to
 * drop into a message's `fragments`. The kinds are §15.4's inference from the stored MIME prefix.
 */
import type { FragmentFields, MediaKind } from '../hub/fragments';

export type { MediaKind };

/** A media fragment: the hub's one fragment shape (lib/hub/fragments.ts) with the `url` an upload always returns. */
export type MediaFragment = Pick<FragmentFields, 'name' | 'mime' | 'size' | 'width' | 'height' | 'duration'> & {
  /** `image`, `video`, `audio` or `file`; kept as sent should a future hub add one. */
  kind: MediaKind | (string & {});
  url: string;
};

/** §15.4: `image/*`, `video/*`, `audio/*`, anything else is a file. */
export function kindForMime(mime: string): MediaKind {
  const type = mime.trim().toLowerCase();
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  return 'file';
}

/** Which of the locally measured fields §10.2 lets each kind carry. */
export const ENRICHABLE_FIELDS: Readonly<Record<MediaKind, readonly ('width' | 'height' | 'duration')[]>> = Object.freeze({
  image: ['width', 'height'],
  video: ['width', 'height', 'duration'],
  audio: ['duration'],
  file: [],
});
