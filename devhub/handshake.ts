/**
 * The connection lifecycle (guide §3): `connect.challenge` at once, a `connect` within the handshake timeout, then
 * `hello-ok` or `hello-fail` with one of the five reasons. A `hello-fail` is followed by a bare TCP close with no
 * WebSocket CLOSE frame (the client reads 1006); a missed deadline closes the same way without any frame.
 * On success the device's previous connection is replaced with close code 4001 (takeover, throttled when it repeats),
 * reliable delivery is negotiated, and device replay starts.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type WebSocket from 'ws';
import type { DropMode } from './types';
import { later, type HubContext } from './context';
import { startReplay } from './delivery';
import { isObject, PROTOCOL_VERSION, stripNul } from './envelope';
import { kick } from './kick-close';
import { announcePresence } from './presence-announce';
import { routeUplink } from './router';
import { CAPABILITIES, Session, type Capability } from './session';

export const REASON_NONCE = 'nonce mismatch';
export const REASON_AUTH = 'authentication failed';
export const REASON_UNAVAILABLE = 'remote auth service unavailable';
export const REASON_EVENT = 'invalid connect event';
export const REASON_PAYLOAD = 'invalid connect payload';

const TAKEOVER_CLOSE_TEXT = 'connection replaced by a newer session for this device';
/** The close code of the echo-token fault's `close` form (4401: unauthorised, in the application range). */
export const ECHO_TOKEN_CLOSE_CODE = 4401;
/** RFC 6455 §5.5: a close reason fits in 123 bytes. */
const MAX_CLOSE_REASON_BYTES = 123;

export function onConnection(ctx: HubContext, ws: WebSocket, socket: Duplex, req: IncomingMessage): void {
  const session = new Session(ctx.ids.connectionId(), ws, socket, ctx.ids.nonce(), ctx.now(), req.socket.remoteAddress ?? '');
  ctx.sessions.add(session);
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => onFrame(ctx, session, toBuffer(data)));
  ws.on('close', (code: number) => onClose(ctx, session, code));
  ws.on('error', (err: Error) => ctx.log('debug', 'socket error', { connection: session.id, error: err.message }));
  ws.on('pong', () => {
    session.lastPongAt = ctx.now();
  });
  // The server answers RFC 6455 pings itself (autoPong is off) so that a half-open connection can stay silent.
  ws.on('ping', (data: Buffer) => {
    if (session.silent || ws.readyState !== ws.OPEN) return;
    ws.pong(data);
  });
  ws.send(
    JSON.stringify({ version: PROTOCOL_VERSION, event: 'connect.challenge', trace_id: 'challenge', emitted_at: ctx.now(), payload: { nonce: session.nonce } }),
  );
  session.handshakeTimer = later(ctx, ctx.settings.handshake_timeout_ms, () => {
    if (session.phase !== 'handshake') return;
    ctx.log('info', 'handshake timed out', { connection: session.id });
    abort(session);
  });
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function onFrame(ctx: HubContext, session: Session, data: Buffer): void {
  switch (session.phase) {
    case 'handshake':
      if (data.length > ctx.settings.max_connect_frame_bytes) {
        session.phase = 'closed';
        session.ws.close(1009, 'connect frame too big');
        return;
      }
      handleConnect(ctx, session, data.toString('utf8'));
      return;
    case 'authenticating':
      session.early.push(data.toString('utf8'));
      return;
    case 'replaying':
    case 'live':
      routeUplink(ctx, session, data.toString('utf8'));
      return;
    default:
      return;
  }
}

/** Ends the TCP connection without a WebSocket CLOSE frame, after what was already written has gone out. */
function abort(session: Session): void {
  session.phase = 'closed';
  session.socket.end();
  setTimeout(() => session.socket.destroy(), 1000).unref();
}

function helloFail(ctx: HubContext, session: Session, trace: string, reason: string): void {
  session.phase = 'closed';
  ctx.log('info', 'handshake refused', { connection: session.id, reason });
  ctx.events.emit('hello-fail', { connection_id: session.id, reason });
  const text = JSON.stringify({ version: PROTOCOL_VERSION, event: 'hello-fail', trace_id: trace, emitted_at: ctx.now(), payload: { reason } });
  session.ws.send(text, () => abort(session));
}

