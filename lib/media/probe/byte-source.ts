/**
 * Random access to a file's bytes for the header probes, whatever the upload's source: a whole Buffer, a file on
 * disk read by position (an MP4's `moov` or an Ogg stream's last page may sit at the end), or only the head of a
 * stream that has already gone past. A read never throws: past the end of what is available it returns fewer bytes
 * (possibly none), and the probes treat a short read as "not known".
 */
import type { FileHandle } from 'node:fs/promises';

export interface ByteSource {
  /** Total length of the file when known (a stream's may not be). */
  readonly size: number | undefined;
  /** Up to `length` bytes from `offset`; shorter at the end of what this source can see. */
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** Upper bound on one read, so a hostile length field cannot make a probe allocate much. */
export const MAX_PROBE_READ_BYTES = 1 << 20;

function clampLength(offset: number, length: number, size: number | undefined): number {
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isFinite(length) || length <= 0) return 0;
  let n = Math.min(Math.floor(length), MAX_PROBE_READ_BYTES);
  if (size !== undefined) n = Math.max(0, Math.min(n, size - offset));
  return n;
}

export function bufferSource(bytes: Uint8Array, knownSize?: number): ByteSource {
  return {
    size: knownSize ?? bytes.length,
    read(offset, length) {
      const n = clampLength(offset, length, bytes.length);
      return Promise.resolve(bytes.subarray(offset, offset + n));
    },
  };
}

/** Positional reads on an open file; the caller owns (and closes) the handle. */
export function fileSource(handle: FileHandle, size: number): ByteSource {
  return {
    size,
    async read(offset, length) {
      const n = clampLength(offset, length, size);
      if (n === 0) return new Uint8Array(0);
      const out = Buffer.allocUnsafe(n);
      try {
        const { bytesRead } = await handle.read(out, 0, n, offset);
        return out.subarray(0, bytesRead);
      } catch {
        return new Uint8Array(0);
      }
    },
  };
}
