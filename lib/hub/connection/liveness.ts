/**
 * Liveness of one hub session: the idle fallback that ends replay when the hub goes quiet without `replay.done`
 * (guide §11.5), and the optional JSON ping that drops a socket which stays silent even to a probe (§12). Both read
 * the client's injected clock; while the client does not read the socket (receive backpressure), silence proves
 * nothing, so neither acts on it then.
 */
import type { TimerHandle } from '../../clock';
import type { HubCore } from '../core';
import { EVENT, uplink } from '../envelope';
import { HubError } from '../errors';

export interface LivenessOptions {
  replayIdleMs: number;
  /** 0 turns the probe off. */
  pingSilenceMs: number;
  pongTimeoutMs: number;
}

export class Liveness {
  private replayTimer: TimerHandle | undefined;
  private probeTimer: TimerHandle | undefined;
  private pingOutstandingSince: number | undefined;

  constructor(
    private readonly core: HubCore,
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
    this.core.clock.clearTimeout(this.replayTimer);
    this.replayTimer = undefined;
  }

  /** The session ended, or the client stops. */
  end(): void {
    this.core.clock.clearTimeout(this.replayTimer);
    this.core.clock.clearTimeout(this.probeTimer);
    this.replayTimer = undefined;
    this.probeTimer = undefined;
    this.pingOutstandingSince = undefined;
  }

  /** The idle fallback of §11.5: replay is over once no frame came for `replayIdleMs`, even without `replay.done`. */
  private armReplayIdle(delay = this.options.replayIdleMs): void {
    const { clock } = this.core;
    clock.clearTimeout(this.replayTimer);
    const session = this.core.live;
    if (!session) return;
    this.replayTimer = clock.setTimeout(() => {
      this.replayTimer = undefined;
      if (this.core.live !== session || !this.core.replaying) return;
      // Not reading is not the hub being quiet.
      if (this.core.readPaused === session) {
        this.armReplayIdle();
        return;
      }
      const quiet = clock.now() - session.lastFrameAt;
      if (quiet < this.options.replayIdleMs) {
        this.armReplayIdle(this.options.replayIdleMs - quiet);
        return;
      }
      this.core.bus.emit('replay-idle', session);
    }, delay);
  }

  /** The optional JSON ping (§12): after `pingSilenceMs` without a frame, probe; no frame within `pongTimeoutMs` → dead. */
  private armProbe(): void {
    const { clock } = this.core;
    const { pingSilenceMs, pongTimeoutMs } = this.options;
    clock.clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    const session = this.core.live;
    if (!session || pingSilenceMs === 0) return;
    const now = clock.now();
    // While this side does not read, silence proves nothing (and a pong could not be read): look again later.
    if (this.core.readPaused === session) {
      this.pingOutstandingSince = undefined;
      this.probeTimer = clock.setTimeout(() => this.armProbe(), pingSilenceMs);
      return;
    }
    if (this.pingOutstandingSince !== undefined) {
      if (session.lastFrameAt > this.pingOutstandingSince) this.pingOutstandingSince = undefined;
      else if (now - this.pingOutstandingSince >= pongTimeoutMs) {
        this.core.warn(new HubError('NOT_CONNECTED', `no frame for ${now - session.lastFrameAt} ms, not even a pong; dropping the connection`));
        session.close('dead-socket', true);
        return;
      }
    }
    if (this.pingOutstandingSince === undefined && now - session.lastFrameAt >= pingSilenceMs) {
      this.pingOutstandingSince = now;
      session.send(uplink(EVENT.ping, this.core.traceId('ping'), now, {}));
    }
    const wait = this.pingOutstandingSince !== undefined ? this.pingOutstandingSince + pongTimeoutMs - now : session.lastFrameAt + pingSilenceMs - now;
    this.probeTimer = clock.setTimeout(() => this.armProbe(), Math.max(1, wait));
  }
}
