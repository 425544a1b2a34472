/**
 * The public face of the dev hub: the running server (`DevHub`) and its admin interface (`DevHubAdmin`), which is the
 * same set of operations the loopback admin HTTP API exposes (docs/devhub.md lists both side by side).
 * Arguments are snake_case objects so that an HTTP body and a library call carry the same JSON.
 */
import type { DevHubChatConfig, DevHubUserConfig } from './options';

export interface DevHub {
  /** `ws://HOST:PORT/ws` (the configured path). */
  wsUrl: string;
  /** The media service's base, `http://HOST:PORT` (no trailing slash): `POST {mediaUrl}/media/upload`, `GET {mediaUrl}/health`. Empty when media is disabled. */
  mediaUrl: string;
  /** The admin API's base on loopback, `http://127.0.0.1:PORT/admin`. */
  adminUrl: string;
  /** What the admin HTTP API wants as `Authorization: Bearer …`: `admin.token`, or the one drawn at start. */
  adminToken: string;
  admin: DevHubAdmin;
  /** Closes every socket and listener and writes the state file if one is configured. Idempotent. */
  stop(): Promise<void>;
}

/** Selects live connections: every device of a user, or one device. */
export interface DeviceRef {
  user_id: string;
  device_id?: string;
}

/** Selects the connections a fault applies to; no user means every connection. */
export interface FaultTarget {
  user_id?: string;
  device_id?: string;
}

export interface NotifySignalInput {
  user_id: string;
  type: string;
  entity_id: string;
  /** Default: now. */
  version?: number;
  /** Default: `ntf_` + ULID. */
  event_id?: string;
}

export interface NotifySignalPayload {
  type: string;
  entity_id: string;
  version: number;
  event_id: string;
  /** The coalesce key, `notify:{type}:{entity_id}`. */
  message_id: string;
}

export interface ChatMetadataInvalidatedInput {
  chat_id: string;
  scope?: string[];
  /** Default: now. */
  version?: number;
  /** Default: now. */
  updated_at?: number;
  /** Default: every member of the chat. */
  recipients?: string[];
}

export interface PermissionRequestInput {
  /** The owner; only the owner's devices receive it (§9.5). */
  user_id: string;
  chat_id: string;
  /** Default: `req_` + ULID. */
  request_id?: string;
  agent_id?: string;
  operation?: string;
  target?: Record<string, unknown>;
  expires_at?: number;
}

export interface PermissionResolvedInput {
  user_id: string;
  chat_id: string;
  /** May be `""` (the passive policy-deny frame). */
  request_id: string;
  decision?: string;
  reason?: string;
}

/** Frames reached this many live connections (0 when nobody eligible was connected). */
export interface SignalResult {
  delivered: number;
}

export type AuthRefusalReason = 'authentication failed' | 'remote auth service unavailable' | (string & {});

export interface RefuseAuthInput {
  reason: AuthRefusalReason;
  /** Only handshakes whose token belongs to this user (default: every handshake). */
  user_id?: string;
  /** How many handshakes to refuse (default: until `clearFaults`). */
  count?: number;
}

export interface AckFaultInput extends FaultTarget {
  /** How many `message.ack` frames it affects (default: until `clearFaults`). */
  count?: number;
}

export interface DelayAcksInput extends AckFaultInput {
  ms: number;
}

/**
 * `end` (default): the TCP connection ends right after what was already written, with no close frame (the client
 * sees 1006 and has every frame written before). `terminate`: the socket is destroyed at once, and frames still in
 * flight may be lost, as on a real network failure. `close`: a close frame with no status (1005), like a server kick.
 */
export type DropMode = 'end' | 'terminate' | 'close';

export interface DropConnectionInput {
  /** Drop after this many more downlink frames have been written (default 0: now). */
  after_frames?: number;
  mode?: DropMode;
}

export interface WithholdReplayDoneInput extends FaultTarget {
  /** How many replays end without their `replay.done` (default: until `clearFaults`). */
  count?: number;
}

export interface FailHandshakeInput {
  /** Only handshakes whose token belongs to this user (default: every handshake). */
  user_id?: string;
  /** How many handshakes to end (default: until `clearFaults`). */
  count?: number;
  /** How the connection ends instead of `hello-ok` (default `end`: TCP FIN, the client reads 1006). */
  mode?: DropMode;
}

