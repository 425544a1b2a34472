/**
 * The protocol v2 envelope (guide §4, §6): event names, the inbound frame as the client reads it, and the builders
 * of every uplink. Builders follow the "must not violate" list of §13.1: top-level `chat_id` always, never `sender`
 * (except `history.transit`), never `chat_type`, never `payload.message.streaming`.
 */
import type { JsonObject } from './json';

export const PROTOCOL_VERSION = '2';
/** Sent as `protocol_version` in `connect` (telemetry only). */
export const PROTOCOL_REVISION = 2;

export const EVENT = {
  challenge: 'connect.challenge',
  connect: 'connect',
  helloOk: 'hello-ok',
  helloFail: 'hello-fail',
  send: 'message.send',
  reply: 'message.reply',
  ack: 'message.ack',
  error: 'message.error',
  delivered: 'message.delivered',
  reaction: 'message.reaction',
  read: 'message.read',
  historyTransit: 'history.transit',
  created: 'message.created',
  add: 'message.add',
  done: 'message.done',
  failed: 'message.failed',
  typing: 'typing.update',
  presenceSubscribe: 'presence.subscribe',
  presenceUnsubscribe: 'presence.unsubscribe',
  presenceSnapshot: 'presence.snapshot',
  presenceUpdate: 'presence.update',
  chatMetadataInvalidated: 'chat.metadata.invalidated',
  notifySignal: 'notify.signal',
  permissionRequest: 'permission.request',
  permissionResolved: 'permission.resolved',
  replayDone: 'replay.done',
  cursorAck: 'message.cursor_ack',
  syncAck: 'message.sync_ack',
  syncMark: 'sync.mark',
  historyTruncated: 'history.truncated',
  cursorReset: 'device.cursor.reset',
  ping: 'ping',
  pong: 'pong',
} as const;

export type EventName = (typeof EVENT)[keyof typeof EVENT];

/** `to` on the wire: UI context, except on `message.delivered` where `to.id` routes the receipt. */
export interface Peer {
  id: string;
  type: string;
}

export interface Sender {
  id: string;
  type: string;
  nickName: string | undefined;
}

/** One downlink as read by the client: tolerant, every field optional except what the read layer needs. */
export interface InboundFrame {
  event: string;
  traceId: string;
  emittedAt: number | undefined;
  chatId: string | undefined;
  chatType: string | undefined;
  to: Peer | undefined;
  sender: Sender | undefined;
  originDeviceId: string | undefined;
  /** v1 storage coordinate (opaque, sparse). */
  seq: number | undefined;
  /** v2 per-connection dense delivery sequence. */
  dseq: number | undefined;
  targetDeviceId: string | undefined;
  /** `{}` when the frame's payload was not an object (see `payloadValid`). */
  payload: JsonObject;
  payloadValid: boolean;
  /** The whole parsed object, as received. */
  envelope: JsonObject;
  /** The text as received (bounded copies of it go to quarantine records). */
  raw: string;
}

export type Uplink = JsonObject & { version: string; event: string; trace_id: string; emitted_at: number; payload: JsonObject };

export interface UplinkFields {
  chat_id?: string;
  to?: Peer;
  target_device_id?: string;
  sender?: { id: string; type: string; nick_name?: string };
  origin_device_id?: string;
  ciphertext_fragments?: unknown[];
}

export function uplink(event: string, traceId: string, emittedAt: number, payload: JsonObject, fields: UplinkFields = {}): Uplink {
  const frame: Uplink = { version: PROTOCOL_VERSION, event, trace_id: traceId, emitted_at: emittedAt, payload };
  // Key by key rather than over Object.entries: this runs for every send. The order is the fields' own.
  for (const key in fields) {
    const value = fields[key as keyof UplinkFields];
    if (value !== undefined) frame[key] = value;
  }
  return frame;
}

/** The body of a materialized `message.send` / `message.reply` (§7.1, §7.4). */
export function messagePayload(input: {
  messageId: string;
  mode: string;
  fragments: JsonObject[];
  mentions: unknown[];
  reply: JsonObject | null;
}): JsonObject {
  return {
    message_id: input.messageId,
    message_mode: input.mode,
    message: {
      body: { fragments: input.fragments },
      context: { mentions: input.mentions, reply: input.reply },
    },
  };
}
