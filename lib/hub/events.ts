/**
 * What a `HubClient` tells its users: the one `state` (with what a status line needs, including the time left in a
 * backoff) and one typed event per kind of thing received. Every event is emitted after the frame that caused it was
 * durably persisted, so a listener never sees something the store could lose.
 */
import type { CloseCause } from './backoff-policy';
import type { Peer, Sender } from './envelope';
import type { HubError } from './errors';
import type { Fragment } from './fragments';
import type { JsonObject } from './json';
import type { Mention } from './mentions';
import type { SendTag } from './send-tag';

/**
 * - `idle`: built, not started;
 * - `connecting`: opening the socket and running the challenge/connect handshake;
 * - `replaying`: `hello-ok` received, device replay running until `replay.done`;
 * - `connected`: live;
 * - `backoff`: waiting `retryInMs` before the next attempt;
 * - `auth_failed`: the hub refused this token ("authentication failed"); nothing happens until a new token;
 * - `stopped`: `stop()` was called.
 */
export type HubState = 'idle' | 'connecting' | 'replaying' | 'connected' | 'backoff' | 'auth_failed' | 'stopped';

export type DeliveryMode = 'v2' | 'v1' | 'legacy';

export interface HubStatus {
  state: HubState;
  /** Clock time of the transition into this state. */
  since: number;
  /** Consecutive attempts that failed since the last `hello-ok`. */
  attempt: number;
  /** Backoff only: when the next attempt starts, and how long that is from now (at the time of reading). */
  retryAt?: number;
  retryInMs?: number;
  /** Why the last connection ended, and its detail (a hello-fail reason, a close code text). */
  cause?: CloseCause;
  reason?: string;
  closeCode?: number;
  /** `replaying` / `connected`: the reliable-delivery generation the hub granted. */
  deliveryMode?: DeliveryMode;
  deviceId: string;
}

/** A materialized message (`message.send` / `message.reply`) from someone else or from a sibling device. */
export interface InboundMessage {
  event: 'message.send' | 'message.reply';
  messageId: string;
  chatId: string;
  chatType: string | undefined;
  sender: Sender;
  to: Peer | undefined;
  originDeviceId: string | undefined;
  /** Sent by this user from another device (a multi-device echo). */
  fromSelf: boolean;
  /** `payload.message_mode` with `""` read as `"normal"` (§7.5). */
  mode: string;
  /** False for modes such as `thinking`: an agent or automation should skip those (§7.5). */
  isNormalMode: boolean;
  fragments: Fragment[];
  /** The text fragments joined (mentions as `@name`), for callers that want one string. */
  text: string;
  mentions: Mention[];
  /** This user is mentioned, directly or through `user_id: "all"`. */
  mentionsMe: boolean;
  reply: JsonObject | null;
  replyToMessageId: string | undefined;
  /** `payload.stream_merged`: a provisional merged reply of a stream (§8.4). */
  streamMerged: boolean;
  /** Received during device replay (between `hello-ok` and `replay.done`). */
  replay: boolean;
  /** An id seen before with other content: replace what you showed (persist is upsert, §11.7). */
  update: boolean;
  emittedAt: number | undefined;
  traceId: string;
  seq: number | undefined;
  dseq: number | undefined;
}

export interface SendAck {
  event: string;
  messageId: string;
  traceId: string;
  chatId: string;
  acceptedAt: number | undefined;
  /** How many times the frame went on the wire. */
  attempts: number;
  /** The caller's tag given to the send, read back from the outbox row (so it survives a restart). */
  tag?: SendTag;
}

/** A send is durably in the outbox (it survives a crash from here on) and about to go on the wire. */
export interface SendQueued {
  event: string;
  messageId: string;
  traceId: string;
  chatId: string;
  tag?: SendTag;
}

/**
 * What `send`, `reply`, `react` and a stream's `finalize` return: the promise of the hub's answer (it resolves on
 * `message.ack` and rejects with a `HubError`), carrying the ids that were fixed for the send and a second promise
 * for the moment it became durable.
 */
export interface SendHandle extends Promise<SendAck> {
  /** The `message_id` (a reaction: its slot `rxn:<target>:<reactor>`); undefined only when the input was refused before an id was given. */
  readonly messageId: string | undefined;
  /** The `trace_id` every attempt carries; undefined like `messageId`. */
  readonly traceId: string | undefined;
  /**
   * Resolves (with what `queued` reports) once the send is durably in the outbox, or with undefined when it was
   * refused before that (the handle itself then rejects with the reason). Never rejects.
   */
  readonly queued: Promise<SendQueued | undefined>;
}

export interface SendRejection {
  /** `hub`: a `message.error`; `client`: given up locally (`SEND_EXPIRED`, `CLIENT_STOPPED` never appear here). */
  origin: 'hub' | 'client';
  event: string;
  messageId: string | undefined;
  traceId: string;
  chatId: string | undefined;
  /** The hub's code, verbatim (terminal whatever it is, §14.3); `expired` when given up locally. */
  code: string;
  reason: string | undefined;
  rejectedAt: number | undefined;
  /** False when no uplink of this client matched the trace id or message id. */
  matched: boolean;
  /** The caller's tag of the matched send (see `SendAck.tag`). */
  tag?: SendTag;
}

export interface DeliveryReceipt {
  messageId: string;
  chatId: string | undefined;
  /** The user whose device received the message. */
  byUserId: string | undefined;
  deliveredAt: number | undefined;
}

export interface ReactionEvent {
  chatId: string;
  chatType: string | undefined;
  /** The last-write-wins slot, `rxn:<target>:<reactor>`. */
  slotId: string;
  targetMessageId: string;
  emoji: string;
  removed: boolean;
  reactorUserId: string;
  fromSelf: boolean;
  replay: boolean;
  update: boolean;
}

