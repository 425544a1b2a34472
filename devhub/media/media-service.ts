/**
 * The media HTTP service (guide §15): `POST /media/upload` (one multipart part named `file`, streamed to the store),
 * `GET /health`, and `GET /media/<key>` serving what was stored with the disposition of §15.5. Every answer uses the
 * `{code, msg, data?}` envelope with the HTTP status of the error catalogue (§15.6).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HubContext } from '../context';
import { dispositionFor, fileName, inferKind, mimeAllowed } from './kind';
import { boundaryOf, MultipartError, MultipartParser } from './multipart';
import { mayOverride, sniffMime, SNIFF_BYTES } from './sniff';
import { DirectoryMediaStore, MemoryMediaStore, type MediaStore, type StagedWrite, type StoredObject } from './store';
import type { MediaObjectInfo } from '../types';

class UploadRefusal {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly msg: string,
  ) {}
}

/** Bytes of multipart framing tolerated above the file limit before a declared Content-Length is refused outright. */
const FRAMING_SLACK_BYTES = 64 * 1024;
/** After an early refusal the rest of the body is read and discarded up to this much, so the client sees the answer. */
const DISCARD_LIMIT_BYTES = 16 * 1024 * 1024;

export class MediaService {
  private readonly store: MediaStore | undefined;
  private base = '';

  constructor(private readonly ctx: HubContext) {
    const storage = ctx.config.media.storage;
    this.store = storage === 'none' ? undefined : storage === 'memory' ? new MemoryMediaStore() : new DirectoryMediaStore(storage.dir);
  }

  /** The service's own base URL (known once its listener is bound). */
  setBaseUrl(url: string): void {
    this.base = url;
  }

  private publicBase(): string {
    return (this.ctx.config.media.public_base_url ?? this.base).replace(/\/+$/, '');
  }

