/**
 * How the receive path writes the inbox: a fingerprint over the content that matters (not the per-delivery
 * stamps `emitted_at`, `trace_id`, `seq`, `dseq`), so a replayed copy is recognised as a duplicate and a coalesce
 * re-write with new content as an update.
 */
import { createHash } from 'node:crypto';
import { stableStringify } from '../json';
import { utf8Length } from '../../bytes';
import type { Store, UpsertOutcome } from '../../store';

export function fingerprint(content: unknown): string {
  return createHash('sha256').update(stableStringify(content), 'utf8').digest('base64');
}

export interface InboxEntry {
  messageId: string;
  chatId: string;
  event: string;
  senderId: string;
  provisional: boolean;
  content: unknown;
  /** What to keep as the row's body (kept only up to `maxBodyBytes`). */
  body: unknown;
}

export function recordInbox(store: Store, entry: InboxEntry, at: number, maxBodyBytes: number): UpsertOutcome {
  let body = JSON.stringify(entry.body) ?? '';
  if (utf8Length(body) > maxBodyBytes) body = '';
  return store.inbox.upsert({
    messageId: entry.messageId,
    chatId: entry.chatId,
    event: entry.event,
    senderId: entry.senderId,
    provisional: entry.provisional,
    fingerprint: fingerprint(entry.content),
    body,
    at,
  });
}
