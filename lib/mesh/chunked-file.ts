/**
 * Files over the mesh as `file_chunk` messages (mesh-reference-facts.md §6; mesh-message-wire.md "Chunks").
 *
 * Sending: the file is cut into chunks of the transport's size, each one message with `content_type` file_chunk,
 * empty `content`, priority medium, `requires_ack` true, metadata `transport_preference: internet`, and the
 * plaintext `FileChunk::to_bytes` layout as `binary_content`. Chunk 0 alone also carries `media_metadata` and
 * `original_content_type`. At most `window` chunks are in flight; the window advances on each chunk's ordinary ACK
 * (file-send-window.ts).
 *
 * Receiving: `FileReassembler` applies every rule and cap of the reference before it stores a byte — bounds on the
 * claimed size and counts, one sender per transfer, 32 transfers (16 per sender), 128 MiB buffered (plus 256 B per
 * chunk; the reference charges 64), tombstones for failed transfers, 300 s staleness — and hands over a file only when its length and SHA-256
 * match what the sender claimed.
 */
import { createHash, randomUUID } from 'node:crypto';
import { ownBytes } from '../bytes';
import { MeshDecodeError, MeshEncodeError } from './errors';
import { encodeFileChunk, FILE_CHUNK_MAX_STRING_BYTES, FileChunk, fileChunkFromMessage } from './file-chunk-codec';
import { MessageId } from './message-id';
import { ContentType, createMessage, DEFAULT_TTL, MediaMetadata, MeshMessage } from './message';
import { isContentType } from './enums';
import { monotonicNow, nonNegativeOption, positiveIntegerOption } from './options';

/** Chunk size and in-flight window per transport class. `default` is the profile for an unnamed transport. */
export const CHUNK_PROFILES = Object.freeze({
  ble: Object.freeze({ chunkSize: 4096, window: 2 }),
  reticulum: Object.freeze({ chunkSize: 4096, window: 2 }),
  default: Object.freeze({ chunkSize: 32768, window: 4 }),
  wifiDirect: Object.freeze({ chunkSize: 32768, window: 4 }),
  internet: Object.freeze({ chunkSize: 262144, window: 8 }),
  nostr: Object.freeze({ chunkSize: 262144, window: 8 }),
});
export type ChunkProfileName = keyof typeof CHUNK_PROFILES;

export const TRANSPORT_PREFERENCE_KEY = 'transport_preference';
export const ORIGINAL_CONTENT_TYPE_KEY = 'original_content_type';
export const MAX_FILE_SIZE = 100 * 1024 * 1024;
export const MAX_FILE_ASSEMBLIES = 32;
export const MAX_FILE_ASSEMBLIES_PER_SENDER = 16;
export const MAX_BUFFERED_FILE_BYTES = 128 * 1024 * 1024;
/**
 * Bookkeeping charged per stored chunk, so a flood of tiny chunks cannot pin memory the budget does not see. The
 * reference charges 64 B; what a stored chunk really costs here (a Uint8Array and its Map entry, measured with
 * `--expose-gc` on Node 20) is 220–245 B beyond its data, so we charge 256 (docs/mesh-transport.md).
 */
export const FILE_CHUNK_OVERHEAD_BYTES = 256;
export const FILE_STALE_MS = 300_000;
export const MAX_FILE_TOMBSTONES = 1024;
// The receive-side bound on total_chunks assumes at least 1 KiB per chunk, and never less than 1024 chunks.
const MIN_ACCEPTED_CHUNK_BYTES = 1024;
const MIN_TOTAL_CHUNKS_CAP = 1024;
const LAZY_SWEEP_INTERVAL_MS = 1000;

/** The most chunks a receiver with this maximum file size accepts for one file. */
export function maxTotalChunks(maxFileSize = MAX_FILE_SIZE): number {
  return Math.max(MIN_TOTAL_CHUNKS_CAP, Math.floor(maxFileSize / MIN_ACCEPTED_CHUNK_BYTES) + 1);
}

