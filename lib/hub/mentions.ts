/**
 * `payload.message.context.mentions` (guide §7.1) is an untyped array relayed element for element. Receivers accept
 * mention objects, bare user-id strings and `null`, and skip anything else; `user_id: "all"` addresses everyone
 * (§10.2). This parser cannot throw, so a strange element never stalls a v2 stream.
 */
import { HubError } from './errors';
import { isObject, str } from './json';

export const MENTION_ALL = 'all';

export interface Mention {
  userId: string;
  display: string | undefined;
}

export function parseMentions(value: unknown): { mentions: Mention[]; skipped: number } {
  if (!Array.isArray(value)) return { mentions: [], skipped: value === null || value === undefined ? 0 : 1 };
  const mentions: Mention[] = [];
  let skipped = 0;
  for (const item of value) {
    if (typeof item === 'string' && item !== '') mentions.push({ userId: item, display: undefined });
    else if (isObject(item) && (item.kind === undefined || item.kind === 'mention') && typeof item.user_id === 'string' && item.user_id !== '') {
      mentions.push({ userId: item.user_id, display: str(item.display) });
    } else skipped++;
  }
  return { mentions, skipped };
}

/** True when the mentions (context or inline fragments) address `userId`, directly or through "all". */
export function mentionsUser(mentions: readonly Mention[], userId: string): boolean {
  return mentions.some((m) => m.userId === userId || m.userId === MENTION_ALL);
}

/**
 * Mentions for an uplink: user-id strings and `{ user_id | userId, display? }` objects become canonical mention
 * objects (§7.1: producers SHOULD emit objects); anything else is refused.
 */
export function outgoingMentions(value: unknown): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new HubError('BAD_ARGUMENT', 'mentions must be an array of user ids or mention objects');
  return value.map((item, i) => {
    if (typeof item === 'string' && item !== '') return { kind: 'mention', user_id: item };
    const userId = isObject(item) ? (item.user_id ?? item.userId) : undefined;
    if (typeof userId !== 'string' || userId === '') throw new HubError('BAD_ARGUMENT', `mention ${i} needs a user id`);
    const m: Record<string, unknown> = { kind: 'mention', user_id: userId };
    if (isObject(item) && typeof item.display === 'string') m.display = item.display;
    return m;
  });
}
