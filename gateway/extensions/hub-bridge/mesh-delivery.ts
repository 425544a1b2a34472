/**
 * Delivers one to-mesh job: its text as one mesh message, then each media fragment fetched from the hub and sent as
 * a chunked file (`lib/mesh` `planFileChunks` + `FileSendWindow`: at most the profile's window of chunks unacked,
 * the window advancing on each chunk's ACK). Done means the recipient ACKed every part; what was ACKed is remembered
 * in the job's progress, so a retry only sends what is still missing. Media the mesh cannot carry (too large, gone)
 * is replaced by a short text note, so the recipient still learns it exists.
 */
import type { Logger } from 'pino';
import { planFileChunks, CHUNK_PROFILES } from '../../../lib/mesh/chunked-file';
import { FileSendWindow } from '../../../lib/mesh/file-send-window';
import type { MeshMessage } from '../../../lib/mesh/message';
import type { MeshApi } from '../../router';
import type { ChunkProfileSetting } from './config-schema';
import { HubBridgeError } from './errors';
import { contentTypeFor, mediaNote, originMetadata, textMessageFor, type MediaRef, type ToMeshJob } from './hub-to-mesh';
import { fetchMedia } from './media-fetch';
import { fileIdForHubMedia, meshIdForHubMessage } from './message-ids';
import type { DeliveryOutcome } from './to-mesh-queue';

export interface MeshDeliveryOptions {
  mesh: MeshApi;
  logger: Logger;
  maxFetchBytes: number;
  fetchTimeoutMs: number;
  fetchDeadlineMs?: number;
  chunkProfile: ChunkProfileSetting;
  /** Sends of one chunk without an ACK before the job's attempt counts as failed. */
  chunkTries?: number;
  now: () => number;
}

interface MediaProgress {
  chunks?: MeshMessage[];
  window?: number;
  acked?: Set<number>;
  done?: boolean;
}

interface Progress {
  textDone?: boolean;
  media?: MediaProgress[];
}

type SendResult = 'acked' | 'no_ack' | 'no_route';

const CHUNK_TRIES = 3;

export class MeshDelivery {
  constructor(private readonly o: MeshDeliveryOptions) {}

  async deliver(job: ToMeshJob, raw: Record<string, unknown>, signal: AbortSignal): Promise<DeliveryOutcome> {
    const progress = raw as Progress;
    const address = this.o.mesh.address;
    if (!progress.textDone && (job.text !== '' || job.media.length === 0)) {
      const result = await this.sendOnce(textMessageFor(job, address));
      if (result !== 'acked') return retry(result);
      progress.textDone = true;
    }
    progress.media ??= job.media.map(() => ({}));
    for (let i = 0; i < job.media.length; i++) {
      if (signal.aborted) return { status: 'retry', attempt: false, reason: 'stopping' };
      const p = progress.media[i]!;
      if (p.done) continue;
      const outcome = await this.deliverMedia(job, i, job.media[i]!, p, signal);
      if (outcome.status !== 'done') return outcome;
      p.done = true;
      // What was sent is acknowledged: the bytes need not stay in memory for the rest of the job.
      delete p.chunks;
    }
    return { status: 'done' };
  }

  private async deliverMedia(job: ToMeshJob, index: number, ref: MediaRef, p: MediaProgress, signal: AbortSignal): Promise<DeliveryOutcome> {
    if (p.chunks === undefined) {
      if (ref.size !== undefined && ref.size > this.o.maxFetchBytes) return this.note(job, index, ref, `larger than ${this.o.maxFetchBytes} bytes`);
      let fetched;
      try {
        fetched = await fetchMedia(ref.url, { maxBytes: this.o.maxFetchBytes, timeoutMs: this.o.fetchTimeoutMs, deadlineMs: this.o.fetchDeadlineMs, signal });
      } catch (err) {
        const e = err as HubBridgeError;
        this.o.logger.debug({ code: e.code, hub_message_id: job.hubMessageId }, 'hub media fetch failed');
        if (e.details?.retryable === true) return { status: 'retry', attempt: true, reason: e.code };
        return this.note(job, index, ref, e.code === 'MEDIA_TOO_LARGE' ? `larger than ${this.o.maxFetchBytes} bytes` : 'it could not be fetched');
      }
      if (fetched.data.length === 0) return this.note(job, index, ref, 'it is empty');
      const plan = planFileChunks(fetched.data, {
        sender: this.o.mesh.address,
        recipient: job.recipient,
        appId: job.appId,
        fileName: ref.name ?? `attachment-${index + 1}`,
        transport: this.o.chunkProfile,
        fileId: fileIdForHubMedia(job.hubMessageId, index, job.recipient),
        mimeType: ref.mime ?? fetched.mime ?? 'application/octet-stream',
        contentType: contentTypeFor(ref.kind),
        mediaMetadata: mediaExtras(ref),
        maxFileSize: Math.max(this.o.maxFetchBytes, fetched.data.length),
        now: () => Math.trunc(job.emittedAt),
      });
      const origin = originMetadata(job);
      p.chunks = [...plan.messages].map((m) => {
        // Marked like every message a bridge re-originates, so that no bridge takes the file back to a hub.
        for (const [k, v] of Object.entries(origin)) m.metadata.set(k, v);
        return m;
      });
      p.window = plan.window;
      p.acked = new Set();
    }
    return this.sendChunks(p, signal);
  }