export interface ChunkFileOptions {
  sender: string;
  recipient: string;
  appId: string;
  fileName: string;
  /** Picks chunk size and window from `CHUNK_PROFILES` (default `default`). */
  transport?: ChunkProfileName;
  /** Overrides the profile's chunk size. */
  chunkSize?: number;
  /** Default `file_<uuid>`. */
  fileId?: string;
  /** `media_metadata.mime_type` on chunk 0 (default `application/octet-stream`). */
  mimeType?: string;
  /** What the file is when whole (default `file`); written as `original_content_type` on chunk 0. */
  contentType?: ContentType;
  /** Further media metadata for chunk 0 (duration, dimensions, thumbnail…); name, size and mime are set from the file. */
  mediaMetadata?: Omit<Partial<MediaMetadata>, 'file_name' | 'file_size' | 'mime_type'>;
  /** Default `internet`, as the reference writes. */
  transportPreference?: string;
  /** The receiver's limit this transfer must fit (default 100 MiB). */
  maxFileSize?: number;
  ttl?: number;
  /** Wall-clock milliseconds for the display timestamps (default `Date.now()`). */
  now?: () => number | bigint;
  /** The Lamport value for each chunk in turn (default 0 for every chunk). */
  nextLamport?: () => bigint;
}

export interface FileTransferPlan {
  fileId: string;
  /** Lowercase hex SHA-256 of the whole file. */
  checksum: string;
  totalChunks: number;
  chunkSize: number;
  window: number;
}

/** Split a file into its chunk messages, all at once. */
export function chunkFile(data: Uint8Array, options: ChunkFileOptions): MeshMessage[] {
  const { messages } = planFileChunks(data, options);
  return [...messages];
}

/**
 * Validate and plan a transfer, and produce its messages lazily (one chunk's copy at a time), for files too large to
 * hold twice. Every refusal happens here, before the first message: `EMPTY_FILE`, `FILE_TOO_LARGE`, `BAD_CHUNK_SIZE`,
 * `TOO_MANY_CHUNKS`, `FILE_CHUNK_FIELD_TOO_LONG`, `BAD_CONTENT_TYPE`, and the identifier errors of `createMessage`.
 */
export function planFileChunks(data: Uint8Array, options: ChunkFileOptions): FileTransferPlan & { messages: Iterable<MeshMessage> } {
  if (!(data instanceof Uint8Array)) throw new MeshEncodeError('BAD_FILE', 'file data must be a Uint8Array or Buffer');
  const maxFileSize = positiveIntegerOption(options.maxFileSize, MAX_FILE_SIZE, 'maxFileSize');
  if (data.length === 0) throw new MeshEncodeError('EMPTY_FILE', 'cannot send an empty file');
  if (data.length > maxFileSize) {
    throw new MeshEncodeError('FILE_TOO_LARGE', `file of ${data.length} bytes exceeds the ${maxFileSize}-byte limit`, { size: data.length, limit: maxFileSize });
  }
  const profile = CHUNK_PROFILES[options.transport ?? 'default'];
  if (profile === undefined) throw new MeshEncodeError('BAD_TRANSPORT', `no chunk profile for ${String(options.transport)}`);
  const chunkSize = options.chunkSize ?? profile.chunkSize;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new MeshEncodeError('BAD_CHUNK_SIZE', 'chunk size must be a positive integer', { chunkSize });
  const totalChunks = Math.ceil(data.length / chunkSize);
  const cap = maxTotalChunks(maxFileSize);
  if (totalChunks > cap) {
    throw new MeshEncodeError('TOO_MANY_CHUNKS', `${totalChunks} chunks of ${chunkSize} bytes exceed the receiver's cap of ${cap}; use a larger chunk size`, {
      totalChunks,
      limit: cap,
    });
  }
  const fileId = options.fileId ?? `file_${randomUUID()}`;
  for (const [field, value] of [['fileId', fileId], ['fileName', options.fileName]] as const) {
    if (typeof value !== 'string' || Buffer.byteLength(value, 'utf8') > FILE_CHUNK_MAX_STRING_BYTES) {
      throw new MeshEncodeError('FILE_CHUNK_FIELD_TOO_LONG', `${field} must be a string of at most ${FILE_CHUNK_MAX_STRING_BYTES} UTF-8 bytes`, { field });
    }
  }
  const contentType = options.contentType ?? 'file';
  if (!isContentType(contentType)) throw new MeshEncodeError('BAD_CONTENT_TYPE', `unknown content type ${String(contentType)}`);
  const checksum = createHash('sha256').update(data).digest('hex');
  const now = options.now ?? Date.now;
  const nextLamport = options.nextLamport ?? (() => 0n);
  const fileSize = BigInt(data.length);

  const build = (index: number): MeshMessage => {
    const chunk: FileChunk = {
      file_id: fileId,
      file_name: options.fileName,
      file_size: fileSize,
      total_chunks: totalChunks,
      chunk_index: index,
      chunk_data: data.subarray(index * chunkSize, Math.min(data.length, (index + 1) * chunkSize)),
      file_checksum: checksum,
    };
    const metadata = new Map<string, string>([[TRANSPORT_PREFERENCE_KEY, options.transportPreference ?? 'internet']]);
    if (index === 0) metadata.set(ORIGINAL_CONTENT_TYPE_KEY, contentType);
    return createMessage({
      id: MessageId.random(),
      sender: options.sender,
      recipient: options.recipient,
      app_id: options.appId,
      priority: 'medium',
      ttl: options.ttl ?? DEFAULT_TTL,
      hop_count: 0,
      timestamp: BigInt(now()),
      lamport_clock: nextLamport(),
      content_type: 'file_chunk',
      content: '',
      binary_content: encodeFileChunk(chunk),
      media_metadata:
        index === 0
          ? { ...options.mediaMetadata, mime_type: options.mimeType ?? 'application/octet-stream', file_name: options.fileName, file_size: fileSize }
          : undefined,
      metadata,
      requires_ack: true,
    });
  };
  // Build chunk 0 now so that identifier and metadata errors surface before anything is sent.
  const first = build(0);
  function* messages(): Generator<MeshMessage> {
    yield first;
    for (let i = 1; i < totalChunks; i++) yield build(i);
  }
  return { fileId, checksum, totalChunks, chunkSize, window: profile.window, messages: messages() };
}

