/**
 * Liveness of one hub session: the idle fallback that ends replay when the hub goes quiet without `replay.done`
 * (guide §11.5), and the optional JSON ping that drops a socket which stays silent even to a probe (§12). Both read
 * the client's injected clock; while the client does not read the socket (receive backpressure), silence proves
 * nothing, so neither acts on it then.
 */
import type { Clock, TimerHandle } from './clock';
import { HubError } from './errors';
import type { Session } from './session';

export interface LivenessOptions {
  replayIdleMs: number;
  /** 0 turns the probe off. */
  pingSilenceMs: number;
  pongTimeoutMs: number;
}

/** What liveness needs of the client. */
export interface LivenessHost {
  readonly clock: Clock;
  /** The live session (after `hello-ok`), if any. */
  live(): Session | undefined;
  /** Whether the client has stopped reading `session`. */
  readPaused(session: Session): boolean;
  replaying(): boolean;
  /** Replay is over by the idle fallback (after the frames already read are handled). */
  replayIdle(session: Session): void;
  /** Sends a `ping` uplink on `session`. */
  ping(session: Session, now: number): void;
  warn(err: HubError): void;
}

export class Liveness {
  private replayTimer: TimerHandle | undefined;
  private probeTimer: TimerHandle | undefined;
  private pingOutstandingSince: number | undefined;

  constructor(
    private readonly host: LivenessHost,
    private readonly options: LivenessOptions,
  ) {}

  /** `hello-ok`: start watching the live session. */
  begin(): void {
    this.armReplayIdle();
    this.armProbe();
  }

  /** A frame came: any probe is answered. */
  frameSeen(): void {
    this.pingOutstandingSince = undefined;
  }

  /** Replay ended (by `replay.done` or the fallback). */
  replayEnded(): void {
    this.host.clock.clearTimeout(this.replayTimer);
    this.replayTimer = undefined;
  }

  /** The session ended, or the client stops. */
  end(): void {
    this.host.clock.clearTimeout(this.replayTimer);
    this.host.clock.clearTimeout(this.probeTimer);
    this.replayTimer = undefined;
    this.probeTimer = undefined;
    this.pingOutstandingSince = undefined;
  }

  /** The idle fallback of §11.5: replay is over once no frame came for `replayIdleMs`, even without `replay.done`. */
  private armReplayIdle(delay = this.options.replayIdleMs): void {
    const { clock } = this.host;
    clock.clearTimeout(this.replayTimer);
    const session = this.host.live();
    if (!session) return;
    this.replayTimer = clock.setTimeout(() => {
      this.replayTimer = undefined;
      if (this.host.live() !== session || !this.host.replaying()) return;
      // Not reading is not the hub being quiet.
      if (this.host.readPaused(session)) {
        this.armReplayIdle();
        return;
      }
      const quiet = clock.now() - session.lastFrameAt;
      if (quiet < this.options.replayIdleMs) {
        this.armReplayIdle(this.options.replayIdleMs - quiet);
        return;
      }
      this.host.replayIdle(session);
    }, delay);
  }

  /** The optional JSON ping (§12): after `pingSilenceMs` without a frame, probe; no frame within `pongTimeoutMs` → dead. */
  private armProbe(): void {
    const { clock } = this.host;
    const { pingSilenceMs, pongTimeoutMs } = this.options;
    clock.clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    const session = this.host.live();
    if (!session || pingSilenceMs === 0) return;
    const now = clock.now();
    // While this side does not read, silence proves nothing (and a pong could not be read): look again later.
    if (this.host.readPaused(session)) {
      this.pingOutstandingSince = undefined;
      this.probeTimer = clock.setTimeout(() => this.armProbe(), pingSilenceMs);
      return;
    }
    if (this.pingOutstandingSince !== undefined) {
      if (session.lastFrameAt > this.pingOutstandingSince) this.pingOutstandingSince = undefined;
      else if (now - this.pingOutstandingSince >= pongTimeoutMs) {
        this.host.warn(new HubError('NOT_CONNECTED', `no frame for ${now - session.lastFrameAt} ms, not even a pong; dropping the connection`));
        session.close('dead-socket', true);
        return;
      }
    }
    if (this.pingOutstandingSince === undefined && now - session.lastFrameAt >= pingSilenceMs) {
      this.pingOutstandingSince = now;
      this.host.ping(session, now);
    }
    const wait = this.pingOutstandingSince !== undefined ? this.pingOutstandingSince + pongTimeoutMs - now : session.lastFrameAt + pingSilenceMs - now;
    this.probeTimer = clock.setTimeout(() => this.armProbe(), Math.max(1, wait));
  }
}
