/**
 * Chunked files from the mesh, on their way to the hub, kept so that nothing ACKed is ever lost.
 *
 * The sender's window only advances on each chunk's ACK (mesh-reference-facts.md §6), so every chunk but the last is
 * ACKed as soon as it is taken over, and taken over means written to the store: the chunk's frame goes to a durable
 * queue before `accept` returns. The chunks of a file stay there until the file's hub message is acknowledged
 * (`release`); after a crash `open` feeds them through a fresh reassembler again and hands back the files that were
 * already whole, so their upload is simply redone. `lib/mesh`'s `FileReassembler` applies every bound and check of
 * the reference (sizes, counts, one sender, quotas, SHA-256) before a byte is kept.
 */
import { decodeFrame, encodeFrame } from '../../../lib/mesh/frame';
import { FileReassembler, type FileReceiveResult } from '../../../lib/mesh/chunked-file';
import { fileChunkFromMessage } from '../../../lib/mesh/file-chunk-codec';
import type { MediaMetadata, MeshMessage, MessageIdLike } from '../../../lib/mesh/message';
import type { Queue, Store } from '../../../lib/store';

export const FILE_CHUNKS_QUEUE = 'hub-bridge.file-chunks';

export interface WholeFile {
  fileId: string;
  fileName: string;
  sender: string;
  data: Uint8Array;
  mediaMetadata: MediaMetadata | undefined;
  originalContentType: string | undefined;
  /** The id of chunk 0, which names the file's hub message. */
  firstChunkId: MessageIdLike;
  /** The mesh message of the last chunk taken (the one whose ACK waits for the hub). */
  lastChunk: MeshMessage;
}

export type IntakeResult = { status: 'progress'; fileId: string } | { status: 'complete'; file: WholeFile };

export interface FileIntakeOptions {
  maxFileSize: number;
  now?: () => number;
  onStale?: (fileId: string) => void;
}

interface Held {
  seqs: number[];
  firstChunkId?: MessageIdLike;
}

export class FileIntake {
  private readonly queue: Queue;
  private readonly reassembler: FileReassembler;
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly store: Store,
    options: FileIntakeOptions,
  ) {
    // A file of maxFileSize in 1 KiB chunks (the smallest the reassembler accepts) must fit.
    this.queue = store.queue(FILE_CHUNKS_QUEUE, { capacity: Math.max(4096, Math.ceil(options.maxFileSize / 1024) * 4), overflow: 'reject' });
    this.reassembler = new FileReassembler({
      maxFileSize: options.maxFileSize,
      ...(options.now ? { now: options.now } : {}),
      onStale: (t) => {
        this.drop(t.fileId);
        options.onStale?.(t.fileId);
      },
    });
  }

  /** Chunks held for files not yet at the hub. */
  get depth(): number {
    return this.queue.size();
  }

  get counters() {
    return this.reassembler.counters;
  }

  /** Replays what the store holds; returns the files that were already whole (their hub message is still owed). */
  open(): WholeFile[] {
    const whole: WholeFile[] = [];
    for (const item of this.queue.peek()) {
      let message: MeshMessage;
      try {
        message = decodeFrame(item.value as Uint8Array);
      } catch {
        this.queue.remove(item.seq);
        continue;
      }
      try {
        const result = this.take(message, item.seq);
        if (result.status === 'complete') whole.push(result.file);
      } catch {
        this.queue.remove(item.seq);
      }
    }
    return whole;
  }

  /**
   * Takes one `file_chunk` message; it is durable when this returns. Throws `MeshDecodeError` for a chunk the
   * reassembler refuses (`FILE_TRANSFER_COMPLETE` for a late copy of a file already whole), and then nothing is kept.
   */
  accept(message: MeshMessage): IntakeResult {
    const chunk = fileChunkFromMessage(message);
    const seq = this.queue.push(encodeFrame(message, 'binary'));
    try {
      return this.take(message, seq, chunk.chunk_index);
    } catch (err) {
      this.queue.remove(seq);
      if ((err as { details?: { transferFailed?: boolean } }).details?.transferFailed) this.drop(chunk.file_id);
      throw err;
    }
  }

  /** The file's hub message is acknowledged: its chunks are no longer needed. */
  release(fileId: string): void {
    this.drop(fileId);
  }

  sweep(): void {
    this.reassembler.sweep();
  }

  private take(message: MeshMessage, seq: number, index = fileChunkFromMessage(message).chunk_index): IntakeResult {
    const result: FileReceiveResult = this.reassembler.push(message);
    const held = this.held.get(result.fileId) ?? { seqs: [] };
    held.seqs.push(seq);
    if (index === 0) held.firstChunkId = message.id;
    this.held.set(result.fileId, held);
    if (result.status === 'progress') return { status: 'progress', fileId: result.fileId };
    return {
      status: 'complete',
      file: {
        fileId: result.fileId,
        fileName: result.fileName,
        sender: result.sender,
        data: result.data,
        mediaMetadata: result.mediaMetadata,
        originalContentType: result.originalContentType,
        firstChunkId: held.firstChunkId ?? message.id,
        lastChunk: message,
      },
    };
  }

  private drop(fileId: string): void {
    const held = this.held.get(fileId);
    if (!held) return;
    this.held.delete(fileId);
    this.store.transaction(() => {
      for (const seq of held.seqs) this.queue.remove(seq);
    });
  }
}