/**
 * The echo-token fault: a refusal quoting the token presented, as a careless server writes it. The dev hub's own
 * log and events name the fault, never the token. A close reason longer than RFC 6455 allows is cut at 123 bytes.
 */
function echoToken(ctx: HubContext, session: Session, trace: string, token: string, via: 'hello-fail' | 'close'): void {
  session.phase = 'closed';
  const text = `invalid token: Bearer ${token}`;
  ctx.log('info', 'handshake refused, echoing the token (fault)', { connection: session.id, via });
  if (via === 'close') {
    session.ws.close(ECHO_TOKEN_CLOSE_CODE, Buffer.from(text, 'utf8').subarray(0, MAX_CLOSE_REASON_BYTES).toString('utf8'));
    return;
  }
  ctx.events.emit('hello-fail', { connection_id: session.id, reason: 'invalid token: Bearer [token]' });
  const frame = JSON.stringify({ version: PROTOCOL_VERSION, event: 'hello-fail', trace_id: trace, emitted_at: ctx.now(), payload: { reason: text } });
  session.ws.send(frame, () => abort(session));
}

/** The fail-handshake fault: the connection ends after a valid `connect`, with neither `hello-ok` nor `hello-fail`. */
function endHandshake(ctx: HubContext, session: Session, userId: string, deviceId: string, mode: DropMode): void {
  ctx.log('info', 'handshake cut by a fault', { connection: session.id, user: userId, mode });
  ctx.events.emit('kick', { connection_id: session.id, user_id: userId, device_id: deviceId, reason: 'fault' });
  session.phase = 'closed';
  session.drop(mode);
}

interface ConnectPayload {
  token: string;
  nonce: string;
  device_id: string | undefined;
  client_version: string | undefined;
  protocol_version: number | undefined;
  capabilities: Partial<Record<Capability, boolean>>;
}

/** Decodes the connect payload as a typed struct would: wrong types fail the decode, unknown keys are ignored. */
function decodePayload(value: unknown): ConnectPayload | undefined {
  if (!isObject(value)) return undefined;
  const { token, nonce, device_id, client_version, protocol_version, capabilities } = value;
  if (typeof token !== 'string' || typeof nonce !== 'string') return undefined;
  if (device_id !== undefined && device_id !== null && typeof device_id !== 'string') return undefined;
  if (client_version !== undefined && client_version !== null && typeof client_version !== 'string') return undefined;
  if (protocol_version !== undefined && protocol_version !== null && !Number.isInteger(protocol_version)) return undefined;
  const caps: Partial<Record<Capability, boolean>> = {};
  if (capabilities !== undefined && capabilities !== null) {
    if (!isObject(capabilities)) return undefined;
    for (const name of CAPABILITIES) {
      const flag = capabilities[name];
      if (flag === undefined || flag === null) continue;
      if (typeof flag !== 'boolean') return undefined;
      caps[name] = flag;
    }
  }
  return {
    token,
    nonce,
    device_id: typeof device_id === 'string' && device_id !== '' ? device_id : undefined,
    client_version: typeof client_version === 'string' ? client_version : undefined,
    // Omission is recorded as 0 (§3.3).
    protocol_version: typeof protocol_version === 'number' ? protocol_version : 0,
    capabilities: caps,
  };
}

function handleConnect(ctx: HubContext, session: Session, text: string): void {
  if (session.handshakeTimer) clearTimeout(session.handshakeTimer);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const env = isObject(parsed) ? (stripNul(parsed) as Record<string, unknown>) : undefined;
  const trace = env && typeof env.trace_id === 'string' ? env.trace_id : '';
  if (!env || env.event !== 'connect' || env.version !== PROTOCOL_VERSION) return helloFail(ctx, session, trace, REASON_EVENT);
  const payload = decodePayload(env.payload);
  if (!payload) return helloFail(ctx, session, trace, REASON_PAYLOAD);
  if (payload.nonce !== session.nonce) return helloFail(ctx, session, trace, REASON_NONCE);
  const user = ctx.directory.authenticate(payload.token);
  const echo = ctx.faults.takeTokenEcho(user?.id);
  if (echo !== undefined) return echoToken(ctx, session, trace, payload.token, echo);
  const refusal = ctx.faults.takeAuthRefusal(user?.id);
  if (refusal !== undefined) return helloFail(ctx, session, trace, refusal);
  if (!user) return helloFail(ctx, session, trace, REASON_AUTH);
  const cut = ctx.faults.takeHandshakeFailure(user.id);
  if (cut !== undefined) return endHandshake(ctx, session, user.id, payload.device_id ?? user.id, cut);

  session.phase = 'authenticating';
  session.user = user;
  session.deviceId = payload.device_id ?? user.id;
  session.capabilities = payload.capabilities;
  session.clientVersion = payload.client_version;
  session.protocolVersion = payload.protocol_version;

  let delay = 0;
  if (ctx.sessions.holder(user.id, session.deviceId)) {
    const throttle = ctx.settings.takeover_throttle;
    const recent = ctx.sessions.countTakeover(user.id, session.deviceId, ctx.now(), throttle.window_ms);
    // Throttled, never refused (§3.6): a bounded delay that grows with the storm.
    if (recent > throttle.max) delay = Math.min(throttle.max_delay_ms, 250 * (recent - throttle.max));
  }
  if (delay > 0) later(ctx, delay, () => install(ctx, session, trace));
  else install(ctx, session, trace);
}