  /** Handles the request if it is a media route; false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? '/', 'http://media.invalid');
    const route = url.pathname;
    if (route !== '/health' && route !== '/media/upload' && !route.startsWith('/media/')) return false;
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'Access-Control-Allow-Methods': 'GET, POST, OPTIONS', 'Access-Control-Allow-Headers': 'Authorization, Content-Type' });
      res.end();
      return true;
    }
    if (route === '/health') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return this.reply(res, 405, 40501, 'method not allowed'), true;
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 2 });
      res.end(req.method === 'HEAD' ? undefined : 'ok');
      return true;
    }
    if (route === '/media/upload') {
      if (req.method !== 'POST') return this.reply(res, 405, 40501, 'method not allowed'), true;
      this.upload(req, res).catch((err: unknown) => {
        this.ctx.log('error', 'media upload crashed', { error: (err as Error).message });
        if (!res.headersSent) this.reply(res, 500, 50001, 'upload failed');
      });
      return true;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return this.reply(res, 405, 40501, 'method not allowed'), true;
    this.serve(decodeURIComponent(route.slice('/media/'.length)), req, res);
    return true;
  }

  list(): MediaObjectInfo[] {
    return (this.store?.list() ?? []).map((o) => this.info(o));
  }

  private info(o: StoredObject): MediaObjectInfo {
    return { key: o.key, url: `${this.publicBase()}/media/${o.key}`, name: o.name, mime: o.mime, size: o.size, sha256: o.sha256, user_id: o.user_id, stored_at: o.stored_at };
  }

  private reply(res: ServerResponse, status: number, code: number, msg: string, data?: unknown): void {
    const body = JSON.stringify(data === undefined ? { code, msg } : { code, msg, data });
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }

  /** Answers now and swallows the rest of the body (up to a bound), so the client reads the answer instead of a reset. */
  private refuseEarly(req: IncomingMessage, res: ServerResponse, refusal: UploadRefusal): void {
    res.setHeader('Connection', 'close');
    this.reply(res, refusal.status, refusal.code, refusal.msg);
    let discarded = 0;
    req.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > DISCARD_LIMIT_BYTES) req.destroy();
    });
    req.resume();
  }

  private authenticate(req: IncomingMessage): string {
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
    if (!match) throw new UploadRefusal(401, 40101, 'missing Bearer token');
    const user = this.ctx.directory.authenticate(match[1]);
    if (!user) throw new UploadRefusal(401, 40101, 'invalid token');
    return user.id;
  }

  private async upload(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const limit = this.ctx.config.media.max_size_bytes;
    let userId: string;
    let boundary: string;
    try {
      userId = this.authenticate(req);
      if (!this.store) throw new UploadRefusal(503, 50301, 'storage not configured');
      const fault = this.ctx.faults.takeMediaFailure();
      if (fault) throw new UploadRefusal(fault.status, fault.code, fault.msg);
      const found = boundaryOf(req.headers['content-type']);
      if (!found) throw new UploadRefusal(400, 40001, 'missing file: the request is not multipart/form-data with a boundary');
      boundary = found;
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > limit + FRAMING_SLACK_BYTES) {
        throw new UploadRefusal(413, 41301, `upload too large: ${declared} bytes (limit ${limit})`);
      }
    } catch (err) {
      if (err instanceof UploadRefusal) return this.refuseEarly(req, res, err);
      throw err;
    }
    const store = this.store!;
    const parser = new MultipartParser(boundary);
    let staged: StagedWrite | undefined;
    let key = '';
    let part: { name: string; ext: string; declared: string } | undefined;
    let inFile = false;
    let fileDone = false;
    let head = Buffer.alloc(0);
    try {
      // Not destroyed on an early exit: a refusal mid-body still has to reach the client (refuseEarly).
      for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        for (const event of parser.push(chunk)) {
          if (event.type === 'part') {
            inFile = !fileDone && staged === undefined && event.headers.name === 'file';
            if (inFile) {
              const { name, ext } = fileName(event.headers.filename);
              part = { name, ext, declared: event.headers.contentType ?? '' };
              key = `${this.ctx.ids.ulid()}${ext}`;
              staged = store.stage(key);
            }
          } else if (event.type === 'data' && inFile) {
            if (staged!.size + event.data.length > limit) {
              throw new UploadRefusal(413, 41301, `upload too large: ${staged!.size + event.data.length} bytes (limit ${limit})`);
            }
            if (head.length < SNIFF_BYTES) head = Buffer.concat([head, event.data.subarray(0, SNIFF_BYTES - head.length)]);
            await staged!.write(event.data);
          } else if (event.type === 'part-end' && inFile) {
            inFile = false;
            fileDone = true;
          }
        }
      }
      parser.end();
      if (!staged || !part) throw new UploadRefusal(400, 40001, 'missing file: no multipart part named "file"');
      if (staged.size === 0) throw new UploadRefusal(400, 40002, 'empty upload');
      const mime = mayOverride(part.declared) ? sniffMime(head) : part.declared.trim();
      if (!mimeAllowed(mime, this.ctx.config.media.allowed_mime_prefixes)) throw new UploadRefusal(415, 41501, `mime type not allowed: ${mime}`);
      let stored: StoredObject;
      try {
        stored = await staged.commit({ key, name: part.name, mime, disposition: dispositionFor(mime), user_id: userId, stored_at: this.ctx.now() });
      } catch (err) {
        this.ctx.log('error', 'media store failed', { error: (err as Error).message });
        throw new UploadRefusal(500, 50001, 'upload failed');
      }
      const info = this.info(stored);
      this.ctx.events.emit('upload', info);
      this.reply(res, 200, 0, 'ok', { kind: inferKind(mime), url: info.url, name: stored.name, mime, size: stored.size });
    } catch (err) {
      await staged?.abort().catch(() => undefined);
      if (err instanceof MultipartError) return this.refuseEarly(req, res, new UploadRefusal(400, 40001, `missing file: ${err.message}`));
      if (err instanceof UploadRefusal) return this.refuseEarly(req, res, err);
      if (req.destroyed || req.readableAborted) return; // the client went away mid-upload
      throw err;
    }
  }

  private serve(key: string, req: IncomingMessage, res: ServerResponse): void {
    const object = this.store?.get(key);
    const stream = object ? this.store!.open(key) : undefined;
    if (!object || !stream) return this.reply(res, 404, 40401, 'not found');
    const disposition = `${object.disposition}; filename*=UTF-8''${encodeURIComponent(object.name)}`;
    res.writeHead(200, {
      'Content-Type': object.mime,
      'Content-Length': object.size,
      'Content-Disposition': disposition,
      'X-Content-Type-Options': 'nosniff',
    });
    if (req.method === 'HEAD') {
      stream.destroy();
      res.end();
      return;
    }
    stream.pipe(res);
  }
}
