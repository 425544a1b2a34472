/**
 * Options of `HubClient`, their defaults and their checks. Every default is the guide's figure where it gives one
 * (30 s backoff cap, 5 s takeover floor, 200 ms / 30 s ack rhythm, 600 s chat gate, 3 s / 6 s typing, 16 presence
 * subscriptions, 8 MiB frames); the others are documented in docs/hub.md.
 */
import { rootCertificates } from 'node:tls';
import { resolveBackoffPolicy, type BackoffPolicy } from './backoff-policy';
import { capabilitiesFor, type Capabilities, type Reliability } from './capabilities';
import { systemClock, type Clock } from '../clock';
import { HubError } from './errors';
import type { ChatIdRule } from './ids';
import type { Store } from '../store';

/** One stream's text, and all open streams' together, held in memory while they are assembled (receive/stream-assembler.ts). */
export const DEFAULT_STREAM_MAX_CHARS = 1024 * 1024;
export const DEFAULT_STREAMS_MAX_CHARS = 8 * 1024 * 1024;

export type TokenSource = string | (() => string | Promise<string>);

/** Receives one line per notable event. Tokens never appear in what it is given. */
export interface HubLogger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  error?(message: string, fields?: Record<string, unknown>): void;
}

export interface HubClientOptions {
  /** `ws://` or `wss://` URL of the hub's WebSocket (default path `/ws`). */
  url: string;
  /**
   * The bearer token, or a function returning it. A function is called before every connection attempt (refresh
   * proactively, §3.7) and once more after "authentication failed": a different token is tried, the same one is not.
   */
  token: TokenSource;
  /** Your own user id, obtained out of band (§2). Never derived from the token. */
  userId: string;
  /** Stable id of this installation. Default: the one kept in the store, minted on first use (`dev-<ULID>`). */
  deviceId?: string;
  /** The durable store (outbox, inbox, cursors). Default: a memory store, which forgets on exit. */
  store?: Store;
  clock?: Clock;
  /** Random draws for the backoff jitter, in [0, 1). */
  random?: () => number;
  /** Reliable-delivery generation to advertise. Default `v2` (with v1 as the fallback). */
  reliability?: Reliability;
  /** Overrides of single capability flags (everything but `e2ee` is on by default; `e2ee` cannot be enabled). */
  capabilities?: Partial<Capabilities>;
  /** Sent as `client_version` (telemetry). Default: this package's name and version. */
  clientVersion?: string;
  /** `cnv` rejects chat ids that are not `cnv_…` locally, for deployments whose resolver only accepts those (§5). */
  chatIdRule?: ChatIdRule;
  backoff?: Partial<BackoffPolicy>;
  /** Upgrade to `hello-ok` must take less than this (default 15 000 ms; the hub's own limit is ~10 s). */
  handshakeTimeoutMs?: number;
  /** An unanswered send is re-sent (same ids) after this long on a live connection (default 10 000 ms). */
  ackTimeoutMs?: number;
  /** A send unanswered after this long is given up (`SEND_EXPIRED`); 0 (default) keeps trying forever. */
  sendExpiryMs?: number;
  /** Sends on the wire without an answer at once (default 64). */
  maxInFlight?: number;
  /** Most unanswered sends the outbox holds (default 10 000); beyond, `send` fails with `OUTBOX_FULL`. */
  outboxCapacity?: number;
  /** Ack rhythm (§11.7): debounce (200 ms), unconditional resend (30 000 ms), early flush window (128 frames). */
  ackDebounceMs?: number;
  ackResendMs?: number;
  ackEagerWindow?: number;
  /** Replay is considered over after this long without a frame if `replay.done` never comes (default 5000 ms). */
  replayIdleMs?: number;
  /**
   * Received frames waiting to be handled, at most: this many (default 1024) and this many characters of frame
   * text (default 4 Mi). At either limit the client stops reading the socket until the backlog is down to half.
   */
  receiveMaxFrames?: number;
  receiveMaxChars?: number;
  /**
   * Characters of text the assembly of one received stream may hold (default 1 Mi), and all of them together
   * (default 8 Mi). A stream over either is cut and reported on `warning` (`STREAM_TOO_LARGE` / `STREAMS_OVER_BUDGET`).
   */
  streamMaxChars?: number;
  streamTotalMaxChars?: number;
  /** Silence after which a JSON `ping` probes the socket (default 30 000 ms; 0 disables), and how long a reply may take (10 000 ms). */
  pingSilenceMs?: number;
  pongTimeoutMs?: number;
  /** Typing (§9.1): producer refresh (3000 ms), receiver expiry (6000 ms), longest unrefreshed turn (120 000 ms). */
  typingRefreshMs?: number;
  typingExpiryMs?: number;
  typingMaxMs?: number;
  /** The send gate after `chat_not_found` / `not_member` (default 600 000 ms; 0 disables) and chats exempt from it. */
  chatGateMs?: number;
  gateExemptChatIds?: string[];
  /** Largest uplink frame (default 8 MiB, the hub's cap; larger would be closed with 1009). */
  maxFrameBytes?: number;
  /** How long `device.cursor.reset` waits for the hub to close the connection (default 10 000 ms). */
  cursorResetTimeoutMs?: number;
  /**
   * For a `wss://` hub behind a private CA: its certificate(s) in PEM (added to Node's trusted roots, so public
   * hubs still verify). `rejectUnauthorized: false` turns verification off; for tests and nothing else.
   */
  tls?: HubTlsOptions;
  logger?: HubLogger;
}

