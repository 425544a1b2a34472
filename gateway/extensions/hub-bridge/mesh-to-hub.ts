/**
 * A mesh message as a hub message (docs/hub-bridge.md "Mesh → hub"): text content becomes a text fragment (after the
 * sender's name when the rule labels), a reply refers to the bridged id of the message replied to, and media either
 * points at the mesh message's own `download_url` or is uploaded from its `binary_content`. The result depends only
 * on the message, the configuration and whether its sender was proven, so gateways produce the same hub message (one
 * that heard a node direct may mark it verified where a relay's gateway does not; the hub keeps the first).
 *
 * Protocol traffic is never bridged: control content, sealed payloads (`__MLS_ENC__…`, which the gateway must relay
 * opaquely and cannot read) and messages a bridge re-originated from a hub (metadata `hub_message_id`), which would
 * otherwise loop back to the hub they came from.
 */
import type { JsonObject } from '../../../lib/hub/json';
import type { ReplyTarget } from '../../../lib/hub/send/compose';
import { isInternalContent } from '../../../lib/mesh/control-prefixes';
import type { ContentType, MeshMessage } from '../../../lib/mesh/message';
import type { UnverifiedSenderSetting } from './config-schema';
import { hubMessageIdFor } from './message-ids';

/** Metadata a bridge writes on the mesh messages it re-originates from a hub. */
export const HUB_MESSAGE_ID_KEY = 'hub_message_id';
export const HUB_CHAT_ID_KEY = 'hub_chat_id';
export const HUB_SENDER_KEY = 'hub_sender';
export const HUB_SENDER_NAME_KEY = 'hub_sender_name';

export type MeshSkipReason = 'control' | 'sealed' | 'from_hub' | 'empty' | 'encrypted_media' | 'unverified_sender';

/** How a rule presents a message: its label, what it does with an unproven sender, the display names. */
export interface PlanOptions {
  label: 'name' | 'none';
  unverified: UnverifiedSenderSetting;
  names: ReadonlyMap<string, string>;
}

const UNVERIFIED_MARK = ' (unverified)';

export type HubMediaKind = 'image' | 'video' | 'audio' | 'file';

export interface MeshToHubPlan {
  messageId: string;
  /** Text fragments (the label first, when there is one). */
  fragments: JsonObject[];
  replyTo?: ReplyTarget;
  /** Inline bytes to upload; the returned media fragment goes after the text. */
  upload?: { data: Uint8Array; name: string; mime: string | undefined; kind: HubMediaKind };
}

const MEDIA_KIND: Partial<Record<ContentType, HubMediaKind>> = {
  image: 'image',
  video: 'video',
  video_note: 'video',
  audio: 'audio',
  voice_note: 'audio',
  file: 'file',
};

/** `off1qysluvwl…tgvn`: enough to tell nodes apart in a chat, short enough to read. */
export function shortId(id: string): string {
  return id.length <= 20 ? id : `${id.slice(0, 12)}…${id.slice(-4)}`;
}

export function senderLabel(sender: string, names: ReadonlyMap<string, string>): string {
  return names.get(sender) ?? shortId(sender);
}

/** The label the text starts with, if any: a name the mesh did not prove says so unless the rule says otherwise. */
function labelFor(sender: string, verified: boolean, options: PlanOptions): string | undefined {
  if (options.label !== 'name') return undefined;
  const name = senderLabel(sender, options.names);
  return !verified && options.unverified === 'mark' ? name + UNVERIFIED_MARK : name;
}

export function meshSkipReason(message: MeshMessage): MeshSkipReason | undefined {
  if (message.metadata.has(HUB_MESSAGE_ID_KEY)) return 'from_hub';
  if (message.content.startsWith('__MLS_ENC__')) return 'sealed';
  if (isInternalContent(message.content)) return 'control';
  return undefined;
}

function textFragments(text: string, label: string | undefined): JsonObject[] {
  if (label === undefined) return text === '' ? [] : [{ kind: 'text', text }];
  return [{ kind: 'text', text: text === '' ? `${label}:` : `${label}: ${text}` }];
}

function replyTarget(message: MeshMessage, names: ReadonlyMap<string, string>): ReplyTarget | undefined {
  if (message.reply_to_msg === undefined) return undefined;
  const target: ReplyTarget = { messageId: hubMessageIdFor(message.reply_to_msg) };
  const ctx = message.reply_context;
  if (ctx !== undefined) {
    target.preview = { nickName: senderLabel(ctx.sender, names), fragments: ctx.text === '' ? [] : [{ kind: 'text', text: ctx.text }] };
  }
  return target;
}

/** A `file` fragment the hub can relay for a media message that already lives at a URL. */
function linkFragment(message: MeshMessage, kind: HubMediaKind): JsonObject | undefined {
  const media = message.media_metadata;
  if (media?.download_url === undefined) return undefined;
  const fragment: JsonObject = { kind, url: media.download_url, name: media.file_name, mime: media.mime_type };
  if (media.file_size > 0n && media.file_size <= BigInt(Number.MAX_SAFE_INTEGER)) fragment.size = Number(media.file_size);
  if (kind === 'image' || kind === 'video') {
    if (media.width !== undefined) fragment.width = media.width;
    if (media.height !== undefined) fragment.height = media.height;
  }
  if ((kind === 'audio' || kind === 'video') && media.duration_ms !== undefined && media.duration_ms <= BigInt(Number.MAX_SAFE_INTEGER)) {
    fragment.duration = Number(media.duration_ms);
  }
  return fragment;
}

/**
 * Everything but chunked files (`file_chunk` goes through the file intake, one hub message per whole file).
 * Returns the skip reason for what must not or cannot be bridged.
 */
export function planMeshToHub(message: MeshMessage, senderVerified: boolean, options: PlanOptions): MeshToHubPlan | { skip: MeshSkipReason } {
  const skip = meshSkipReason(message);
  if (skip !== undefined) return { skip };
  if (!senderVerified && options.unverified === 'skip') return { skip: 'unverified_sender' };
  const label = labelFor(message.sender, senderVerified, options);
  const plan: MeshToHubPlan = { messageId: hubMessageIdFor(message.id), fragments: [] };
  const reply = replyTarget(message, options.names);
  if (reply !== undefined) plan.replyTo = reply;
  const kind = MEDIA_KIND[message.content_type];
  if (kind !== undefined) {
    const media = message.media_metadata;
    // End-to-end encrypted media can only be read by its recipient; the hub would get noise.
    if (media?.encryption_key !== undefined) return { skip: 'encrypted_media' };
    const link = linkFragment(message, kind);
    if (link !== undefined) {
      plan.fragments = [...textFragments(message.content, label), link];
      return plan;
    }
    if (message.binary_content !== undefined && message.binary_content.length > 0) {
      plan.fragments = textFragments(message.content, label);
      plan.upload = {
        data: message.binary_content,
        name: media?.file_name || `${message.id.toString()}.bin`,
        mime: media?.mime_type || undefined,
        kind,
      };
      return plan;
    }
  }
  if (message.content === '') return { skip: 'empty' };
  plan.fragments = textFragments(message.content, label);
  return plan;
}

/**
 * The text that goes with a whole file from the mesh (the label alone, or nothing). A file is put together from
 * frames that may each have come another way, and their proofs are not kept with the stored chunks: its sender
 * always counts as unverified.
 */
export function fileCaption(sender: string, options: PlanOptions): JsonObject[] {
  const label = labelFor(sender, false, options);
  return label === undefined ? [] : textFragments('', label);
}
