/**
 * Mesh media on its way to the hub: upload with `lib/media`, then the hub message with the returned fragment, under
 * the `message_id` the mesh side determined. While the media service is away the upload is tried again with
 * growing delays, and whoever waits (the mesh ACK of the message, or of a file's last chunk) keeps waiting. An upload
 * the service refuses for good (too large, type not allowed, token refused) becomes a text note in the chat, so the
 * transfer ends and the chat still shows that something was sent.
 */
import type { Logger } from 'pino';
import { jitteredDelay } from '../../../lib/backoff';
import type { ReplyTarget } from '../../../lib/hub/send/compose';
import type { JsonObject } from '../../../lib/hub/json';
import { uploadMedia, type MediaError } from '../../../lib/media';
import type { Clock } from '../../../lib/clock';
import type { HubSends, Settle } from './hub-sends';

export interface UploadJob {
  chatId: string;
  messageId: string;
  /** Fragments before the media one (the sender's label). */
  fragments: JsonObject[];
  replyTo?: ReplyTarget;
  data: Uint8Array;
  name: string;
  mime: string | undefined;
  /** Called once the hub acknowledged the message (e.g. to drop a file's stored chunks). */
  onDelivered?: () => void;
}

export interface HubUploadsOptions {
  mediaUrl: string;
  token: string;
  maxBytes: number;
  clock: Clock;
  logger: Logger;
  sends: HubSends;
  retryMinMs?: number;
  retryMaxMs?: number;
}

interface Running {
  waiters: Settle[];
  attempt: number;
  timer?: unknown;
}

export class HubUploads {
  private readonly running = new Map<string, Running>();
  private readonly abort = new AbortController();
  private stopped = false;
  readonly counters = { uploaded: 0, retried: 0, refused: 0 };

  constructor(private readonly o: HubUploadsOptions) {}

  get pending(): number {
    return this.running.size;
  }

  has(messageId: string): boolean {
    return this.running.has(messageId) || this.o.sends.has(messageId);
  }

  /** Waits for an upload (or its send) already under way; false when there is none. */
  attach(messageId: string, settle: Settle): boolean {
    const r = this.running.get(messageId);
    if (r !== undefined) {
      r.waiters.push(settle);
      return true;
    }
    return this.o.sends.attach(messageId, settle);
  }

  start(job: UploadJob, settle?: Settle): void {
    if (settle !== undefined && this.attach(job.messageId, settle)) return;
    if (this.has(job.messageId) || this.stopped) return;
    const r: Running = { waiters: settle ? [settle] : [], attempt: 0 };
    this.running.set(job.messageId, r);
    void this.attemptUpload(job, r);
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    for (const r of this.running.values()) if (r.timer !== undefined) this.o.clock.clearTimeout(r.timer);
    this.running.clear();
  }

  private async attemptUpload(job: UploadJob, r: Running): Promise<void> {
    r.attempt += 1;
    let fragment: JsonObject;
    try {
      const f = await uploadMedia(Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength), {
        url: this.o.mediaUrl,
        token: this.o.token,
        name: job.name,
        ...(job.mime !== undefined ? { mime: job.mime } : {}),
        maxBytes: this.o.maxBytes,
        signal: this.abort.signal,
        retry: false,
      });
      fragment = { ...f };
      this.counters.uploaded += 1;
    } catch (err) {
      if (this.stopped) return;
      const e = err as MediaError;
      if (e.retryable === true) {
        this.counters.retried += 1;
        const delay = jitteredDelay(r.attempt - 1, { initialMs: this.o.retryMinMs ?? 1000, maxMs: this.o.retryMaxMs ?? 60_000, factor: 2, jitter: 0 }, 0);
        this.o.logger.warn({ code: e.code, attempt: r.attempt, retry_in_ms: delay, hub_message_id: job.messageId }, 'media upload failed; trying again');
        r.timer = this.o.clock.setTimeout(() => {
          r.timer = undefined;
          if (!this.stopped) void this.attemptUpload(job, r);
        }, delay);
        return;
      }
      this.counters.refused += 1;
      this.o.logger.warn({ code: e.code, hub_message_id: job.messageId, name: job.name }, 'the media service refused the upload; a note goes to the chat instead');
      fragment = { kind: 'text', text: `[${job.name} (${job.data.length} bytes) could not be uploaded: ${e.code ?? 'error'}]` };
    }
    if (this.stopped) return;
    this.running.delete(job.messageId);
    const waiters = r.waiters;
    this.o.sends.send({ chatId: job.chatId, messageId: job.messageId, fragments: [...job.fragments, fragment], ...(job.replyTo ? { replyTo: job.replyTo } : {}) }, (delivered) => {
      if (delivered) job.onDelivered?.();
      for (const w of waiters) w(delivered);
    });
  }
}
