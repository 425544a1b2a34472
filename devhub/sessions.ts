/**
 * Every connection of the hub, and the authenticated ones by `(user_id, device_id)` — the key of takeover (§3.6)
 * and of replay state (§11).
 */
import { deviceKey, type Session } from './session';
import type { DeviceRef, FaultTarget } from './types';

export class SessionRegistry {
  private readonly all = new Map<string, Session>();
  private readonly byDevice = new Map<string, Session>();
  private readonly byUser = new Map<string, Set<Session>>();
  private readonly takeovers = new Map<string, number[]>();

  add(session: Session): void {
    this.all.set(session.id, session);
  }

  /** The authenticated session currently holding this device, if any. */
  holder(userId: string, deviceId: string): Session | undefined {
    return this.byDevice.get(deviceKey(userId, deviceId));
  }

  /** Makes `session` the holder of its device; returns the session it replaces. */
  install(session: Session): Session | undefined {
    const user = session.user;
    if (!user) throw new Error('install before authentication');
    const key = deviceKey(user.id, session.deviceId);
    const previous = this.byDevice.get(key);
    if (previous && previous !== session) this.detach(previous);
    this.byDevice.set(key, session);
    let set = this.byUser.get(user.id);
    if (!set) {
      set = new Set();
      this.byUser.set(user.id, set);
    }
    set.add(session);
    return previous === session ? undefined : previous;
  }

  private detach(session: Session): void {
    const user = session.user;
    if (!user) return;
    const key = deviceKey(user.id, session.deviceId);
    if (this.byDevice.get(key) === session) this.byDevice.delete(key);
    const set = this.byUser.get(user.id);
    if (set) {
      set.delete(session);
      if (set.size === 0) this.byUser.delete(user.id);
    }
  }

  /** Forgets a closed connection; true when it was the user's last authenticated one. */
  remove(session: Session): boolean {
    this.all.delete(session.id);
    const user = session.user;
    const hadUser = user !== undefined && (this.byUser.get(user.id)?.has(session) ?? false);
    this.detach(session);
    return hadUser && user !== undefined && !this.byUser.has(user.id);
  }

  /** Authenticated sessions of a user (any phase after hello-ok). */
  ofUser(userId: string): Session[] {
    return [...(this.byUser.get(userId) ?? [])];
  }

  online(userId: string): boolean {
    return this.byUser.has(userId);
  }

  match(target: DeviceRef | FaultTarget): Session[] {
    const sessions = target.user_id !== undefined ? this.ofUser(target.user_id) : this.authenticated();
    return target.device_id !== undefined ? sessions.filter((s) => s.deviceId === target.device_id) : sessions;
  }

  authenticated(): Session[] {
    return [...this.byUser.values()].flatMap((set) => [...set]);
  }

  every(): Session[] {
    return [...this.all.values()];
  }

  /** Records a takeover and returns how many happened for this device inside the window (this one included). */
  countTakeover(userId: string, deviceId: string, now: number, windowMs: number): number {
    const key = deviceKey(userId, deviceId);
    const recent = (this.takeovers.get(key) ?? []).filter((t) => now - t < windowMs);
    recent.push(now);
    this.takeovers.set(key, recent);
    return recent.length;
  }
}