export interface FileReassemblerOptions {
  /** Largest file accepted (default 100 MiB). */
  maxFileSize?: number;
  /** Concurrent transfers (default 32). */
  maxAssemblies?: number;
  /** Concurrent transfers per sender (default 16). */
  maxAssembliesPerSender?: number;
  /** Bytes buffered across all transfers, plus 64 per chunk (default 128 MiB; raised to what one largest file needs). */
  maxBufferedBytes?: number;
  /** A transfer without progress for longer than this is dropped and tombstoned (default 300 000 ms). */
  staleMs?: number;
  /** Failed transfer ids remembered (default 1024). */
  maxTombstones?: number;
  /** Milliseconds from any fixed origin; monotonic by default. */
  now?: () => number;
  /** Told about every transfer dropped as stale (from `sweep()` or the periodic sweep inside `push`). */
  onStale?: (transfer: StaleFileTransfer) => void;
}

export interface StaleFileTransfer {
  fileId: string;
  fileName: string;
  sender: string;
  received: number;
  total: number;
}

export type FileReceiveResult =
  | { status: 'progress'; fileId: string; fileName: string; sender: string; received: number; total: number; bytes: number }
  | {
      status: 'complete';
      fileId: string;
      fileName: string;
      sender: string;
      data: Uint8Array;
      checksum: string;
      /** From chunk 0. */
      mediaMetadata?: MediaMetadata;
      /** From chunk 0's `original_content_type`. */
      originalContentType?: string;
    };

export interface FileReassemblerCounters {
  chunks: number;
  completed: number;
  rejected: number;
  failed: number;
  stale: number;
}

interface FileAssembly {
  readonly sender: string;
  readonly fileName: string;
  readonly fileSize: number;
  readonly total: number;
  readonly checksum: string;
  readonly parts: Map<number, Uint8Array>;
  bytes: number;
  lastUpdatedAt: number;
  mediaMetadata?: MediaMetadata;
  originalContentType?: string;
}

/** What a chunk of one file arrives with besides its payload (only chunk 0 carries these). */
export interface FileChunkContext {
  mediaMetadata?: MediaMetadata;
  originalContentType?: string;
}

