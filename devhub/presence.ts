/**
 * Presence (guide §9.2): who watches whom, per connection, and when each user was last seen. Subscriptions belong to
 * a connection and die with it; `last_seen_at` survives (it is part of the state file).
 */
import type { Session } from './session';

/** RFC 3339 UTC with second precision, as the guide's examples render it. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class Presence {
  private readonly watchers = new Map<string, Set<Session>>();
  private readonly lastSeen = new Map<string, number>();

  subscribe(session: Session, target: string): void {
    session.presence.add(target);
    let set = this.watchers.get(target);
    if (!set) {
      set = new Set();
      this.watchers.set(target, set);
    }
    set.add(session);
  }

  unsubscribe(session: Session, target: string): void {
    session.presence.delete(target);
    const set = this.watchers.get(target);
    if (!set) return;
    set.delete(session);
    if (set.size === 0) this.watchers.delete(target);
  }

  dropSession(session: Session): void {
    for (const target of [...session.presence]) this.unsubscribe(session, target);
  }

  watchersOf(target: string): Session[] {
    return [...(this.watchers.get(target) ?? [])];
  }

  markSeen(userId: string, at: number): void {
    this.lastSeen.set(userId, at);
  }

  payload(userId: string, online: boolean): Record<string, unknown> {
    const seen = this.lastSeen.get(userId);
    // The key is omitted, not null, for a user who never connected.
    return seen === undefined ? { user_id: userId, online } : { user_id: userId, online, last_seen_at: rfc3339(seen) };
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries(this.lastSeen);
  }

  restore(saved: Record<string, number>): void {
    for (const [user, at] of Object.entries(saved)) this.lastSeen.set(user, at);
  }
}
