/**
 * The rate limit of ack-silence kicks (the close itself: kick-close.ts). Ack-silence kicks are rate-limited per
 * device (§11.7): after `after_kicks` consecutive kicks within `window_ms` they back off exponentially up to
 * `max_ms`, and the device stays connected meanwhile.
 */
import { deviceKey } from './session';
import { jitteredDelay } from '../lib/backoff';

interface KickHistory {
  times: number[];
}

export class KickBackoff {
  private readonly history = new Map<string, KickHistory>();

  constructor(private readonly settings: { after_kicks: number; window_ms: number; base_ms: number; max_ms: number }) {}

  /** Whether an ack-silence kick of this device may happen now. */
  allowed(userId: string, deviceId: string, now: number): boolean {
    const h = this.history.get(deviceKey(userId, deviceId));
    if (!h) return true;
    const recent = h.times.filter((t) => now - t < this.settings.window_ms);
    h.times = recent;
    if (recent.length < this.settings.after_kicks) return true;
    const exponent = recent.length - this.settings.after_kicks;
    const wait = jitteredDelay(exponent, { initialMs: this.settings.base_ms, maxMs: this.settings.max_ms, factor: 2, jitter: 0 }, 0);
    return now - recent[recent.length - 1] >= wait;
  }

  note(userId: string, deviceId: string, now: number): void {
    const k = deviceKey(userId, deviceId);
    const h = this.history.get(k) ?? { times: [] };
    h.times.push(now);
    this.history.set(k, h);
  }

  /** A valid ack ends the run of consecutive kicks. */
  reset(userId: string, deviceId: string): void {
    this.history.delete(deviceKey(userId, deviceId));
  }
}