/**
 * Bounded reassembly of chunked files. `push(message)` takes a `file_chunk` message; `pushChunk` takes an already
 * decoded chunk (after decryption, say). Both return progress or the finished file, and throw `MeshDecodeError`
 * for a chunk they refuse; `details.transferFailed` is true when that refusal ended the whole transfer (its id is then
 * tombstoned and later chunks are refused as `FILE_TRANSFER_FAILED` without a second report).
 * Refusal codes: `FILE_CHUNK_INVALID` (bounds; `details.rule`), `FILE_CHUNK_SENDER_MISMATCH`,
 * `FILE_CHUNK_METADATA_MISMATCH`, `FILE_TRANSFER_LIMIT`, `FILE_SENDER_QUOTA`, `FILE_BUFFER_EXHAUSTED`,
 * `FILE_SIZE_MISMATCH`, `FILE_CHECKSUM_MISMATCH`, `FILE_TRANSFER_FAILED`, `FILE_TRANSFER_COMPLETE` (a late copy of a
 * chunk of a file already delivered), plus the payload codes of file-chunk-codec.ts.
 */
export class FileReassembler {
  private readonly assemblies = new Map<string, FileAssembly>();
  /** hash(file id) → last time a chunk of it was seen; insertion order is eviction order. */
  private readonly tombstones = new Map<string, number>();
  private readonly completedIds = new Map<string, number>();
  private buffered = 0;
  private lastSweepAt: number;
  private readonly maxFileSize: number;
  private readonly totalCap: number;
  private readonly maxAssemblies: number;
  private readonly maxPerSender: number;
  private readonly maxBuffered: number;
  private readonly staleMs: number;
  private readonly maxTombstones: number;
  private readonly now: () => number;
  private readonly onStale: ((t: StaleFileTransfer) => void) | undefined;
  private readonly tally: FileReassemblerCounters = { chunks: 0, completed: 0, rejected: 0, failed: 0, stale: 0 };

  constructor(options: FileReassemblerOptions = {}) {
    this.maxFileSize = positiveIntegerOption(options.maxFileSize, MAX_FILE_SIZE, 'maxFileSize');
    this.totalCap = maxTotalChunks(this.maxFileSize);
    this.maxAssemblies = positiveIntegerOption(options.maxAssemblies, MAX_FILE_ASSEMBLIES, 'maxAssemblies');
    this.maxPerSender = positiveIntegerOption(options.maxAssembliesPerSender, MAX_FILE_ASSEMBLIES_PER_SENDER, 'maxAssembliesPerSender');
    // A budget below what one maximum-size transfer charges would make that size unreachable.
    const minViable = this.maxFileSize + Math.min(this.totalCap, this.maxFileSize) * FILE_CHUNK_OVERHEAD_BYTES;
    this.maxBuffered = Math.max(positiveIntegerOption(options.maxBufferedBytes, MAX_BUFFERED_FILE_BYTES, 'maxBufferedBytes'), minViable);
    this.staleMs = nonNegativeOption(options.staleMs, FILE_STALE_MS, 'staleMs');
    this.maxTombstones = positiveIntegerOption(options.maxTombstones, MAX_FILE_TOMBSTONES, 'maxTombstones');
    this.now = options.now ?? monotonicNow;
    this.onStale = options.onStale;
    this.lastSweepAt = this.now();
  }

  /** Transfers in progress. */
  get size(): number {
    return this.assemblies.size;
  }

  /** Bytes held, including the per-chunk charge. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  get counters(): Readonly<FileReassemblerCounters> {
    return { ...this.tally };
  }

  progress(fileId: string): { sender: string; received: number; total: number; bytes: number } | undefined {
    const a = this.assemblies.get(fileId);
    return a === undefined ? undefined : { sender: a.sender, received: a.parts.size, total: a.total, bytes: a.bytes };
  }

  /** Take one `file_chunk` message. The assembly is bound to `sender` (default `message.sender`). */
  push(message: MeshMessage, options: { sender?: string } = {}): FileReceiveResult {
    let chunk: FileChunk;
    try {
      chunk = fileChunkFromMessage(message);
    } catch (err) {
      this.tally.rejected++;
      throw err;
    }
    const context: FileChunkContext = {};
    if (chunk.chunk_index === 0) {
      if (message.media_metadata !== undefined) context.mediaMetadata = message.media_metadata;
      const original = message.metadata.get(ORIGINAL_CONTENT_TYPE_KEY);
      if (original !== undefined) context.originalContentType = original;
    }
    return this.pushChunk(options.sender ?? message.sender, chunk, context);
  }