function install(ctx: HubContext, session: Session, trace: string): void {
  if (session.phase !== 'authenticating' || session.ws.readyState !== session.ws.OPEN) return;
  const user = session.user!;
  const wasOnline = ctx.sessions.online(user.id);
  const previous = ctx.sessions.install(session);
  if (previous) {
    kick(ctx, previous, 'takeover', 4001, TAKEOVER_CLOSE_TEXT);
    previous.phase = 'closed';
  }
  const reliability = ctx.settings.reliability;
  session.v1 = session.has('reliable_delivery') && reliability.v1;
  if (session.has('reliable_delivery_v2') && reliability.v2) {
    session.v2 = { epoch: ctx.ids.ulid(), next: 1, acked: 0, ledger: [], head: 0, last_ack_at: ctx.now(), covered: 0, skip: 0 };
  }
  const hello: Record<string, unknown> = { device_id: session.deviceId, delivery_mode: 'device_replay' };
  if (session.v2) {
    hello.ack_mode = 'dseq';
    hello.ack_epoch = session.v2.epoch;
  }
  session.phase = 'replaying';
  session.write(JSON.stringify({ version: PROTOCOL_VERSION, event: 'hello-ok', trace_id: trace, emitted_at: ctx.now(), payload: hello }));
  ctx.log('info', 'handshake accepted', {
    connection: session.id,
    user: user.id,
    device: session.deviceId,
    client_version: session.clientVersion,
    protocol_version: session.protocolVersion,
    ack_mode: session.ackMode,
  });
  startPing(ctx, session);
  if (!wasOnline) announcePresence(ctx, user.id, true);
  ctx.events.emit('hello', session.info());
  startReplay(ctx, session);
  const early = session.early;
  session.early = [];
  for (const text of early) routeUplink(ctx, session, text);
}

function startPing(ctx: HubContext, session: Session): void {
  const s = ctx.settings;
  if (s.ping_interval_ms === 0) return;
  const deadline = s.ping_interval_ms * s.max_miss_pong + s.pong_timeout_ms;
  session.pingTimer = setInterval(() => {
    // A half-open connection neither pings nor is judged by its pongs: it is silent, not dead, from here.
    if (!session.open || session.silent) return;
    if (ctx.now() - session.lastPongAt > deadline) {
      ctx.events.emit('kick', { connection_id: session.id, user_id: session.user?.id ?? '', device_id: session.deviceId, reason: 'pong_timeout' });
      session.ws.terminate();
      return;
    }
    session.ws.ping();
  }, s.ping_interval_ms);
  session.pingTimer.unref();
}

function onClose(ctx: HubContext, session: Session, code: number): void {
  const user = session.user;
  session.phase = 'closed';
  session.closeCode = code;
  if (session.handshakeTimer) clearTimeout(session.handshakeTimer);
  if (session.pingTimer) clearInterval(session.pingTimer);
  ctx.presence.dropSession(session);
  if (user && session.deferred.length > 0) ctx.deferredNotify.restoreAll(user.id, session.deviceId, session.deferred);
  session.deferred = [];
  const last = ctx.sessions.remove(session);
  if (user && last) announcePresence(ctx, user.id, false);
  ctx.events.emit('disconnect', { connection_id: session.id, user_id: user?.id, device_id: user ? session.deviceId : undefined, code });
}
