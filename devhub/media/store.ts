/**
 * Where uploads land: in memory (the default, for tests and the demo) or in a folder (for large files and for
 * keeping them across restarts, with a JSON sidecar per object). A write is staged and only becomes visible on
 * `commit`, so a failed or refused upload leaves nothing behind.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';

export interface StoredObject {
  key: string;
  name: string;
  mime: string;
  size: number;
  sha256: string;
  disposition: 'inline' | 'attachment';
  user_id: string;
  stored_at: number;
}

export interface StagedWrite {
  /** Resolves once the bytes are accepted (respecting backpressure). */
  write(chunk: Buffer): Promise<void>;
  commit(meta: Omit<StoredObject, 'sha256' | 'size'>): Promise<StoredObject>;
  abort(): Promise<void>;
  readonly size: number;
}

export interface MediaStore {
  stage(key: string): StagedWrite;
  get(key: string): StoredObject | undefined;
  open(key: string): Readable | undefined;
  list(): StoredObject[];
}

export class MemoryMediaStore implements MediaStore {
  private readonly objects = new Map<string, { meta: StoredObject; chunks: Buffer[] }>();

  stage(key: string): StagedWrite {
    const chunks: Buffer[] = [];
    const hash = createHash('sha256');
    let size = 0;
    return {
      write: async (chunk) => {
        // A copy: the chunk is a view into a request buffer.
        chunks.push(Buffer.from(chunk));
        hash.update(chunk);
        size += chunk.length;
      },
      commit: async (meta) => {
        const object = { ...meta, key, size, sha256: hash.digest('hex') };
        this.objects.set(key, { meta: object, chunks });
        return object;
      },
      abort: async () => {
        chunks.length = 0;
      },
      get size() {
        return size;
      },
    };
  }

  get(key: string): StoredObject | undefined {
    return this.objects.get(key)?.meta;
  }

  open(key: string): Readable | undefined {
    const entry = this.objects.get(key);
    return entry ? Readable.from(entry.chunks) : undefined;
  }

  list(): StoredObject[] {
    return [...this.objects.values()].map((o) => o.meta);
  }
}

const KEY = /^[0-9A-Z]{26}(\.[a-z0-9]{1,16})?$/;

export class DirectoryMediaStore implements MediaStore {
  constructor(private readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
  }

  private file(key: string): string {
    return path.join(this.dir, key);
  }

  stage(key: string): StagedWrite {
    const partial = this.file(`${key}.part`);
    const out = fs.createWriteStream(partial, { flags: 'wx' });
    const hash = createHash('sha256');
    let size = 0;
    let failure: Error | undefined;
    out.on('error', (err) => {
      failure = err;
    });
    const finish = (): Promise<void> =>
      new Promise((resolve, reject) => {
        if (failure) return reject(failure);
        out.end(() => (failure ? reject(failure) : resolve()));
      });
    return {
      write: (chunk) => {
        if (failure) return Promise.reject(failure);
        hash.update(chunk);
        size += chunk.length;
        if (out.write(chunk)) return Promise.resolve();
        return new Promise((resolve, reject) => {
          const onDrain = (): void => {
            out.off('error', onError);
            resolve();
          };
          const onError = (err: Error): void => {
            out.off('drain', onDrain);
            reject(err);
          };
          out.once('drain', onDrain);
          out.once('error', onError);
        });
      },
      commit: async (meta) => {
        await finish();
        const object = { ...meta, key, size, sha256: hash.digest('hex') };
        await fs.promises.writeFile(this.file(`${key}.json`), JSON.stringify(object));
        await fs.promises.rename(partial, this.file(key));
        return object;
      },
      abort: async () => {
        out.destroy();
        await fs.promises.rm(partial, { force: true });
      },
      get size() {
        return size;
      },
    };
  }

  get(key: string): StoredObject | undefined {
    if (!KEY.test(key)) return undefined;
    try {
      return JSON.parse(fs.readFileSync(this.file(`${key}.json`), 'utf8')) as StoredObject;
    } catch {
      return undefined;
    }
  }

  open(key: string): Readable | undefined {
    if (!this.get(key)) return undefined;
    return fs.createReadStream(this.file(key));
  }

  list(): StoredObject[] {
    return fs
      .readdirSync(this.dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => this.get(f.slice(0, -'.json'.length)))
      .filter((o): o is StoredObject => o !== undefined);
  }
}
