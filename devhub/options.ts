/**
 * The dev hub's configuration: one shape for the `clawling devhub --config FILE` file (YAML or JSON) and for
 * `startDevHub(options)`. Keys are snake_case on purpose, matching the wire and the server settings the guide quotes
 * (`media.max_size_bytes`, `media.allowed_mime_prefixes`, `stream_merged`), so a file and a test read alike.
 * Every field is optional; `resolveOptions` (config.ts) fills the defaults listed here.
 */

/** A user of the static authenticator. A token maps to exactly one user. */
export interface DevHubUserConfig {
  /** The `user_id` (the guide's deployments use `usr_…` / `agt_…`; presence subscriptions require those prefixes by default). */
  id: string;
  /** Stamped as `sender.nick_name` on downlinks. Default: the id. */
  nick_name?: string;
  /** One bearer token for this user (media and WebSocket accept the same one). */
  token?: string;
  /** More tokens for the same user (e.g. an "old" and a "refreshed" one). */
  tokens?: string[];
}

/** A conversation and its members (the chat resolver). */
export interface DevHubChatConfig {
  id: string;
  /** User ids. A sender outside this list gets `not_member`. */
  members: string[];
  /** Default: `direct` for two members or fewer, `group` above (§5). */
  type?: 'direct' | 'group';
}

export interface DevHubRetentionConfig {
  /** Inbox rows older than this are pruned (default 30 days). 0 disables the age rule. */
  max_age_ms?: number;
  /** At most this many rows per recipient; the oldest go first (default 100 000). 0 disables the count rule. */
  max_rows_per_user?: number;
  /** How often the age rule runs (default 60 s). */
  sweep_interval_ms?: number;
}

/** Which reliable-delivery generations the operator grants (§3.4: v2 is an operator decision as well as a client one). */
export interface DevHubReliabilityConfig {
  /** Honour `reliable_delivery` (storage `seq`, `message.cursor_ack`, `history.truncated`). Default true. */
  v1?: boolean;
  /** Grant `reliable_delivery_v2` (`ack_mode: "dseq"`). Default true. */
  v2?: boolean;
}

/** After this many consecutive ack-silence kicks within the window, later kicks back off exponentially (§11.7). */
export interface DevHubKickBackoffConfig {
  after_kicks?: number; // 3
  window_ms?: number; // 1 hour
  base_ms?: number; // 60 s
  max_ms?: number; // 30 min
}

/** More than `max` takeovers of one (user, device) inside `window_ms` delay the new socket by up to `max_delay_ms` (§3.6). */
export interface DevHubTakeoverThrottleConfig {
  max?: number; // 3
  window_ms?: number; // 10 s
  max_delay_ms?: number; // 2 s
}