export interface HubTlsOptions {
  ca?: string | Buffer | Array<string | Buffer>;
  rejectUnauthorized?: boolean;
}

export interface ResolvedOptions {
  url: string;
  tls: HubTlsOptions | undefined;
  token: TokenSource;
  userId: string;
  deviceId: string | undefined;
  store: Store | undefined;
  clock: Clock;
  random: () => number;
  reliability: Reliability;
  capabilities: Capabilities;
  clientVersion: string;
  chatIdRule: ChatIdRule;
  backoff: BackoffPolicy;
  handshakeTimeoutMs: number;
  ackTimeoutMs: number;
  sendExpiryMs: number;
  maxInFlight: number;
  outboxCapacity: number;
  ackDebounceMs: number;
  ackResendMs: number;
  ackEagerWindow: number;
  replayIdleMs: number;
  receiveMaxFrames: number;
  receiveMaxChars: number;
  streamMaxChars: number;
  streamTotalMaxChars: number;
  pingSilenceMs: number;
  pongTimeoutMs: number;
  typingRefreshMs: number;
  typingExpiryMs: number;
  typingMaxMs: number;
  chatGateMs: number;
  gateExemptChatIds: string[];
  maxFrameBytes: number;
  cursorResetTimeoutMs: number;
  logger: HubLogger;
}

export const DEFAULT_MAX_FRAME_BYTES = 8 * 1024 * 1024;

function packageVersion(): string {
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const pkg = require(rel) as { name?: string; version?: string };
      if (pkg.name === '@clawling/node-red-mesh' && pkg.version) return `${pkg.name}/${pkg.version}`;
    } catch {
      // Not at this depth (source tree vs dist tree).
    }
  }
  return '@clawling/node-red-mesh';
}

function duration(value: number | undefined, fallback: number, what: string, allowZero = false): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (!allowZero && v === 0)) {
    throw new HubError('BAD_OPTIONS', `${what} must be a ${allowZero ? 'non-negative' : 'positive'} number of milliseconds, got ${String(value)}`);
  }
  return v;
}

function count(value: number | undefined, fallback: number, what: string): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) throw new HubError('BAD_OPTIONS', `${what} must be a positive integer, got ${String(value)}`);
  return v;
}

