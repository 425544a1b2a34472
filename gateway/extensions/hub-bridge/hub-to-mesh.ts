/**
 * A hub message as what goes into the mesh (docs/hub-bridge.md "Hub → mesh"): one job per recipient, holding the
 * joined text and the media fragments to fetch and send as chunked files. Jobs are plain JSON, because they wait in
 * the durable to-mesh queue until the recipient ACKs them. The mesh message of a job is re-originated by the gateway
 * (its address as sender, gateway contract §7 item 11) and says where it came from in its metadata, so that no
 * bridge takes it back to a hub.
 */
import type { InboundMessage } from '../../../lib/hub/events';
import { cutUtf8 } from '../../../lib/text-cut';
import type { Fragment } from '../../../lib/hub/fragments';
import type { MediaFragment } from '../../../lib/media/fragment';
import { createMessage, DEFAULT_TTL, type MeshMessage } from '../../../lib/mesh/message';
import type { ContentType } from '../../../lib/mesh/message';
import { HUB_CHAT_ID_KEY, HUB_MESSAGE_ID_KEY, HUB_SENDER_KEY, HUB_SENDER_NAME_KEY } from './mesh-to-hub';
import { meshIdForHubMessage, meshIdFromHubMessageId } from './message-ids';
import type { MeshTarget } from './routes';

/** A media fragment of a hub message, as a to-mesh job stores it (the hub's own fields, §10.5). */
export type MediaRef = MediaFragment;

export interface ToMeshJob {
  v: 1;
  hubMessageId: string;
  chatId: string;
  senderId: string;
  senderName?: string;
  text: string;
  media: MediaRef[];
  /** The hub message replied to, when there is one. */
  replyTo?: string;
  recipient: string;
  appId: string;
  emittedAt: number;
}

const MEDIA_KINDS = new Set(['image', 'video', 'audio', 'file']);

/** Cuts `text` to at most `maxBytes` UTF-8 bytes at a grapheme boundary, marking the cut with an ellipsis. */
export const clampText = cutUtf8;

function mediaRef(f: Fragment): MediaRef | undefined {
  if (!MEDIA_KINDS.has(f.kind) || typeof f.url !== 'string' || f.url === '') return undefined;
  const ref: MediaRef = { kind: f.kind, url: f.url };
  for (const key of ['name', 'mime'] as const) if (f[key] !== undefined) ref[key] = f[key];
  for (const key of ['size', 'width', 'height', 'duration'] as const) if (f[key] !== undefined) ref[key] = f[key];
  return ref;
}

export function jobsFor(message: InboundMessage, targets: readonly MeshTarget[], now: number, maxTextBytes: number): ToMeshJob[] {
  const media = message.fragments.map(mediaRef).filter((m): m is MediaRef => m !== undefined);
  const text = clampText(message.text, maxTextBytes);
  return targets.map((t) => {
    const job: ToMeshJob = {
      v: 1,
      hubMessageId: message.messageId,
      chatId: message.chatId,
      senderId: message.sender.id,
      text,
      media,
      recipient: t.recipient,
      appId: t.appId,
      emittedAt: message.emittedAt ?? now,
    };
    if (message.sender.nickName) job.senderName = message.sender.nickName;
    if (message.replyToMessageId !== undefined) job.replyTo = message.replyToMessageId;
    return job;
  });
}

export function parseJob(value: unknown): ToMeshJob | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const job = JSON.parse(value) as ToMeshJob;
    if (job?.v !== 1 || typeof job.hubMessageId !== 'string' || typeof job.recipient !== 'string' || !Array.isArray(job.media)) return undefined;
    return job;
  } catch {
    return undefined;
  }
}

function origin(job: ToMeshJob): Record<string, string> {
  const metadata: Record<string, string> = { [HUB_MESSAGE_ID_KEY]: job.hubMessageId, [HUB_CHAT_ID_KEY]: job.chatId, [HUB_SENDER_KEY]: job.senderId };
  if (job.senderName !== undefined) metadata[HUB_SENDER_NAME_KEY] = job.senderName;
  return metadata;
}

/** The mesh id a hub message replied to had (or has) for this recipient. */
function replyId(job: ToMeshJob) {
  if (job.replyTo === undefined) return undefined;
  return meshIdFromHubMessageId(job.replyTo) ?? meshIdForHubMessage(job.replyTo, job.recipient);
}

/** The text message of a job (same id however often and by whichever gateway it is built). */
export function textMessageFor(job: ToMeshJob, gatewayAddress: string): MeshMessage {
  const reply = replyId(job);
  return createMessage({
    id: meshIdForHubMessage(job.hubMessageId, job.recipient),
    sender: gatewayAddress,
    recipient: job.recipient,
    app_id: job.appId,
    priority: 'medium',
    ttl: DEFAULT_TTL,
    hop_count: 0,
    timestamp: BigInt(Math.trunc(job.emittedAt)),
    content: job.text,
    metadata: origin(job),
    requires_ack: true,
    ...(reply !== undefined ? { reply_to_msg: reply } : {}),
  });
}

/** What a fetched hub media fragment is once whole on the mesh side (`original_content_type` of chunk 0). */
export function contentTypeFor(kind: string): ContentType {
  return kind === 'image' || kind === 'video' || kind === 'audio' ? kind : 'file';
}

/** A note in place of media the mesh cannot carry (too large, gone): the recipient still learns it exists. */
export function mediaNote(ref: MediaRef, why: string): string {
  const size = ref.size !== undefined ? `, ${ref.size} bytes` : '';
  return `[${ref.kind} ${ref.name ?? 'attachment'}${size} not sent over the mesh: ${why}]`;
}

export { origin as originMetadata };