export interface DevHubSettings {
  /** Time allowed between the upgrade and a valid `connect` (default 10 000 ms, §3.3). */
  handshake_timeout_ms?: number;
  /** A v2 connection with unacked ledger entries and no `message.sync_ack` for this long is kicked (default 120 000 ms). */
  ack_silence_kick_ms?: number;
  /** How often the ack-silence sweep runs (default 30 000 ms). */
  ack_sweep_interval_ms?: number;
  kick_backoff?: DevHubKickBackoffConfig;
  /** A live v2 connection whose unacked window exceeds this is kicked at once (default 4096). */
  unacked_window_max?: number;
  /** Device replay pauses while this many v2 frames are unacked (default 3500). */
  replay_throttle?: number;
  retention?: DevHubRetentionConfig;
  reliability?: DevHubReliabilityConfig;
  /** Materialize the merged reply of a stream on `message.done` and deliver it live with `payload.stream_merged: true` (§8.4). Default false. */
  stream_merged?: boolean;
  /** Delay before the merged reply is produced (default 0), to reproduce a merged reply racing the author's own finalize reply. */
  stream_merged_delay_ms?: number;
  /** A stream with no lifecycle frame for this long is dropped from the merge buffer (default 10 min). */
  stream_idle_timeout_ms?: number;
  /** `any` accepts every non-empty chat id (the guide's mock resolver); `cnv` rejects all but `cnv_` + ULID with `bad_request` (§5). */
  chat_id_format?: 'any' | 'cnv';
  /** Largest inbound WebSocket frame after `hello-ok` (default 8 MiB); larger closes with 1009. */
  max_frame_bytes?: number;
  /** Largest pre-auth frame (default 64 KiB); larger closes with 1009. */
  max_connect_frame_bytes?: number;
  /** Largest marshaled downlink envelope (default 1 000 000 bytes); larger gives `message_too_large`. */
  max_produce_bytes?: number;
  /** Largest client-supplied `payload.message_id` in UTF-8 bytes (default 512); larger gives `message_id_too_long`. */
  max_message_id_bytes?: number;
  /** Largest reaction emoji in UTF-8 bytes (default 64). */
  max_emoji_bytes?: number;
  /** Presence subscriptions per connection (default 16). */
  presence_max_subscriptions?: number;
  /** Refuse (silently) presence subscriptions to users with no shared chat (default false). */
  presence_visibility_gate?: boolean;
  /** Legal presence `user_id` prefixes (default `["usr_", "agt_"]`); an empty list accepts any id. */
  presence_user_id_prefixes?: string[];
  /** The connect-time `message.read` snapshot covers watermarks updated within this age (default 30 days) … */
  read_snapshot_max_age_ms?: number;
  /** … and at most this many chats, most recent first (default 500). */
  read_snapshot_max_chats?: number;
  /** RFC 6455 Ping interval (default 30 000 ms); the socket closes after `ping_interval_ms * max_miss_pong + pong_timeout_ms` without a Pong. 0 disables. */
  ping_interval_ms?: number;
  max_miss_pong?: number; // 2
  pong_timeout_ms?: number; // 10 000
  takeover_throttle?: DevHubTakeoverThrottleConfig;
  /** Above this many buffered bytes, ephemeral frames (typing, signals, receipts, acks) are dropped, and replay waits for the socket to drain (default 4 MiB). */
  send_buffer_max_bytes?: number;
}

export type DevHubMediaStorage = 'memory' | 'none' | { dir: string };

export interface DevHubMediaConfig {
  /** Serve `POST /media/upload` and `GET /health` (default true). */
  enabled?: boolean;
  /** Own listener for the media service; absent = the WebSocket's host and port. */
  port?: number;
  host?: string;
  /** `memory` (default), `none` (every upload answers 503 `storage not configured`), or a folder. */
  storage?: DevHubMediaStorage;
  /** Default 100 MiB; larger uploads answer 413. */
  max_size_bytes?: number;
  /** Empty (default) accepts every MIME type; otherwise others answer 415. */
  allowed_mime_prefixes?: string[];
  /** Base of the returned `url`s (default: the media service's own URL, which serves `GET /media/<key>`). */
  public_base_url?: string;
}

/** The admin HTTP interface. It always listens on loopback. */
export interface DevHubAdminConfig {
  /** Default 0 (any free port). */
  port?: number;
  /** `127.0.0.1` (default), `::1` or `localhost`; anything else is refused. */
  host?: string;
  /**
   * The bearer token every admin route but the index requires (at least 16 characters). Default: 32 random bytes drawn
   * at start, readable as `hub.adminToken` (`clawling devhub` prints it). Never logged, never in the state file.
   */
  token?: string;
}

/**
 * TLS for the WebSocket (`wss://`) and the media service (`https://`), as a deployment behind a real certificate
 * has it; the admin interface stays plain HTTP on loopback. PEM files (in a config file, relative to its folder).
 */
export interface DevHubTlsConfig {
  cert_file: string;
  key_file: string;
}

export interface DevHubOptions {
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** WebSocket path, default `/ws`. */
  path?: string;
  users?: DevHubUserConfig[];
  chats?: DevHubChatConfig[];
  settings?: DevHubSettings;
  media?: DevHubMediaConfig;
  admin?: DevHubAdminConfig;
  tls?: DevHubTlsConfig;
  /** Keep inboxes, cursors, watermarks and presence history in this JSON file across restarts of the hub. */
  state_file?: string;
}

/** What the library adds beyond the config file: a clock and a logger (never part of the file). */
export interface DevHubRuntime {
  /** Milliseconds since the epoch; default `Date.now`. Drives `emitted_at`, retention and the ack-silence sweep. */
  now?: () => number;
  /** Receives one structured line per notable event; tokens never appear in it. Default: silent. */
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}
