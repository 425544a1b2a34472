/**
 * A few fixed buffers that a file is read into, each lent to the socket and given back once the socket has flushed
 * it. Reading a file through fresh 64 KiB allocations leaves every chunk as garbage until V8 next collects, which on
 * Node 20 lets a process grow by some 32 MiB per upload whatever the file's size; with the pool the upload's memory
 * is the pool, and nothing else.
 */

export interface LentChunk {
  bytes: Uint8Array;
  /** Gives the buffer back; the bytes must not be touched afterwards. Safe to call more than once. */
  release(): void;
}

export class ChunkPool {
  private readonly free: Buffer[] = [];
  private readonly waiting: ((buffer: Buffer) => void)[] = [];

  constructor(count: number, readonly chunkBytes: number) {
    for (let i = 0; i < count; i++) this.free.push(Buffer.allocUnsafe(chunkBytes));
  }

  /** A free buffer, waiting for one to come back when all are lent. */
  take(): Promise<Buffer> {
    const buffer = this.free.pop();
    if (buffer) return Promise.resolve(buffer);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The first `length` bytes of a taken buffer, to hand on; the buffer comes back on `release()`. */
  lend(buffer: Buffer, length: number): LentChunk {
    let returned = false;
    return {
      bytes: buffer.subarray(0, length),
      release: () => {
        if (returned) return;
        returned = true;
        this.give(buffer);
      },
    };
  }

  /** Returns a taken buffer that was not lent out. */
  give(buffer: Buffer): void {
    const next = this.waiting.shift();
    if (next) next(buffer);
    else this.free.push(buffer);
  }
}