  pushChunk(sender: string, chunk: FileChunk, context: FileChunkContext = {}): FileReceiveResult {
    const now = this.now();
    if (now - this.lastSweepAt >= LAZY_SWEEP_INTERVAL_MS) this.sweepAt(now);
    try {
      return this.accept(sender, chunk, context, now);
    } catch (err) {
      this.tally.rejected++;
      throw err;
    }
  }

  /** Drop transfers without progress for `staleMs` (tombstoning them) and expire old tombstones. */
  sweep(): StaleFileTransfer[] {
    return this.sweepAt(this.now());
  }

  /** Abandon a transfer on the application's request; its id is not tombstoned. */
  cancel(fileId: string): boolean {
    const a = this.assemblies.get(fileId);
    if (a === undefined) return false;
    this.release(fileId, a);
    return true;
  }

  private accept(sender: string, chunk: FileChunk, context: FileChunkContext, now: number): FileReceiveResult {
    const { file_id: fileId, chunk_index: index, total_chunks: total } = chunk;
    const length = chunk.chunk_data.length;
    if (total === 0 || index >= total) throw invalid(fileId, 'chunk_index must be below a non-zero total_chunks');
    if (chunk.file_size === 0n || chunk.file_size > BigInt(this.maxFileSize)) throw invalid(fileId, `file_size must be within 1..${this.maxFileSize}`);
    const fileSize = Number(chunk.file_size);
    if (total > this.totalCap || total > fileSize) throw invalid(fileId, `total_chunks must be at most ${this.totalCap} and at most file_size`);
    if (length === 0 || length > fileSize) throw invalid(fileId, 'chunk_data must be non-empty and no larger than file_size');

    const key = hashKey(fileId);
    if (this.tombstones.has(key)) {
      this.tombstones.set(key, now);
      throw refusal('FILE_TRANSFER_FAILED', fileId, 'chunk belongs to a transfer that already failed', false);
    }
    if (this.completedIds.has(key)) {
      this.completedIds.set(key, now);
      throw refusal('FILE_TRANSFER_COMPLETE', fileId, 'chunk belongs to a file already delivered', false);
    }

    let assembly = this.assemblies.get(fileId);
    let replacedCharge = 0;
    if (assembly !== undefined) {
      if (assembly.sender !== sender) throw refusal('FILE_CHUNK_SENDER_MISMATCH', fileId, 'chunk comes from another sender than the transfer', false);
      if (assembly.total !== total || assembly.fileSize !== fileSize || assembly.checksum !== chunk.file_checksum) {
        throw refusal('FILE_CHUNK_METADATA_MISMATCH', fileId, 'total_chunks, file_size or file_checksum differ from the first chunk', false);
      }
      const replaced = assembly.parts.get(index)?.length;
      if (assembly.bytes - (replaced ?? 0) + length > fileSize) throw invalid(fileId, 'received bytes would exceed file_size');
      if (replaced !== undefined) replacedCharge = replaced + FILE_CHUNK_OVERHEAD_BYTES;
    } else {
      if (this.assemblies.size >= this.maxAssemblies) {
        this.fail(fileId, now);
        throw refusal('FILE_TRANSFER_LIMIT', fileId, `${this.maxAssemblies} transfers are already in progress`, true);
      }
      let mine = 0;
      for (const a of this.assemblies.values()) if (a.sender === sender) mine++;
      if (mine >= this.maxPerSender) {
        this.fail(fileId, now);
        throw refusal('FILE_SENDER_QUOTA', fileId, `this sender already has ${this.maxPerSender} transfers in progress`, true);
      }
    }

    if (this.buffered - replacedCharge + length + FILE_CHUNK_OVERHEAD_BYTES > this.maxBuffered) {
      if (assembly !== undefined) this.release(fileId, assembly);
      this.fail(fileId, now);
      throw refusal('FILE_BUFFER_EXHAUSTED', fileId, `buffering this chunk would exceed ${this.maxBuffered} bytes`, true);
    }

    if (assembly === undefined) {
      assembly = { sender, fileName: chunk.file_name, fileSize, total, checksum: chunk.file_checksum, parts: new Map(), bytes: 0, lastUpdatedAt: now };
      this.assemblies.set(fileId, assembly);
    }
    const previous = assembly.parts.get(index);
    if (previous !== undefined) {
      assembly.bytes -= previous.length;
      this.buffered -= previous.length + FILE_CHUNK_OVERHEAD_BYTES;
    }
    assembly.parts.set(index, ownBytes(chunk.chunk_data));
    assembly.bytes += length;
    this.buffered += length + FILE_CHUNK_OVERHEAD_BYTES;
    assembly.lastUpdatedAt = now;
    if (context.mediaMetadata !== undefined) assembly.mediaMetadata = context.mediaMetadata;
    if (context.originalContentType !== undefined) assembly.originalContentType = context.originalContentType;
    this.tally.chunks++;

    if (assembly.parts.size < total) {
      return { status: 'progress', fileId, fileName: assembly.fileName, sender, received: assembly.parts.size, total, bytes: assembly.bytes };
    }
    return this.finish(fileId, assembly, now);
  }

