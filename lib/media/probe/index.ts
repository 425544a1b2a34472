/**
 * Local measurements for the upload's fragment (§15.2: the hub returns no width, height or duration, and the client
 * may add them). The prober is chosen by what the content sniffs as, not by the declared type, so a mislabelled
 * file is still measured correctly or not at all. A probe never throws: anything it cannot read is left out.
 */
import type { ByteSource } from './byte-source';
import { probeFlac, probeMp3, probeOgg, probeWav } from './audio-duration';
import { probeGif, probeJpeg, probePng, probeWebp } from './image-size';
import { probeIsoBmff } from './iso-bmff';
import { probeMatroska } from './matroska';
import type { MediaFacts } from './types';
import { own } from '../lookup';

export type { ByteSource } from './byte-source';
export { bufferSource, fileSource, MAX_PROBE_READ_BYTES } from './byte-source';
export type { MediaFacts } from './types';

const PROBES: Readonly<Record<string, (src: ByteSource) => Promise<MediaFacts>>> = {
  'image/png': probePng,
  'image/jpeg': probeJpeg,
  'image/gif': probeGif,
  'image/webp': probeWebp,
  'audio/wav': probeWav,
  'audio/flac': probeFlac,
  'audio/ogg': probeOgg,
  'audio/mpeg': probeMp3,
  'video/mp4': probeIsoBmff,
  'audio/mp4': probeIsoBmff,
  'video/quicktime': probeIsoBmff,
  'video/3gpp': probeIsoBmff,
  'video/3gpp2': probeIsoBmff,
  'video/webm': probeMatroska,
  'video/x-matroska': probeMatroska,
};

/** What the headers say about a file whose content sniffed as `sniffedMime`. */
export async function probeMedia(src: ByteSource, sniffedMime: string | undefined): Promise<MediaFacts> {
  const probe = sniffedMime === undefined ? undefined : own(PROBES, sniffedMime);
  if (!probe) return {};
  try {
    return await probe(src);
  } catch {
    // The probes check every length; this only guards against a fault in the source itself.
    return {};
  }
}