/**
 * The echo-token fault: the handshake is refused with a text that quotes the token presented, as a careless
 * server does ("invalid token: Bearer …"), in the `hello-fail` reason or in the close reason (code 4401).
 */
export interface EchoTokenInput {
  /** Only handshakes whose token belongs to this user (default: every handshake, tokens nobody owns included). */
  user_id?: string;
  /** How many handshakes to refuse so (default: until `clearFaults`). */
  count?: number;
  /** Where the token comes back (default `hello-fail`). */
  via?: 'hello-fail' | 'close';
}

/** What the poison frame breaks: a `context.mentions` the mapper chokes on, a body that is not an object, or a payload that is a string. */
export type PoisonShape = 'mentions' | 'body' | 'payload';

export interface PoisonFrameInput {
  user_id: string;
  shape?: PoisonShape;
  /** Chat id stamped on the frame (default: the first chat of the user, else `chat-poison`). */
  chat_id?: string;
  /** Written to the inbox (default true), so it replays until acked, exactly like a real row. */
  durable?: boolean;
}

export interface UnknownEventInput {
  /** Default `future.event`. */
  event?: string;
  payload?: Record<string, unknown>;
}

export interface FailMediaInput {
  /** How many uploads fail (default 1). */
  count?: number;
  /** Default 500 / 50001 / `upload failed`. */
  status?: number;
  code?: number;
  msg?: string;
}

export interface PruneInput {
  /** Keep only the newest N rows. */
  keep_last?: number;
  /** Remove every row with `seq <= through_seq`. */
  through_seq?: number;
}

export type ConnectionPhase = 'handshake' | 'replaying' | 'live' | 'closed';
export type AckMode = 'legacy' | 'seq' | 'dseq';

export interface DeviceInfo {
  connection_id: string;
  user_id: string;
  device_id: string;
  phase: ConnectionPhase;
  capabilities: Record<string, boolean>;
  ack_mode: AckMode;
  /** v2 only. */
  ack_epoch?: string;
  /** v2: the last `dseq` stamped and the highest acked. */
  last_dseq?: number;
  acked_dseq?: number;
  /** v2: ledger entries not yet acked. */
  unacked?: number;
  /** The highest storage `seq` written on this connection. */
  sent_seq: number;
  presence_subscriptions: string[];
  /** Present when the half-open fault silenced this connection: frames the hub did not write since. */
  half_open?: { withheld_frames: number };
  client_version?: string;
  protocol_version?: number;
  connected_at: number;
}

export interface InboxRowInfo {
  seq: number;
  message_id: string;
  event: string;
  chat_id?: string;
  target_device_id?: string;
  origin_device_id?: string;
  stream_merged: boolean;
  stored_at: number;
  /** The stored downlink envelope (without `seq` / `dseq`, which are stamped per connection). */
  frame: Record<string, unknown>;
}

export interface ReceivedFrame {
  at: number;
  connection_id: string;
  user_id: string;
  device_id: string;
  event: string;
  /** The parsed uplink after U+0000 stripping; `undefined` when it was not JSON. */
  frame: Record<string, unknown> | undefined;
}

export interface MediaObjectInfo {
  key: string;
  url: string;
  name: string;
  mime: string;
  size: number;
  sha256: string;
  user_id: string;
  stored_at: number;
}

export interface KickInfo {
  connection_id: string;
  user_id: string;
  device_id: string;
  reason: 'ack_silence' | 'unacked_window' | 'cursor_reset' | 'takeover' | 'fault' | 'pong_timeout';
}

export interface HelloFailInfo {
  connection_id: string;
  reason: string;
}

export interface DisconnectInfo {
  connection_id: string;
  user_id?: string;
  device_id?: string;
  code: number;
}

/** Events of the admin emitter (tests wait on them instead of sleeping). */
export interface DevHubEventMap {
  hello: DeviceInfo;
  'hello-fail': HelloFailInfo;
  disconnect: DisconnectInfo;
  uplink: ReceivedFrame;
  kick: KickInfo;
  'replay-done': DeviceInfo;
  upload: MediaObjectInfo;
}

export interface FaultSnapshot {
  refuse_auth: Array<RefuseAuthInput & { remaining: number }>;
  withhold_acks: Array<AckFaultInput & { remaining: number }>;
  delay_acks: Array<DelayAcksInput & { remaining: number }>;
  fail_media: Array<FailMediaInput & { remaining: number }>;
  withhold_replay_done: Array<WithholdReplayDoneInput & { remaining: number }>;
  fail_handshake: Array<FailHandshakeInput & { remaining: number }>;
  echo_token: Array<EchoTokenInput & { remaining: number }>;
}

