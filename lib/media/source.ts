/**
 * The three kinds of upload source behind one face: a Buffer (already in memory), a file path (streamed from disk,
 * size known up front, re-readable for a retry) and a Readable (streamed once; only its head is kept, for the
 * sniffer and the probes). Nothing here holds more of a file than one chunk plus that head.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ChunkPool, type LentChunk } from './chunk-pool';
import { MediaError } from './errors';
import { bufferSource, fileSource, type ByteSource } from './probe/byte-source';

export type MediaSource = Uint8Array | Readable | string;

/** Bytes handed to the socket per write: large enough for throughput, small enough for smooth progress. */
export const CHUNK_BYTES = 64 * 1024;
/** A file is read in larger pieces through a pool of this many buffers (1 MiB in all). */
export const FILE_CHUNK_BYTES = 256 * 1024;
export const FILE_POOL_BUFFERS = 4;

/** One piece of the body; `release` (when present) hands a pooled buffer back once the socket is done with it. */
export interface BodyChunk {
  bytes: Uint8Array;
  release?: () => void;
}
/** What is kept of a stream's start for sniffing and probing (an MP4 with `moov` first fits its headers here). */
export const STREAM_HEAD_BYTES = 256 * 1024;

export interface OpenedSource {
  /** Bytes the upload will carry, when known before sending. */
  readonly size: number | undefined;
  /** The first bytes, for the sniffer. */
  readonly head: Uint8Array;
  /** Random access for the header probes (a stream's only reaches as far as its head). */
  readonly probe: ByteSource;
  /** A file name the source itself suggests (the path's last segment). */
  readonly suggestedName: string | undefined;
  /** A fresh pass over the bytes, for one attempt. */
  body(): AsyncIterable<BodyChunk>;
  /** Whether `body()` can give the same bytes again, for a retry. */
  canReplay(): boolean;
  close(): Promise<void>;
}

function unreadable(what: string, err: unknown): MediaError {
  const errno = (err as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    errno === 'ENOENT'
      ? 'no such file'
      : errno === 'EACCES' || errno === 'EPERM'
        ? 'permission denied'
        : errno === 'EISDIR'
          ? 'is a directory'
          : err instanceof Error
            ? err.message
            : String(err);
  return new MediaError('SOURCE_UNREADABLE', `cannot read ${what}: ${reason}`, { errno }, { cause: err });
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  throw new MediaError('SOURCE_UNREADABLE', 'the stream yields objects, not bytes (an object-mode stream cannot be uploaded)');
}

function bufferBody(bytes: Uint8Array): OpenedSource {
  return {
    size: bytes.length,
    head: bytes.subarray(0, STREAM_HEAD_BYTES),
    probe: bufferSource(bytes),
    suggestedName: undefined,
    async *body() {
      for (let at = 0; at < bytes.length; at += CHUNK_BYTES) yield { bytes: bytes.subarray(at, Math.min(at + CHUNK_BYTES, bytes.length)) };
    },
    canReplay: () => true,
    close: () => Promise.resolve(),
  };
}

async function fileBody(file: string): Promise<OpenedSource> {
  let handle: FileHandle;
  let size: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw Object.assign(new Error('not a regular file'), { code: info.isDirectory() ? 'EISDIR' : undefined });
    size = info.size;
    handle = await open(file, 'r');
  } catch (err) {
    throw unreadable(`'${file}'`, err);
  }
  const probe = fileSource(handle, size);
  const head = await probe.read(0, 4096);
  return {
    size,
    head,
    probe,
    suggestedName: path.basename(file),
    async *body() {
      // Positional reads into a small pool, from the start on every pass (a retry re-reads the file). The next
      // chunk is read while the socket sends this one, so the disk and the network overlap. The stat's size bounds
      // the reads: a file that grows is uploaded as it was, and one that shrinks is caught by the byte count.
      const pool = new ChunkPool(FILE_POOL_BUFFERS, FILE_CHUNK_BYTES);
      const readAt = async (at: number): Promise<LentChunk | undefined> => {
        if (at >= size) return undefined;
        const buffer = await pool.take();
        let bytesRead: number;
        try {
          ({ bytesRead } = await handle.read(buffer, 0, Math.min(FILE_CHUNK_BYTES, size - at), at));
        } catch (err) {
          pool.give(buffer);
          throw unreadable(`'${file}'`, err);
        }
        if (bytesRead > 0) return pool.lend(buffer, bytesRead);
        pool.give(buffer);
        return undefined;
      };
      let at = 0;
      let pending = readAt(at);
      while (true) {
        const chunk = await pending;
        if (chunk === undefined) return;
        const expected = Math.min(FILE_CHUNK_BYTES, size - at);
        at += chunk.bytes.length;
        // A short read means the file shrank: send what there is and let the byte count report it.
        pending = chunk.bytes.length < expected ? Promise.resolve(undefined) : readAt(at);
        // Awaited on the next turn; marked handled now so that a consumer that stops early leaves no stray rejection.
        pending.catch(() => undefined);
        yield chunk;
      }
    },
    canReplay: () => true,
    close: () => handle.close().catch(() => undefined),
  };
}

async function streamBody(stream: Readable, declaredSize: number | undefined): Promise<OpenedSource> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<unknown>;
  const headChunks: Uint8Array[] = [];
  let headLength = 0;
  let ended = false;
  try {
    while (headLength < STREAM_HEAD_BYTES) {
      const next = await iterator.next();
      if (next.done) {
        ended = true;
        break;
      }
      const bytes = toBytes(next.value);
      headChunks.push(bytes);
      headLength += bytes.length;
    }
  } catch (err) {
    await iterator.return?.();
    throw err instanceof MediaError ? err : unreadable('the stream', err);
  }
  const head = Buffer.concat(headChunks);
  const size = ended ? headLength : declaredSize;
  let pulledPastHead = false;
  const fsPath = (stream as Readable & { path?: unknown }).path;
  return {
    size,
    head,
    probe: { size, read: (offset, length) => bufferSource(head).read(offset, length) },
    suggestedName: typeof fsPath === 'string' ? path.basename(fsPath) : undefined,
    async *body() {
      for (let at = 0; at < head.length; at += CHUNK_BYTES) yield { bytes: head.subarray(at, Math.min(at + CHUNK_BYTES, head.length)) };
      if (ended) return;
      while (true) {
        let next: IteratorResult<unknown>;
        try {
          next = await iterator.next();
        } catch (err) {
          throw unreadable('the stream', err);
        }
        if (next.done) {
          ended = true;
          return;
        }
        pulledPastHead = true;
        yield { bytes: toBytes(next.value) };
      }
    },
    // Bytes past the head are gone once sent; a stream can only be replayed while it has given nothing more.
    canReplay: () => !pulledPastHead,
    close: async () => {
      if (!ended) await iterator.return?.();
    },
  };
}

function isReadable(value: unknown): value is Readable {
  return typeof value === 'object' && value !== null && typeof (value as Readable)[Symbol.asyncIterator] === 'function' && typeof (value as Readable).pipe === 'function';
}

/** Opens a source for an upload; the caller must `close()` it. `declaredSize` only matters for a stream. */
export async function openSource(source: MediaSource, declaredSize?: number): Promise<OpenedSource> {
  if (source instanceof Uint8Array) return bufferBody(source);
  if (typeof source === 'string') {
    if (source === '') throw new MediaError('BAD_OPTIONS', 'the file path is empty');
    return fileBody(source);
  }
  if (isReadable(source)) return streamBody(source, declaredSize);
  throw new MediaError('BAD_OPTIONS', 'the source must be a Buffer, a Readable stream or a file path');
}
