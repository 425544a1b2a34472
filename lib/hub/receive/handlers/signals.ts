/** Ephemeral and content-free signals: typing, presence, `notify.signal`, chat metadata, permission cards. */
import { EVENT } from '../../envelope';
import type { MetadataRefetch } from '../../events';
import { bool, id, isObject, num, str } from '../../json';
import type { FrameContext } from './context';

/** `typing.update` downlink (guide §9.1): a peer's indicator, expired locally if no refresh comes. */
export function handleTypingUpdate(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const userId = frame.sender?.id;
  if (!frame.chatId || !userId || userId === ctx.userId) return;
  const isTyping = bool(frame.payload.is_typing) ?? false;
  const chatId = frame.chatId;
  ctx.later(() => services.core.report('typing', services.typing.update(chatId, userId, isTyping)));
}

/**
 * `presence.snapshot` (a watched user's state, in reply to our `presence.subscribe`) and `presence.update` (a live
 * online/offline transition): the same payload (guide §9.2).
 */
export function handlePresence(ctx: FrameContext): void {
  const p = ctx.frame.payload;
  const userId = id(p.user_id);
  if (!userId) return;
  ctx.emit('presence', { userId, online: bool(p.online) ?? false, lastSeenAt: str(p.last_seen_at), snapshot: ctx.frame.event === EVENT.presenceSnapshot });
}

/**
 * `notify.signal` (guide §9.4): reliable, content-free, handled alike live and in replay. Deduplicated on
 * `event_id` (a bounded durable set); a `version` not above the last one for `(type, entity)` is reported as stale.
 * `conversation.*` signals (but `conversation.dissolved`) reopen send gates; `conversation.dissolved` gates typing.
 */
export function handleNotifySignal(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const p = frame.payload;
  const type = str(p.type) ?? '';
  const entityId = str(p.entity_id) ?? '';
  const version = num(p.version);
  const coalesceKey = id(p.message_id);
  const eventId = id(p.event_id) ?? `${coalesceKey ?? `notify:${type}:${entityId}`}@${version ?? ''}`;
  if (!services.notifySeen.add(eventId, ctx.now)) return;
  const stale = version !== undefined && !services.store.kv.setMax(`hub.notify-version:${type}:${entityId}`, version);
  ctx.later(() => {
    if (type === 'conversation.dissolved') services.typingGate.close(entityId);
    else if (type.startsWith('conversation.')) {
      // The entity is normally the conversation; if it names no gated chat, any gated chat may be the one that moved.
      if (!services.gate.open(entityId)) services.gate.openAll();
    }
  });
  ctx.emit('notify', { type, entityId, version, eventId, coalesceKey, replay: ctx.replay, stale });
}

/**
 * `chat.metadata.invalidated` (guide §9.3): content-free, names what to refetch. Every element of `scope` counts
 * (one PATCH can change several fields); an unknown or empty scope means "refetch everything". A `version` not above
 * the last one seen for the chat is a duplicate and is dropped.
 */
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

/** `permission.request` (guide §9.5): an approval card keyed by `request_id`, expired locally at `expires_at`. */
export function handlePermissionRequest(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const p = frame.payload;
  const requestId = id(p.request_id);
  if (!requestId) return;
  const card = {
    requestId,
    chatId: frame.chatId,
    agentId: str(p.agent_id),
    operation: str(p.operation),
    target: isObject(p.target) ? p.target : undefined,
    expiresAt: num(p.expires_at),
    receivedAt: ctx.now,
  };
  ctx.later(() => services.core.report('permission', services.permissions.request(card)));
}

/**
 * `permission.resolved` (guide §9.5): collapses the card of a non-empty `request_id`. An empty id (the passive
 * policy deny) matches no card and is reported as information only; `decision` may be absent, `reason` is a code.
 */
export function handlePermissionResolved(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const p = frame.payload;
  const requestId = str(p.request_id) ?? '';
  const decision = str(p.decision);
  const reason = str(p.reason);
  ctx.later(() =>
    services.core.report('permission', { kind: 'resolved', requestId, chatId: frame.chatId, decision, reason, card: services.permissions.resolve(requestId) }),
  );
}