  private finish(fileId: string, a: FileAssembly, now: number): FileReceiveResult {
    // Sized from the bytes actually held: file_size is the sender's claim and never drives an allocation.
    const data = new Uint8Array(a.bytes);
    let at = 0;
    for (let i = 0; i < a.total; i++) {
      const part = a.parts.get(i) as Uint8Array;
      data.set(part, at);
      at += part.length;
    }
    this.release(fileId, a);
    if (data.length !== a.fileSize) {
      this.fail(fileId, now);
      throw refusal('FILE_SIZE_MISMATCH', fileId, `reassembled ${data.length} bytes; the sender claimed ${a.fileSize}`, true);
    }
    const checksum = createHash('sha256').update(data).digest('hex');
    if (checksum !== a.checksum) {
      this.fail(fileId, now);
      throw refusal('FILE_CHECKSUM_MISMATCH', fileId, 'the SHA-256 of the reassembled file differs from the claimed checksum', true);
    }
    remember(this.completedIds, hashKey(fileId), now, this.maxTombstones);
    this.tally.completed++;
    const result: FileReceiveResult = { status: 'complete', fileId, fileName: a.fileName, sender: a.sender, data, checksum };
    if (a.mediaMetadata !== undefined) result.mediaMetadata = a.mediaMetadata;
    if (a.originalContentType !== undefined) result.originalContentType = a.originalContentType;
    return result;
  }

  private sweepAt(now: number): StaleFileTransfer[] {
    this.lastSweepAt = now;
    for (const table of [this.tombstones, this.completedIds]) {
      for (const [key, seen] of table) if (now - seen > this.staleMs) table.delete(key);
    }
    const stale: StaleFileTransfer[] = [];
    for (const [fileId, a] of this.assemblies) {
      if (now - a.lastUpdatedAt > this.staleMs) stale.push({ fileId, fileName: a.fileName, sender: a.sender, received: a.parts.size, total: a.total });
    }
    for (const t of stale) {
      this.release(t.fileId, this.assemblies.get(t.fileId) as FileAssembly);
      this.fail(t.fileId, now);
      this.tally.stale++;
      this.onStale?.(t);
    }
    return stale;
  }

  private release(fileId: string, a: FileAssembly): void {
    this.assemblies.delete(fileId);
    this.buffered -= a.bytes + a.parts.size * FILE_CHUNK_OVERHEAD_BYTES;
  }

  private fail(fileId: string, now: number): void {
    this.tally.failed++;
    remember(this.tombstones, hashKey(fileId), now, this.maxTombstones);
  }
}

/** Ids are keyed by their SHA-256, so a peer's 4 KiB ids cannot grow the tables beyond a fixed size per entry. */
function hashKey(fileId: string): string {
  return createHash('sha256').update(fileId).digest('base64');
}

function remember(table: Map<string, number>, key: string, now: number, capacity: number): void {
  if (table.has(key)) {
    table.set(key, now);
    return;
  }
  table.set(key, now);
  while (table.size > capacity) table.delete(table.keys().next().value as string);
}

function invalid(fileId: string, rule: string): MeshDecodeError {
  return new MeshDecodeError('FILE_CHUNK_INVALID', `file chunk refused: ${rule}`, { fileId, rule, transferFailed: false });
}

function refusal(code: string, fileId: string, message: string, transferFailed: boolean): MeshDecodeError {
  return new MeshDecodeError(code, message, { fileId, transferFailed });
}
