/**
 * The hub client's connection loop (guide §3, §3.5, §17): get a token (a string, or a provider asked before every
 * attempt), open a Session (challenge → `connect` → `hello-ok`), and when it ends, decide what comes next from how
 * it ended (close-cause.ts): a backoff and another attempt (backoff-policy.ts: exponential, jittered, reset by a
 * `hello-ok` unless the last batch could not be persisted), or `auth_failed` for a token the hub refused — which
 * is never presented again; a provider is asked once for a fresh one, and a different token reconnects.
 *
 * It owns the current Session, the attempt count, the reconnect timer and the tokens; the client keeps what a
 * session carries (the live connection, replay, acks, the outbox) and hears of each session on the internal events
 * (core.ts): `session-open`, `frame`, `dseq-gap`, `session-end`, `state`.
 */
import { backoffDelay, type CloseCause } from '../backoff-policy';
import { AUTH_FAILED_REASON, classifyEnd } from './close-cause';
import { backgroundClock, type TimerHandle } from '../../clock';
import type { HubCore } from '../core';
import { HubError } from '../errors';
import type { HubClientOptions } from '../options';
import type { SessionEnd } from '../session-info';
import { Session } from './session';

export class ConnectionLoop {
  private current: Session | undefined;
  private sessionSeq = 0;
  private attemptCount = 0;
  private connections = 0;
  private token: HubClientOptions['token'];
  private refusedToken: string | undefined;
  /** A fresh token fetched after "authentication failed", used by the next attempt instead of asking again. */
  private prefetchedToken: string | undefined;
  private reconnectTimer: TimerHandle | undefined;
  private endWaiters: Array<() => void> = [];

  constructor(
    private readonly core: HubCore,
    token: HubClientOptions['token'],
  ) {
    this.token = token;
  }

  /** The session being opened or open, if any. */
  get session(): Session | undefined {
    return this.current;
  }

  /** Attempts since the last good `hello-ok` (what the backoff grows with). */
  get attempt(): number {
    return this.attemptCount;
  }

  /** Sessions opened so far. */
  get connectionCount(): number {
    return this.connections;
  }

  /** The first attempt. */
  start(): void {
    void this.connect();
  }

  /** Replaces the token (from now on, every attempt presents it or asks it). */
  replaceToken(token: HubClientOptions['token']): void {
    this.token = token;
    this.refusedToken = undefined;
    this.prefetchedToken = undefined;
  }

  /** The token changed on a running client: try at once after `auth_failed` or in a backoff, else reconnect. */
  tokenChanged(reconnect: boolean): void {
    const state = this.core.state;
    if (state === 'auth_failed') {
      this.attemptCount = 0;
      void this.connect();
    } else if (state === 'backoff') {
      this.core.clock.clearTimeout(this.reconnectTimer);
      void this.connect();
    } else if (reconnect && this.current) this.current.close('token-change');
  }

  /** `stop()`: no more attempts; the current session (if any) is closed and this resolves once it ended. */
  async stop(): Promise<void> {
    this.core.clock.clearTimeout(this.reconnectTimer);
    const session = this.current;
    if (!session) return;
    const ended = new Promise<void>((resolve) => this.endWaiters.push(resolve));
    session.close('stop');
    // The socket is force-killed after 2 s by the session itself; this is only a last guard.
    await Promise.race([ended, new Promise<void>((resolve) => backgroundClock.setTimeout(resolve, 3000))]);
  }

  /** `stop()` is over: the session is let go of, ended or not. */
  release(): void {
    this.current = undefined;
  }

  private async connect(): Promise<void> {
    const { core } = this;
    if (core.stopping) return;
    core.clock.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    core.bus.emit('state', { state: 'connecting' });
    let token: string;
    try {
      const prefetched = this.prefetchedToken;
      this.prefetchedToken = undefined;
      token = prefetched ?? (typeof this.token === 'function' ? await this.token() : this.token);
      if (typeof token !== 'string' || token === '') throw new HubError('NO_TOKEN', 'the token provider returned no token');
    } catch (err) {
      if (core.stopping) return;
      this.scheduleReconnect('unreachable', `token provider failed: ${(err as Error).message}`, undefined);
      return;
    }
    if (core.stopping) return;
    if (this.refusedToken !== undefined && token === this.refusedToken) {
      core.bus.emit('state', { state: 'auth_failed', reason: AUTH_FAILED_REASON });
      return;
    }
    this.connections++;
    const o = core.options;
    this.current = new Session(
      {
        url: o.url,
        token,
        deviceId: core.deviceId,
        capabilities: o.capabilities,
        clientVersion: o.clientVersion,
        clock: core.clock,
        handshakeTimeoutMs: o.handshakeTimeoutMs,
        maxPayload: 2 * o.maxFrameBytes,
        connectTraceId: core.traceId('connect'),
        id: ++this.sessionSeq,
        ...(o.tls ? { tls: o.tls } : {}),
      },
      {
        onHelloOk: (s, hello) => {
          if (s !== this.current) return;
          if (!core.persistFailed) this.attemptCount = 0;
          core.bus.emit('session-open', { session: s, hello });
        },
        onFrame: (s, parsed) => core.bus.emit('frame', { session: s, parsed }),
        onDseqGap: (_s, expected, got) => core.bus.emit('dseq-gap', { expected, got }),
        onEnd: (s, end) => this.onEnd(s, end, token),
      },
    );
  }

  private onEnd(session: Session, end: SessionEnd, token: string): void {
    if (session !== this.current) return;
    const waiters = this.endWaiters;
    this.endWaiters = [];
    for (const w of waiters) w();
    this.current = undefined;
    // Read before the client hears of the end: that is when it lets go of the reset it was waiting for.
    const expected = this.core.resetSession === session.id;
    this.core.bus.emit('session-end', { session, end });
    if (this.core.stopping) return;
    const verdict = classifyEnd(end, expected);
    if (verdict.terminal) this.onAuthFailed(token);
    else this.scheduleReconnect(verdict.cause, verdict.reason, end.code);
  }

  /** Terminal for this token (§3.5): try a fresh one from the provider, never the same one again. */
  private onAuthFailed(token: string): void {
    const { core } = this;
    this.refusedToken = token;
    core.bus.emit('state', { state: 'auth_failed', reason: AUTH_FAILED_REASON });
    core.warn(new HubError('AUTH_FAILED', 'the hub refused the token ("authentication failed"); a fresh token is needed'));
    if (typeof this.token !== 'function') return;
    const provider = this.token;
    void (async () => {
      let fresh: string | undefined;
      try {
        fresh = await provider();
      } catch {
        fresh = undefined;
      }
      if (core.stopping || core.state !== 'auth_failed') return;
      if (typeof fresh === 'string' && fresh !== '' && fresh !== this.refusedToken) {
        this.prefetchedToken = fresh;
        this.scheduleReconnect('hello-fail', AUTH_FAILED_REASON, undefined);
      }
    })();
  }

  private scheduleReconnect(cause: CloseCause, reason: string | undefined, closeCode: number | undefined): void {
    const { core } = this;
    const delay = backoffDelay(this.attemptCount, cause, core.options.backoff, core.options.random());
    this.attemptCount++;
    const retryAt = core.clock.now() + delay;
    core.bus.emit('state', { state: 'backoff', cause, reason, closeCode, retryAt, retryInMs: delay });
    this.reconnectTimer = core.clock.setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, delay);
  }
}
