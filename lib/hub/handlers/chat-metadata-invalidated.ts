/**
 * `chat.metadata.invalidated` (guide §9.3): content-free, names what to refetch. Every element of `scope` counts
 * (one PATCH can change several fields); an unknown or empty scope means "refetch everything". A `version` not above
 * the last one seen for the chat is a duplicate and is dropped.
 */
import type { MetadataRefetch } from '../events';
import { num } from '../json';
import type { FrameContext } from './context';

const CONVERSATION_SCOPES = new Set(['title', 'description', 'member_add_policy', 'avatar']);

export function refetchFor(scopes: readonly string[]): MetadataRefetch {
  const r: MetadataRefetch = { conversation: false, announcements: false, agent: false, everything: scopes.length === 0 };
  for (const scope of scopes) {
    if (CONVERSATION_SCOPES.has(scope)) r.conversation = true;
    else if (scope === 'announcement') {
      r.conversation = true;
      r.announcements = true;
    } else if (scope === 'behavior') r.agent = true;
    else r.everything = true;
  }
  if (r.everything) {
    r.conversation = true;
    r.announcements = true;
  }
  return r;
}

export function handleChatMetadataInvalidated(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const chatId = frame.chatId;
  if (!chatId) return;
  const p = frame.payload;
  const scopes = Array.isArray(p.scope) ? p.scope.filter((s): s is string => typeof s === 'string') : [];
  const version = num(p.version);
  if (version !== undefined && !services.store.kv.setMax(`hub.meta-version:${chatId}`, version)) return;
  ctx.emit('chat-metadata', { chatId, chatType: frame.chatType, scopes, refetch: refetchFor(scopes), version, updatedAt: num(p.updated_at) });
}