export function resolveOptions(o: HubClientOptions): ResolvedOptions {
  if (!o || typeof o !== 'object') throw new HubError('BAD_OPTIONS', 'options are required');
  if (typeof o.url !== 'string' || !/^wss?:\/\/./i.test(o.url)) throw new HubError('BAD_OPTIONS', `url must be a ws:// or wss:// URL, got ${JSON.stringify(o.url)}`);
  try {
    new URL(o.url);
  } catch {
    throw new HubError('BAD_OPTIONS', `url is not a valid URL: ${JSON.stringify(o.url)}`);
  }
  if (typeof o.token !== 'function' && (typeof o.token !== 'string' || o.token === '')) {
    throw new HubError('BAD_OPTIONS', 'token must be a non-empty string or a function returning one');
  }
  if (typeof o.userId !== 'string' || o.userId === '') throw new HubError('BAD_OPTIONS', 'userId is required (your own user id, obtained out of band)');
  if (o.deviceId !== undefined && (typeof o.deviceId !== 'string' || o.deviceId === '' || o.deviceId.length > 200)) {
    throw new HubError('BAD_OPTIONS', 'deviceId must be a non-empty string of at most 200 characters');
  }
  const chatIdRule = o.chatIdRule ?? 'any';
  if (chatIdRule !== 'any' && chatIdRule !== 'cnv') throw new HubError('BAD_OPTIONS', `chatIdRule must be 'any' or 'cnv', got ${String(chatIdRule)}`);
  const reliability = o.reliability ?? 'v2';
  return {
    url: o.url,
    token: o.token,
    userId: o.userId,
    deviceId: o.deviceId,
    store: o.store,
    clock: o.clock ?? systemClock,
    random: o.random ?? Math.random,
    reliability,
    capabilities: capabilitiesFor(reliability, o.capabilities),
    clientVersion: o.clientVersion ?? packageVersion(),
    chatIdRule,
    backoff: resolveBackoffPolicy(o.backoff),
    handshakeTimeoutMs: duration(o.handshakeTimeoutMs, 15_000, 'handshakeTimeoutMs'),
    ackTimeoutMs: duration(o.ackTimeoutMs, 10_000, 'ackTimeoutMs'),
    sendExpiryMs: duration(o.sendExpiryMs, 0, 'sendExpiryMs', true),
    maxInFlight: count(o.maxInFlight, 64, 'maxInFlight'),
    outboxCapacity: count(o.outboxCapacity, 10_000, 'outboxCapacity'),
    ackDebounceMs: duration(o.ackDebounceMs, 200, 'ackDebounceMs'),
    ackResendMs: duration(o.ackResendMs, 30_000, 'ackResendMs'),
    ackEagerWindow: count(o.ackEagerWindow, 128, 'ackEagerWindow'),
    replayIdleMs: duration(o.replayIdleMs, 5000, 'replayIdleMs'),
    receiveMaxFrames: count(o.receiveMaxFrames, 1024, 'receiveMaxFrames'),
    receiveMaxChars: count(o.receiveMaxChars, 4 * 1024 * 1024, 'receiveMaxChars'),
    streamMaxChars: count(o.streamMaxChars, DEFAULT_STREAM_MAX_CHARS, 'streamMaxChars'),
    streamTotalMaxChars: count(o.streamTotalMaxChars, DEFAULT_STREAMS_MAX_CHARS, 'streamTotalMaxChars'),
    pingSilenceMs: duration(o.pingSilenceMs, 30_000, 'pingSilenceMs', true),
    pongTimeoutMs: duration(o.pongTimeoutMs, 10_000, 'pongTimeoutMs'),
    typingRefreshMs: duration(o.typingRefreshMs, 3000, 'typingRefreshMs'),
    typingExpiryMs: duration(o.typingExpiryMs, 6000, 'typingExpiryMs'),
    typingMaxMs: duration(o.typingMaxMs, 120_000, 'typingMaxMs'),
    chatGateMs: duration(o.chatGateMs, 600_000, 'chatGateMs', true),
    gateExemptChatIds: [...(o.gateExemptChatIds ?? [])],
    maxFrameBytes: count(o.maxFrameBytes, DEFAULT_MAX_FRAME_BYTES, 'maxFrameBytes'),
    cursorResetTimeoutMs: duration(o.cursorResetTimeoutMs, 10_000, 'cursorResetTimeoutMs'),
    tls: resolveTls(o.tls),
    logger: o.logger ?? {},
  };
}

function resolveTls(tls: HubTlsOptions | undefined): HubTlsOptions | undefined {
  if (tls === undefined) return undefined;
  if (tls === null || typeof tls !== 'object') throw new HubError('BAD_OPTIONS', 'tls must be an object { ca?, rejectUnauthorized? }');
  const pems = tls.ca === undefined ? [] : Array.isArray(tls.ca) ? tls.ca : [tls.ca];
  if (pems.some((p) => !(typeof p === 'string' || Buffer.isBuffer(p)) || !String(p).includes('-----BEGIN CERTIFICATE-----'))) {
    throw new HubError('BAD_OPTIONS', 'tls.ca must hold PEM certificates (-----BEGIN CERTIFICATE-----)');
  }
  if (tls.rejectUnauthorized !== undefined && typeof tls.rejectUnauthorized !== 'boolean') throw new HubError('BAD_OPTIONS', 'tls.rejectUnauthorized must be a boolean');
  return {
    // Beside the public roots, not instead of them: a CA given for one private hub must not break every other.
    ...(pems.length > 0 ? { ca: [...rootCertificates, ...pems] } : {}),
    ...(tls.rejectUnauthorized !== undefined ? { rejectUnauthorized: tls.rejectUnauthorized } : {}),
  };
}
