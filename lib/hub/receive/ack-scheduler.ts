/**
 * When to tell the hub what is durably persisted (guide §11.7). v2 acks the highest contiguous `dseq` with the
 * connection's `ack_epoch` (`message.sync_ack`); v1 acks the highest storage `seq` as an opaque high-water mark
 * (`message.cursor_ack`, never waiting for holes); legacy sends nothing.
 *
 * The rhythm: a flush 200 ms after the high-water mark first advances, at once after `replay.done`, on graceful
 * disconnect, and an unconditional resend every 30 s while connected. Timers alone are not enough (a suspended
 * process keeps receiving frames but runs no timers), so `tick()` is also called from the frame path after every
 * processed batch and flushes when the debounce or the resend interval is already overdue, or when the unacked
 * window grows past `eagerWindow` (the hub kicks a live connection above 4096).
 *
 * Only values reported through `persisted()` are ever acked, and the receive path reports a frame only after the
 * store transaction that holds it committed: an ack never precedes persistence.
 */
import type { Clock, TimerHandle } from '../../clock';
import type { DeliveryMode } from '../events';

export interface AckTimings {
  debounceMs: number;
  resendMs: number;
  eagerWindow: number;
}

export type AckSend = (mode: 'v2' | 'v1', value: number, epoch: string | undefined) => boolean;

export class AckScheduler {
  private mode: DeliveryMode = 'legacy';
  private epoch: string | undefined;
  /** v2: highest contiguous dseq persisted; v1: highest seq persisted. */
  private high = 0;
  /** v2 dseqs persisted ahead of a hole (cannot happen with in-order processing, kept for safety). */
  private readonly ahead = new Set<number>();
  private acked = 0;
  private lastSentAt: number | undefined;
  private debounceTimer: TimerHandle | undefined;
  private resendTimer: TimerHandle | undefined;
  private active = false;
  private sent = 0;

  constructor(
    private readonly clock: Clock,
    private readonly timings: AckTimings,
    private readonly send: AckSend,
  ) {}

  /** On every `hello-ok`: everything restarts from zero with the new epoch (§11.7 "per-connection baseline"). */
  begin(mode: DeliveryMode, epoch: string | undefined): void {
    this.end();
    this.mode = mode;
    this.epoch = epoch;
    this.high = 0;
    this.acked = 0;
    this.ahead.clear();
    this.lastSentAt = this.clock.now();
    this.active = mode !== 'legacy';
    if (this.active) this.armResend();
  }

  /** The connection is gone: stop every timer; nothing more is sent for it. */
  end(): void {
    this.active = false;
    this.clock.clearTimeout(this.debounceTimer);
    this.clock.clearTimeout(this.resendTimer);
    this.debounceTimer = undefined;
    this.resendTimer = undefined;
  }

  get deliveryMode(): DeliveryMode {
    return this.mode;
  }

  /** The highest value persisted and not yet acked (0 when all acked). */
  get pending(): number {
    return this.high - this.acked;
  }

  get highWater(): number {
    return this.high;
  }

  get lastAcked(): number {
    return this.acked;
  }

  /** Acks sent since construction. */
  get acksSent(): number {
    return this.sent;
  }

  /** v2: a frame carrying `dseq` is durably handled (or quarantined). */
  persistedDseq(dseq: number): void {
    if (!this.active || this.mode !== 'v2') return;
    if (dseq <= this.high) return;
    if (dseq === this.high + 1) {
      this.high = dseq;
      while (this.ahead.delete(this.high + 1)) this.high++;
    } else this.ahead.add(dseq);
    this.armDebounce();
  }

  /** v1: a frame carrying `seq` is durably persisted. */
  persistedSeq(seq: number): void {
    if (!this.active || this.mode !== 'v1') return;
    if (seq <= this.high) return;
    this.high = seq;
    this.armDebounce();
  }

  /** Called from the frame path after each processed batch. */
  tick(): void {
    if (!this.active) return;
    const now = this.clock.now();
    const since = now - (this.lastSentAt ?? now);
    if (this.high > this.acked && (since >= this.timings.debounceMs || this.high - this.acked >= this.timings.eagerWindow)) this.flush();
    else if (this.high > 0 && since >= this.timings.resendMs) this.flush(true);
  }

  /** Sends the high-water mark now if it advanced (or always, with `force`). */
  flush(force = false): void {
    if (!this.active || this.high === 0) return;
    if (!force && this.high <= this.acked) return;
    this.clock.clearTimeout(this.debounceTimer);
    this.debounceTimer = undefined;
    if (this.send(this.mode === 'v2' ? 'v2' : 'v1', this.high, this.epoch)) {
      this.acked = this.high;
      this.lastSentAt = this.clock.now();
      this.sent++;
    }
  }

  private armDebounce(): void {
    if (this.debounceTimer !== undefined) return;
    this.debounceTimer = this.clock.setTimeout(() => {
      this.debounceTimer = undefined;
      this.flush();
    }, this.timings.debounceMs);
  }

  private armResend(): void {
    this.resendTimer = this.clock.setTimeout(() => {
      this.resendTimer = undefined;
      if (!this.active) return;
      this.flush(true);
      this.armResend();
    }, this.timings.resendMs);
  }
}
