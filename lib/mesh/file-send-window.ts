/**
 * The sender's side of a chunked transfer: at most `window` chunks in flight, the window advancing on each chunk's
 * ordinary ACK (mesh-reference-facts.md §6). Keeps the outbox from filling with a whole file at once and adapts to
 * what the transport actually delivers. Pure bookkeeping: sending, retrying and ACK matching stay with the caller.
 */
import { MeshEncodeError } from './errors';
import type { MeshMessage, MessageIdLike } from './message';
import { MessageId } from './message-id';

export class FileSendWindow {
  private readonly chunks: readonly MeshMessage[];
  private readonly window: number;
  private nextUnsent = 0;
  private readonly inFlightIds = new Set<string>();
  private readonly ackedIds = new Set<string>();
  private readonly known: ReadonlySet<string>;

  /** `chunks` in send order (as `chunkFile` returns them); `window` from the transfer's `CHUNK_PROFILES` entry. */
  constructor(chunks: readonly MeshMessage[], window: number) {
    if (!Number.isInteger(window) || window < 1) throw new MeshEncodeError('BAD_OPTION', 'window must be a positive integer', { window });
    this.chunks = chunks;
    this.window = window;
    this.known = new Set(chunks.map((c) => c.id.toString()));
  }

  get total(): number {
    return this.chunks.length;
  }

  get inFlight(): number {
    return this.inFlightIds.size;
  }

  get acknowledged(): number {
    return this.ackedIds.size;
  }

  /** Every chunk acknowledged. */
  get done(): boolean {
    return this.ackedIds.size === this.chunks.length;
  }

  /** The chunks that may go out now; each is counted in flight from here on. */
  next(): MeshMessage[] {
    const batch: MeshMessage[] = [];
    while (this.inFlightIds.size < this.window && this.nextUnsent < this.chunks.length) {
      const chunk = this.chunks[this.nextUnsent++];
      this.inFlightIds.add(chunk.id.toString());
      batch.push(chunk);
    }
    return batch;
  }

  /** Record a chunk's ACK (by the acked message id); true when it freed a window slot. */
  acknowledge(id: MessageIdLike | string): boolean {
    const key = canonical(id);
    if (key === undefined || !this.known.has(key)) return false;
    this.ackedIds.add(key);
    return this.inFlightIds.delete(key);
  }

  /** A chunk failed for good (retries exhausted): free its slot; the caller decides whether the transfer goes on. */
  fail(id: MessageIdLike | string): boolean {
    const key = canonical(id);
    return key !== undefined && this.inFlightIds.delete(key);
  }
}

/** Any UUID spelling (an `ack_for` value, say) to the canonical form; undefined when it is not a UUID. */
function canonical(id: MessageIdLike | string): string | undefined {
  if (typeof id !== 'string') return id.toString();
  try {
    return MessageId.parse(id).toString();
  } catch {
    return undefined;
  }
}
