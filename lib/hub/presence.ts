/**
 * Presence subscriptions live on one connection (guide §9.2): the client remembers what its callers asked for,
 * counted per subscriber, and subscribes again after every `hello-ok`. The hub's limits are checked here so they fail loudly instead of
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

/** Who holds a subscription when the caller names no subscriber. */
export const DEFAULT_SUBSCRIBER = '';

/**
 * The users this connection is subscribed to, each with the set of subscribers holding it (a subscriber is
 * whatever the caller names: a node id, a bridge). The hub sees one subscription per user, held while any
 * subscriber holds it, so one subscriber letting go never drops another's.
 */
export class PresenceSubscriptions {
  private readonly users = new Map<string, Set<string>>();

  constructor(private readonly limit = PRESENCE_LIMIT) {}

  /** Adds a hold; returns true when the user is new to the connection. Re-adding is allowed (the hub re-issues the snapshot). */
  add(userId: string, subscriber = DEFAULT_SUBSCRIBER): boolean {
    checkPresenceUserId(userId);
    const holders = this.users.get(userId);
    if (holders) {
      holders.add(subscriber);
      return false;
    }
    if (this.users.size >= this.limit) {
      throw new HubError('PRESENCE_LIMIT', `at most ${this.limit} presence subscriptions per connection`, { limit: this.limit });
    }
    this.users.set(userId, new Set([subscriber]));
    return true;
  }

  /** Releases one subscriber's hold; returns true when that was the last one (the hub should be told). */
  remove(userId: string, subscriber = DEFAULT_SUBSCRIBER): boolean {
    const holders = this.users.get(userId);
    if (!holders || !holders.delete(subscriber)) return false;
    if (holders.size > 0) return false;
    this.users.delete(userId);
    return true;
  }

  /** Releases every hold of a subscriber; returns the users nobody holds any more. */
  removeSubscriber(subscriber: string): string[] {
    const released: string[] = [];
    for (const userId of [...this.users.keys()]) if (this.remove(userId, subscriber)) released.push(userId);
    return released;
  }

  has(userId: string): boolean {
    return this.users.has(userId);
  }

  /** Every subscribed user, or those one subscriber holds. */
  list(subscriber?: string): string[] {
    if (subscriber === undefined) return [...this.users.keys()];
    return [...this.users].filter(([, holders]) => holders.has(subscriber)).map(([userId]) => userId);
  }

  /** Who holds the subscription to a user. */
  holders(userId: string): string[] {
    return [...(this.users.get(userId) ?? [])];
  }
}