export interface DevHubAdmin {
  // Directory (the static authenticator and the chat resolver).
  addUser(user: DevHubUserConfig): void;
  /** Removes the user and their tokens; their live connections stay up (§3.7: the token is checked once). */
  removeUser(userId: string): void;
  /** Adds or replaces a chat. */
  addChat(chat: DevHubChatConfig): void;
  removeChat(chatId: string): void;
  setChatMembers(chatId: string, members: string[]): void;

  // Signals (§9.3–9.5).
  notifySignal(input: NotifySignalInput): NotifySignalPayload;
  chatMetadataInvalidated(input: ChatMetadataInvalidatedInput): SignalResult;
  permissionRequest(input: PermissionRequestInput): SignalResult & { request_id: string };
  permissionResolved(input: PermissionResolvedInput): SignalResult;

  // Faults.
  dropConnection(target: DeviceRef, input?: DropConnectionInput): number;
  withholdAcks(input?: AckFaultInput): void;
  delayAcks(input: DelayAcksInput): void;
  /** The next `dseq` stamped on each matching v2 connection jumps by `count` (default 1), leaving a gap. Returns the connections affected. */
  skipDseq(target: DeviceRef, input?: { count?: number }): number;
  /** Sends a frame with an event name no client knows, carrying a `dseq` on v2 connections. Returns the connections reached. */
  sendUnknownEvent(target: DeviceRef, input?: UnknownEventInput): number;
  /** Queues a `message.send` no mapper can digest; returns its `message_id`. */
  sendPoisonFrame(input: PoisonFrameInput): string;
  /** Sends a raw text (or JSON-encoded object) to matching connections, bypassing every rule. */
  sendRaw(target: DeviceRef, frame: string | Record<string, unknown>): number;
  /**
   * Replays end without their `replay.done` (no frame, no `dseq` for it; a `sync.mark` carries the coverage on v2):
   * the client must fall back to its idle rule (§11.5). Live delivery starts as usual.
   */
  withholdReplayDone(input?: WithholdReplayDoneInput): void;
  /**
   * Makes matching connections half-open: the socket stays open and the hub keeps reading it, but writes nothing
   * more to it (no frame, no pong, no RFC 6455 ping or pong), as when the way back is dead. Nothing written is lost
   * (unwritten rows replay on the next connection). A kick, a takeover, `dropConnection` or `stop()` still closes it. Returns the
   * connections affected.
   */
  halfOpen(target: DeviceRef): number;
  /** Handshakes that pass authentication are ended before `hello-ok` (no `hello-fail`), as a crash mid-handshake would. */
  failHandshake(input?: FailHandshakeInput): void;
  refuseAuth(input: RefuseAuthInput): void;
  /** Refuses handshakes with a text that quotes the presented token (a hub that leaks it; clients must redact). */
  echoToken(input?: EchoTokenInput): void;
  failMedia(input?: FailMediaInput): void;
  clearFaults(): void;
  faults(): FaultSnapshot;

  // Inspection.
  devices(): DeviceInfo[];
  inbox(userId: string): InboxRowInfo[];
  cursors(userId: string): Record<string, number>;
  readWatermarks(userId: string): Record<string, number>;
  /** The last uplinks received after `hello-ok` (a bounded ring), oldest first. */
  received(filter?: { user_id?: string; device_id?: string; event?: string }): ReceivedFrame[];
  media(): MediaObjectInfo[];

  // Control.
  /** Runs the ack-silence and retention sweeps now (with the injected clock). */
  sweep(): void;
  /** Prunes a user's inbox as retention would (the next v1 replay below it sees `history.truncated`). Returns rows removed. */
  prune(userId: string, input: PruneInput): number;

  // Events.
  on<K extends keyof DevHubEventMap>(event: K, listener: (value: DevHubEventMap[K]) => void): this;
  off<K extends keyof DevHubEventMap>(event: K, listener: (value: DevHubEventMap[K]) => void): this;
  /** Resolves with the first event matching `predicate` (default: any); rejects after `timeoutMs` (default 5000). */
  waitFor<K extends keyof DevHubEventMap>(
    event: K,
    predicate?: (value: DevHubEventMap[K]) => boolean,
    timeoutMs?: number,
  ): Promise<DevHubEventMap[K]>;
}
