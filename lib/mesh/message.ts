/**
 * The abstract mesh message (mesh-message-wire.md, "Every frame the protocol puts on a transport is one message").
 *
 * One shape for every encoding: the JSON floor and binary wire v1 both decode into `MeshMessage` through the same
 * validating constructor, so the identifier rules and the Lamport clamp cannot differ between the two paths.
 * 64-bit integers are `bigint` end to end; `number` would silently lose precision above 2^53.
 *
 * NOTE: the validating constructor lands with the codecs; this file starts as the shared type so that every
 * part of lib/mesh (codecs, fragments, chunks, control, acks) is written against one model.
 */

export type ContentType =
  | 'text'
  | 'image'
  | 'video'
  | 'audio'
  | 'voice_note'
  | 'video_note'
  | 'file'
  | 'file_chunk'
  | 'poll';

export type Priority = 'low' | 'medium' | 'high' | 'critical';

/** A 16-byte message id; `MessageId.toString()` gives the canonical lowercase hyphenated form. */
export interface MessageIdLike {
  readonly bytes: Uint8Array;
  toString(): string;
}

export interface MediaMetadata {
  mime_type: string;
  file_name: string;
  file_size: bigint;
  duration_ms?: bigint;
  width?: number;
  height?: number;
  thumbnail_base64?: string;
  media_id?: string;
  download_url?: string;
  thumbnail_url?: string;
  encryption_key?: string;
  iv?: string;
  ciphertext_hash?: string;
  sticker_provider?: string;
  sticker_remote_id?: string;
  sticker_kind?: string;
}

export interface ForwardedFrom {
  original_sender: string;
  original_message_id: string;
  original_timestamp: bigint;
  forward_count: number;
}

export interface ReplyContext {
  sender: string;
  text: string;
  timestamp?: bigint;
  reply_media_label?: string;
  reply_content_type?: string;
}

export interface MeshMessage {
  id: MessageIdLike;
  sender: string;
  recipient: string;
  app_id: string;
  priority: Priority;
  ttl: number;
  hop_count: number;
  timestamp: bigint;
  lamport_clock: bigint;
  content_type: ContentType;
  content: string;
  binary_content?: Uint8Array;
  media_metadata?: MediaMetadata;
  metadata: Map<string, string>;
  requires_ack: boolean;
  reply_to_msg?: MessageIdLike;
  forwarded_from?: ForwardedFrom;
  reply_context?: ReplyContext;
}