export interface ReadEvent {
  chatId: string;
  lastReadEmittedAt: number;
  /** From the connect-time watermark burst (§9.7) rather than a live echo. */
  snapshot: boolean;
}

export interface TypingEvent {
  chatId: string;
  userId: string;
  isTyping: boolean;
  /** Cleared locally because no refresh came within the expiry window (§9.1). */
  expired: boolean;
}

export interface PresenceEvent {
  userId: string;
  online: boolean;
  lastSeenAt: string | undefined;
  /** The reply to a subscribe, rather than a live transition. */
  snapshot: boolean;
}

/** What to refetch after `chat.metadata.invalidated` (§9.3), computed from every element of `scope`. */
export interface MetadataRefetch {
  /** `GET /v1/conversations/:cid`. */
  conversation: boolean;
  /** `GET /v1/conversations/:id/announcements`. */
  announcements: boolean;
  /** `GET /v1/agents/:id` of the agent paired in this direct chat. */
  agent: boolean;
  /** Empty, absent or unknown scope: refetch everything. */
  everything: boolean;
}

export interface ChatMetadataEvent {
  chatId: string;
  chatType: string | undefined;
  scopes: string[];
  refetch: MetadataRefetch;
  version: number | undefined;
  updatedAt: number | undefined;
}

export interface NotifyEvent {
  type: string;
  entityId: string;
  version: number | undefined;
  eventId: string;
  /** `notify:{type}:{entity_id}`, the inbox coalesce key (not a chat message id). */
  coalesceKey: string | undefined;
  replay: boolean;
  /** A newer version for this `(type, entity)` was already seen; refetching is still harmless. */
  stale: boolean;
}

export interface PermissionCard {
  requestId: string;
  chatId: string | undefined;
  agentId: string | undefined;
  operation: string | undefined;
  target: JsonObject | undefined;
  expiresAt: number | undefined;
  receivedAt: number;
}

export type PermissionEvent =
  | { kind: 'request'; card: PermissionCard }
  | {
      kind: 'resolved';
      requestId: string;
      chatId: string | undefined;
      decision: string | undefined;
      reason: string | undefined;
      /** The card this collapses; undefined for an empty `request_id` (policy deny) or an unknown one. */
      card: PermissionCard | undefined;
    }
  | { kind: 'expired'; card: PermissionCard };

export interface HistoryTransitEvent {
  /** Local id of the durable copy; pass it to `releaseHistoryTransit` once handled. */
  localId: number;
  senderId: string | undefined;
  originDeviceId: string | undefined;
  targetDeviceId: string | undefined;
  /** `payload.kind` (`history_sync_request`, `history_sync_message`, …). */
  kind: string | undefined;
  payload: JsonObject;
  ciphertextFragments: unknown[] | undefined;
  replay: boolean;
}

export interface StreamEvent {
  phase: 'created' | 'add' | 'done' | 'failed';
  messageId: string;
  chatId: string | undefined;
  sender: Sender | undefined;
  originDeviceId: string | undefined;
  fromSelf: boolean;
  mode: string;
  isNormalMode: boolean;
  sequence: number | undefined;
  fragments: Fragment[];
  /** The cumulative text so far (joined). */
  text: string;
  /** `add` only: the new piece (joined deltas). */
  delta: string | undefined;
  /** False when `text_prev + delta != text` or a sequence number was skipped; `text` is then taken as sent. */
  consistent: boolean;
  /**
   * Set once the client stopped assembling this stream because it went over a memory bound (`streamMaxChars`,
   * `streamTotalMaxChars`; reported once on `warning` with the same code). Its frames still arrive, unchecked.
   */
  cut: StreamCut | undefined;
}

/** Why a stream was cut: it alone held too much, or all streams together did and it was the largest. */
export type StreamCut = 'STREAM_TOO_LARGE' | 'STREAMS_OVER_BUDGET';

/** Every inbound frame, after processing (for taps, logs and the CLI). */
export interface FrameEvent {
  event: string;
  chatId: string | undefined;
  messageId: string | undefined;
  payload: JsonObject;
  envelope: JsonObject;
  seq: number | undefined;
  dseq: number | undefined;
  replay: boolean;
}

export interface QuarantineEvent {
  event: string;
  dseq: number | undefined;
  seq: number | undefined;
  reason: string;
  at: number;
}

export interface ReplayDoneEvent {
  /** Frames received between `hello-ok` and the end of replay. */
  frames: number;
  /** True when the idle fallback ended replay because `replay.done` never came (§11.5). */
  fallback: boolean;
}

export interface HistoryTruncatedEvent {
  oldestSeq: number | undefined;
  payload: JsonObject;
}

export interface HubClientEvents {
  [event: string]: unknown;
  state: HubStatus;
  message: InboundMessage;
  queued: SendQueued;
  ack: SendAck;
  rejected: SendRejection;
  delivered: DeliveryReceipt;
  reaction: ReactionEvent;
  read: ReadEvent;
  typing: TypingEvent;
  presence: PresenceEvent;
  'chat-metadata': ChatMetadataEvent;
  notify: NotifyEvent;
  permission: PermissionEvent;
  'history-transit': HistoryTransitEvent;
  'history-truncated': HistoryTruncatedEvent;
  stream: StreamEvent;
  'replay-done': ReplayDoneEvent;
  frame: FrameEvent;
  /** A frame whose event name this client does not know (tolerated; acked when it carries a dseq). */
  unknown: FrameEvent;
  quarantine: QuarantineEvent;
  /** Something went wrong that the client handled (a dseq gap, a listener that threw, a store failure). */
  warning: HubError;
}
