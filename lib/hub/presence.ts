/**
 * Presence subscriptions live on one connection (guide §9.2): the client remembers what the caller asked for and
 * subscribes again after every `hello-ok`. The hub's limits are checked here so they fail loudly instead of
 * silently: at most 16 per connection, and only `usr_…` / `agt_…` ids.
 */
import { HubError } from './errors';

export const PRESENCE_LIMIT = 16;
const PRESENCE_ID = /^(usr_|agt_)./;

export function checkPresenceUserId(userId: unknown): string {
  if (typeof userId !== 'string' || !PRESENCE_ID.test(userId)) {
    throw new HubError('BAD_USER_ID', `presence needs a user id starting with usr_ or agt_, got ${JSON.stringify(userId)}`);
  }
  return userId;
}

export class PresenceSubscriptions {
  private readonly users = new Set<string>();

  constructor(private readonly limit = PRESENCE_LIMIT) {}

  /** Returns true when newly added. Re-adding is allowed (the hub re-issues the snapshot). */
  add(userId: string): boolean {
    checkPresenceUserId(userId);
    if (this.users.has(userId)) return false;
    if (this.users.size >= this.limit) {
      throw new HubError('PRESENCE_LIMIT', `at most ${this.limit} presence subscriptions per connection`, { limit: this.limit });
    }
    this.users.add(userId);
    return true;
  }

  remove(userId: string): boolean {
    return this.users.delete(userId);
  }

  has(userId: string): boolean {
    return this.users.has(userId);
  }

  list(): string[] {
    return [...this.users];
  }
}
