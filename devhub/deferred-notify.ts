/**
 * `notify.signal` rows a v1/legacy device did not take live because it did not advertise `notify_signals` (§9.4): the
 * inbox path must still hand them over on that device's next reconnect, even though its cursor moved past them.
 */
import { deviceKey } from './session';

export class DeferredNotify {
  private readonly byDevice = new Map<string, Set<string>>();

  add(userId: string, deviceId: string, messageId: string): void {
    const key = deviceKey(userId, deviceId);
    let set = this.byDevice.get(key);
    if (!set) {
      set = new Set();
      this.byDevice.set(key, set);
    }
    set.add(messageId);
  }

  /** Hands the set over and forgets it. */
  take(userId: string, deviceId: string): string[] {
    const key = deviceKey(userId, deviceId);
    const set = this.byDevice.get(key);
    this.byDevice.delete(key);
    return set ? [...set] : [];
  }

  /** Puts back what a connection took but could not deliver (it closed mid-replay). */
  restoreAll(userId: string, deviceId: string, ids: string[]): void {
    for (const id of ids) this.add(userId, deviceId, id);
  }

  snapshot(): Record<string, string[]> {
    return Object.fromEntries([...this.byDevice].map(([key, set]) => [key, [...set]]));
  }

  restore(saved: Record<string, string[]>): void {
    for (const [key, ids] of Object.entries(saved)) this.byDevice.set(key, new Set(ids));
  }
}