  private async sendChunks(p: MediaProgress, signal: AbortSignal): Promise<DeliveryOutcome> {
    const chunks = p.chunks!;
    const acked = p.acked!;
    const todo = chunks.filter((_, i) => !acked.has(i));
    const index = new Map(chunks.map((c, i) => [c.id.toString(), i]));
    const window = new FileSendWindow(todo, p.window ?? CHUNK_PROFILES.ble.window);
    let failure: SendResult | undefined;
    const inFlight = new Set<Promise<void>>();
    const launch = (chunk: MeshMessage): void => {
      const run = this.sendWithTries(chunk, signal).then((result) => {
        inFlight.delete(run);
        if (result === 'acked') {
          window.acknowledge(chunk.id);
          acked.add(index.get(chunk.id.toString())!);
        } else {
          window.fail(chunk.id);
          failure ??= result;
        }
      });
      inFlight.add(run);
    };
    while (!window.done && failure === undefined && !signal.aborted) {
      for (const chunk of window.next()) launch(chunk);
      if (inFlight.size === 0) break;
      await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    if (failure !== undefined) return retry(failure);
    if (!window.done) return { status: 'retry', attempt: false, reason: 'stopping' };
    return { status: 'done' };
  }

  private async sendWithTries(message: MeshMessage, signal: AbortSignal): Promise<SendResult> {
    let result: SendResult = 'no_ack';
    for (let i = 0; i < (this.o.chunkTries ?? CHUNK_TRIES) && !signal.aborted; i++) {
      result = await this.sendOnce(message);
      if (result !== 'no_ack') return result;
    }
    return result;
  }

  private async note(job: ToMeshJob, index: number, ref: MediaRef, why: string): Promise<DeliveryOutcome> {
    const base = textMessageFor({ ...job, text: mediaNote(ref, why), replyTo: undefined }, this.o.mesh.address);
    const message: MeshMessage = { ...base, id: meshIdForHubMessage(`${job.hubMessageId}#${index}`, job.recipient) };
    const result = await this.sendOnce(message);
    return result === 'acked' ? { status: 'done' } : retry(result);
  }

  private async sendOnce(message: MeshMessage): Promise<SendResult> {
    try {
      const outcome = await this.o.mesh.send(message);
      if (!outcome.ack) return 'acked';
      return (await outcome.ack) ? 'acked' : 'no_ack';
    } catch (err) {
      if ((err as { code?: string }).code === 'NO_ROUTE') return 'no_route';
      throw err;
    }
  }
}

function retry(result: SendResult): DeliveryOutcome {
  return result === 'no_route' ? { status: 'retry', attempt: false, reason: 'no neighbour is connected' } : { status: 'retry', attempt: true, reason: 'no ACK from the recipient' };
}

function mediaExtras(ref: MediaRef): { width?: number; height?: number; duration_ms?: bigint } {
  const out: { width?: number; height?: number; duration_ms?: bigint } = {};
  if (ref.width !== undefined && Number.isInteger(ref.width) && ref.width >= 0) out.width = ref.width;
  if (ref.height !== undefined && Number.isInteger(ref.height) && ref.height >= 0) out.height = ref.height;
  if (ref.duration !== undefined && Number.isInteger(ref.duration) && ref.duration >= 0) out.duration_ms = BigInt(ref.duration);
  return out;
}
